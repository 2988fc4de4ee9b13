#pragma once
// The number format of a step's GEMMs (docs/DESIGN.md, Precision): BF16 everywhere, or the linear
// layers' GEMMs in FP8 as Transformer Engine and torchao run them.

#include "engine/cluster/cluster.h"

#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

/// BF16: every GEMM in BF16. FP8: the repeated blocks' linear layers run their GEMMs in FP8 with one
/// scale per tensor (Transformer Engine's delayed or current scaling, torchao's tensorwise float8);
/// Hopper's FP8 tensor cores read only the "TN" layout, so each FP8 operand is also kept transposed
/// for the backward GEMMs. MXFP8: the same GEMMs block-scaled (one E8M0 scale per 32 elements, OCP
/// MX), on devices whose tensor cores take MX formats (Blackwell); the operand of the other GEMM is
/// quantized along the other dimension instead of transposed. Attention, norms, the embedding and the
/// LM head stay in BF16 in all three.
enum class Precision { BF16, FP8, MXFP8 };

/// "bf16", "fp8", "mxfp8".
std::string_view precisionName(Precision p);
/// Parses a precision name; nullopt if unknown.
std::optional<Precision> parsePrecision(std::string_view name);

/// Bytes per element of an FP8 tensor in `p` on `device` with every copy its GEMMs read: FP8 on
/// Hopper keeps the value and its transpose (its tensor cores read FP8 only in the "TN" layout),
/// on a device whose tensor cores take FP8 in any layout (Blackwell, DeviceSpec::fp8AnyLayout) the
/// value alone; MXFP8 always keeps the row- and column-wise quantizations, each with its 1-byte scales
/// per 32 elements, since a block scale runs along one dimension. 0 for BF16.
double fp8CopiesBytesPerElement(Precision p, const DeviceSpec& device);
/// Bytes per element of one FP8 copy of a tensor in `p` (MXFP8 with its scales); 0 for BF16.
double fp8CopyBytesPerElement(Precision p);
/// Bytes of memory traffic per element of casting a BF16 tensor to `p`'s FP8 copies on `device`:
/// read 2 bytes, write every copy; 0 for BF16.
double fp8CastBytesPerElement(Precision p, const DeviceSpec& device);

/// Why `device` cannot run `p` ("" when it can): FP8 needs an FP8 peak, MXFP8 MX tensor cores.
std::string precisionSupportError(const DeviceSpec& device, Precision p);

} // namespace shardscope

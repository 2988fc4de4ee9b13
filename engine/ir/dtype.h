#pragma once
// Element types of tensors and their sizes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

enum class DType { BF16, FP16, FP32, FP8, INT32, INT64 };

/// Bytes per element of `t`.
int dtypeBytes(DType t);
/// The lower-case name used in files: "bf16", "fp32", ...
std::string_view dtypeName(DType t);
/// Parses a file name such as "bf16"; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

} // namespace shardscope

#include "engine/cost/precision.h"

#include "engine/util/enum_names.h"

namespace shardscope {

namespace {
constexpr EnumNames<Precision, 3> kPrecisions{
    {{{Precision::BF16, "bf16"}, {Precision::FP8, "fp8"}, {Precision::MXFP8, "mxfp8"}}}};
/// OCP MX: one 8-bit (E8M0) scale per block of 32 elements.
constexpr double kMxScaleBytesPerElement = 1.0 / 32.0;
} // namespace

std::string_view precisionName(Precision p) { return kPrecisions.name(p); }

std::optional<Precision> parsePrecision(std::string_view name) { return kPrecisions.parse(name); }

double fp8CopyBytesPerElement(Precision p) {
    switch (p) {
    case Precision::BF16:
        return 0;
    case Precision::FP8:
        return 1;
    case Precision::MXFP8:
        return 1 + kMxScaleBytesPerElement;
    }
    return 0;
}

double fp8CopiesBytesPerElement(Precision p, const DeviceSpec& device) {
    const int copies = p == Precision::FP8 && device.fp8AnyLayout ? 1 : 2;
    return copies * fp8CopyBytesPerElement(p);
}

double fp8CastBytesPerElement(Precision p, const DeviceSpec& device) {
    return p == Precision::BF16 ? 0 : 2 + fp8CopiesBytesPerElement(p, device);
}

std::string precisionSupportError(const DeviceSpec& device, Precision p) {
    if (p == Precision::BF16)
        return "";
    if (!device.peakFlops.contains(DType::FP8))
        return "precision " + std::string(precisionName(p)) + ": the device " + device.name +
               " has no FP8 peak (field 'device.peak_flops.fp8'); FP8 tensor cores came with Hopper and MI300";
    if (p == Precision::MXFP8 && !device.mxScaling)
        return "precision mxfp8: the device " + device.name +
               " has no block-scaled (MX) tensor cores (field 'device.mx_scaling'); use fp8, or a Blackwell device";
    return "";
}

} // namespace shardscope

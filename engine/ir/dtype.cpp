#include "engine/ir/dtype.h"

#include "engine/util/enum_names.h"

namespace shardscope {

namespace {
constexpr EnumNames<DType, 6> kNames{{{{DType::BF16, "bf16"},
                                       {DType::FP16, "fp16"},
                                       {DType::FP32, "fp32"},
                                       {DType::FP8, "fp8"},
                                       {DType::INT32, "int32"},
                                       {DType::INT64, "int64"}}}};
}

int dtypeBytes(DType t) {
    switch (t) {
    case DType::FP8:
        return 1;
    case DType::BF16:
    case DType::FP16:
        return 2;
    case DType::FP32:
    case DType::INT32:
        return 4;
    case DType::INT64:
        return 8;
    }
    return 4;
}

std::string_view dtypeName(DType t) { return kNames.name(t); }

std::optional<DType> parseDType(std::string_view name) { return kNames.parse(name); }

} // namespace shardscope

#include "engine/cost/comm_streams.h"

#include "engine/util/enum_names.h"

namespace shardscope {

namespace {
constexpr EnumNames<Stream, kStreamCount> kNames{{{{Stream::Compute, "compute"},
                                                   {Stream::Tensor, "tensor"},
                                                   {Stream::Gather, "gather"},
                                                   {Stream::Reduce, "reduce"},
                                                   {Stream::Pipeline, "pipeline"}}}};
} // namespace

std::string_view streamName(Stream s) { return kNames.name(s); }

Stream streamOf(const CollectiveCost& c) {
    switch (c.purpose) {
    case CommPurpose::ParameterGather:
        return Stream::Gather;
    case CommPurpose::GradientSync:
        return Stream::Reduce;
    case CommPurpose::StageTransfer:
        return Stream::Pipeline;
    case CommPurpose::Resharding:
    case CommPurpose::Statistics:
    case CommPurpose::Halo:
        break;
    }
    return Stream::Tensor;
}

} // namespace shardscope

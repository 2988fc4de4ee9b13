#pragma once
// The streams of one device and which collective runs on which (docs/DESIGN.md, Overlap): the rules
// the step program (engine/sim/step_program.*) schedules by and the analytic cost (cost_model.h)
// prices by, so the two cannot disagree about what may run beside what.
//
// The frameworks run each process group's collectives on an NCCL communicator of its own, launched
// on a CUDA stream of its own:
//   Tensor    tensor-, sequence- and context-parallel resharding, expert all-to-alls, norm
//             statistics, halos: the compute waits for them (Megatron-Core runs them on the compute
//             stream unless --tp-comm-overlap, which runs them beside the GEMM that feeds or reads them);
//   Gather    parameter all-gathers: FSDP2's all_gather_stream prefetching the next module's while the
//             current one computes, DeepSpeed ZeRO-3's prefetch by bucket size, Megatron-Core's
//             distributed optimizer gathering parameter buckets during the next forward
//             (--overlap-param-gather); a consumer waits only for its own gather;
//   Reduce    gradient reduce-scatters and all-reduces: FSDP2's reduce_scatter_stream after each
//             module's backward, Megatron-Core's buckets during the backward (--overlap-grad-reduce);
//             only the optimizer waits for them;
//   Pipeline  pipeline sends and receives (Megatron's batched isend/irecv on the pipeline group).
// Collectives of different streams run at once; transfers that share a link level share its
// bandwidth; compute slows while communication kernels run (DeviceSpec::overlapSlowdown).

#include "engine/cost/cost_terms.h"

#include <string_view>

namespace shardscope {

/// A stream of one device: its compute and one communication stream per process group.
enum class Stream { Compute, Tensor, Gather, Reduce, Pipeline };

/// Every stream, in the order timelines draw them.
constexpr Stream kStreams[] = {Stream::Compute, Stream::Tensor, Stream::Gather, Stream::Reduce, Stream::Pipeline};
/// Number of streams.
constexpr std::size_t kStreamCount = std::size(kStreams);

/// "compute", "tensor", "gather", "reduce", "pipeline".
std::string_view streamName(Stream s);
/// The stream collective `c` runs on, by why it runs.
Stream streamOf(const CollectiveCost& c);
/// True for the streams whose collectives run in the background: a compute waits only for the ones
/// it consumes (gathers) or none (gradient reductions), never for the stream itself.
inline bool isBackground(Stream s) { return s == Stream::Gather || s == Stream::Reduce; }

} // namespace shardscope

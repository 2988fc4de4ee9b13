#pragma once
// The step time of one timeline composed from per-op figures by the streams' rules
// (docs/DESIGN.md, Overlap; comm_streams.h), in closed form: what the simulator's step program does,
// priced without building it. Per micro-batch, a forward pass then a backward pass over the ops:
//   - the compute stream runs each op's blocking collectives (tensor stream: the compute waits),
//     then its compute, then the collectives after it;
//   - parameter gathers are queued on their link level in the order the pass uses them, as far ahead
//     of the compute as the workspace holds them (gather_prefetch.h); an op's compute waits for its
//     own; the once-per-step gathers of the first micro-batch are all queued at its start;
//   - gradient reductions are queued on their link level after the op's compute (the once-per-step
//     ones of the last micro-batch in buckets: a bucket goes when it holds bucketBytes, the last at
//     the pass's end); what is left of them at the end of a pass runs on into the next, and the
//     optimizer waits for all of it;
//   - on one link level the gather and the reduce stream each serve their queue in order; a
//     collective waits out its latency, then shares the level's bandwidth with the other stream's
//     collective while both move bytes; levels run at once;
//   - compute beside a busy link runs 1 + slowdown times slower.
// Worked example (one level, slowdown 0): ops of 2 s compute each with gathers of 3 s, 1 s: the
// gathers end at 3 s and 4 s; op 0 computes 3-5 s, op 1 5-7 s: the pass takes 7 s, 3 s exposed,
// where pricing each gather behind its own op's compute alone would expose 1 s.

#include <cstddef>
#include <memory>
#include <vector>

namespace shardscope {

/// Collectives on a link level: their seconds alone there, and of those the latency, which other
/// transfers on the level do not slow (CommShape::latency).
struct LinkWork {
    double seconds = 0;
    double latency = 0;

    /// Adds `o`'s seconds and latency.
    LinkWork& operator+=(const LinkWork& o) {
        seconds += o.seconds;
        latency += o.latency;
        return *this;
    }
};

/// One op's part of one pass of one micro-batch, in seconds.
struct PassOp {
    double before = 0;   ///< blocking collectives its compute waits for
    double work = 0;     ///< compute
    double after = 0;    ///< blocking collectives after its compute
    LinkWork gather;     ///< parameter gathers its compute waits for
    double gatherBytes = 0; ///< their bytes
    double working = 0;  ///< bytes of its working set while it runs (its own gathered weights included)
    LinkWork reduce;     ///< gradient reductions issued after its compute
    std::size_t level = 0; ///< the link level its gathers and reductions cross
};

/// A micro-batch's passes and what runs once per step.
struct StepPasses {
    std::vector<PassOp> forward;     ///< in forward order
    std::vector<PassOp> backward;    ///< in backward order (recomputation included in work and before)
    std::vector<LinkWork> firstGather; ///< per forward op: gathers once per step, in the first micro-batch
    std::vector<LinkWork> lastReduce;  ///< per backward op: reductions once per step, in the last micro-batch
    std::vector<double> lastReduceBytes; ///< and their bytes: they go out in buckets of `bucketBytes`
    double bucketBytes = 25e6;       ///< StepSettings::bucketBytes
    double workspace = 0;            ///< bytes reserved for working sets and prefetched gathers
    double optimizer = 0;
};

/// One micro-batch in the steady state (what is left on the links after it equals what was left
/// before it), without the once-per-step collectives: what a pipeline stage spends per micro-batch.
struct ComposedCycle {
    double forward = 0;         ///< the forward pass, from its start to the next pass's
    double backward = 0;        ///< the backward pass
    double forwardCompute = 0;  ///< of forward, compute (slowed where beside busy links)
    double backwardCompute = 0; ///< of backward, compute
};

/// The composed figures of a step.
struct ComposedStep {
    double stepTime = 0;
    double computeTime = 0;  ///< compute, slowed where it ran beside busy links
    double blockingTime = 0; ///< blocking collectives on the compute path
    /// A middle micro-batch that repeated the state it started from (zero when none did: fewer than
    /// three micro-batches, or no steady state yet).
    ComposedCycle steady;
};

/// The step of `passes` over `microbatches` micro-batches on `levels` link levels; `overlap` off
/// serialises everything (every collective blocks), `slowdown` is DeviceSpec::overlapSlowdown.
ComposedStep composeStep(const StepPasses& passes, int microbatches, std::size_t levels, bool overlap,
                         double slowdown);

/// The steady micro-batch of `passes` with overlap (composeStep()'s rules).
ComposedCycle composeCycle(const StepPasses& passes, std::size_t levels, double slowdown);

/// One pass of a model chunk as a pipeline schedule runs it: its length from start to end, and of it the
/// lead, the wait for its first gathers before any compute (which idle time before the pass hides).
struct PassTime {
    double length = 0;
    double lead = 0;
    double plain = 0; ///< of its compute, the seconds that ran at full rate (beside no communication)
};

struct StageClocks;

/// A pipeline stage's passes with overlap (composeStep()'s rules) as a schedule runs them, on the
/// stage's links, which go on working while the stage idles. A pass is run in full (with the first
/// micro-batch's once-per-step gathers or the last one's reductions when asked), or skipped at its
/// steady length, the links left as a steady pass leaves them (for the middle of a long schedule).
class StageComposer {
public:
    /// A stage on `levels` link levels whose compute runs `slowdown` slower beside communication.
    StageComposer(std::size_t levels, double slowdown);
    ~StageComposer();
    StageComposer(StageComposer&&) noexcept;

    /// Starts the stage's step again: links idle and empty, nothing sent; the chunks stay.
    void restart();
    /// Adds a model chunk of the stage whose ops are `passes`; returns its index.
    int addChunk(StepPasses passes);
    /// The steady forward (`forward`) or backward pass of chunk `chunk`.
    PassTime steady(int chunk, bool forward) const;
    /// Runs a pass of `chunk` in full from `free` (when the stage's compute is free), no compute before
    /// `arrived`; `first`/`last`: the first micro-batch (forward) or the last one (backward). Returns
    /// when its compute ends.
    double run(int chunk, bool forward, bool first, bool last, double free, double arrived);
    /// A steady pass of `chunk` from `free` (its lead hidden by idle time before `arrived`): returns when
    /// it ends.
    double skip(int chunk, bool forward, double free, double arrived);
    /// Sends `seconds` on the stage's pipeline stream from `at`, after its earlier sends: compute
    /// beside them is slowed, and the optimizer waits for them.
    void send(double at, double seconds);
    /// When the stage's sends are done.
    double sent() const;
    /// When the stage's links have drained and its sends are done.
    double drained() const;
    /// Its ops' optimizer seconds.
    double optimizer() const;

private:
    struct Chunk;
    std::size_t levels_;
    double slowdown_;
    std::vector<std::unique_ptr<Chunk>> chunks_;
    std::unique_ptr<StageClocks> links_;
};

} // namespace shardscope

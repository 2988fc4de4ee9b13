#include "engine/evaluation/schedule_composition.h"

#include "engine/evaluation/step_passes.h"
#include "engine/evaluation/stream_composition.h"
#include "engine/pipeline/pipeline_cost.h"
#include "engine/pipeline/schedule_order.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace shardscope {

namespace {

/// A tensor arriving in a chunk: from which chunk, the send's seconds and the gather's on arrival.
struct Arrival {
    int from = 0;
    double send = 0;
    double gather = 0;
};

/// The length of each pass run serially (overlap off): the sum of its ops' figures.
double serialLength(const std::vector<PassOp>& ops) {
    double t = 0;
    for (const PassOp& op : ops)
        t += op.before + op.work + op.after + op.gather.seconds + op.reduce.seconds;
    return t;
}

/// A chunk's passes in the schedule: its stage's composer and its index there (overlap), or serial.
struct Chunk {
    int index = -1;                        ///< in its stage's composer (overlap)
    PassTime forward, backward;            ///< without overlap: serial lengths
};

/// True for the units run in full: the first two and the last two micro-batches (the once-per-step
/// collectives, the fill and the drain); the ones between repeat a steady pass.
bool runInFull(int microbatch, int m) { return microbatch < 2 || microbatch >= m - 2; }

} // namespace

double composeSchedule(const CostModel& model, const Plan& plan, const Evaluation& e) {
    const PipelineLayout& layout = plan.pipeline;
    const StepSettings& settings = model.settings();
    const int P = layout.stages, C = layout.chunks(), m = settings.microbatches;
    const bool overlap = settings.overlap;

    // Each chunk's passes, and the stages' optimizers.
    std::vector<std::vector<OpId>> chunkOps(std::size_t(C), std::vector<OpId>{});
    for (OpId o : model.graph().topoOrder())
        chunkOps[std::size_t(layout.chunkOf[o.index()])].push_back(o);
    std::vector<Chunk> chunks(static_cast<std::size_t>(C));
    std::vector<double> stepWork(static_cast<std::size_t>(P), 0.0); ///< per stage: its work once per step
    std::vector<StageComposer> stages;
    for (int s = 0; s < P && overlap; ++s)
        stages.emplace_back(model.comm().levelCount(), model.cluster().device.overlapSlowdown);
    std::vector<StepPasses> chunkPasses;
    std::vector<double> workspace(static_cast<std::size_t>(P), 0.0); ///< per stage, as the simulator reserves it
    for (int c = 0; c < C; ++c) {
        chunkPasses.push_back(stepPasses(model, e.perOp, chunkOps[std::size_t(c)]));
        double& w = workspace[std::size_t(layout.stageOfChunk(c))];
        w = std::max(w, chunkPasses.back().workspace);
    }
    for (int c = 0; c < C; ++c) {
        StepPasses passes = std::move(chunkPasses[std::size_t(c)]);
        passes.workspace = workspace[std::size_t(layout.stageOfChunk(c))];
        double& work = stepWork[std::size_t(layout.stageOfChunk(c))];
        work += passes.optimizer;
        Chunk& chunk = chunks[std::size_t(c)];
        if (overlap) {
            chunk.index = stages[std::size_t(layout.stageOfChunk(c))].addChunk(std::move(passes));
        } else {
            // Serially; the once-per-step collectives after the stage's last unit (Megatron-LM's
            // finalize_model_grads, then the distributed optimizer's gathers).
            chunk.forward.length = serialLength(passes.forward);
            chunk.backward.length = serialLength(passes.backward);
            for (const LinkWork& g : passes.firstGather)
                work += g.seconds;
            for (const LinkWork& r : passes.lastReduce)
                work += r.seconds;
        }
    }
    // What arrives in each chunk, forward and backward, and what each chunk sends.
    std::vector<std::vector<Arrival>> into[2];
    into[0].resize(std::size_t(C));
    into[1].resize(std::size_t(C));
    std::vector<double> sends[2];
    sends[0].assign(std::size_t(C), 0.0);
    sends[1].assign(std::size_t(C), 0.0);
    for (const StageTransfer& t : stageTransfers(model, plan)) {
        auto arrival = [](int from, const std::vector<CollectiveCost>& list) {
            return Arrival{from, list.front().time, list.size() > 1 ? list[1].time : 0.0};
        };
        into[0][std::size_t(t.toChunk)].push_back(arrival(t.fromChunk, t.forward));
        sends[0][std::size_t(t.fromChunk)] += t.forward.front().time;
        if (!t.backward.empty()) {
            into[1][std::size_t(t.fromChunk)].push_back(arrival(t.toChunk, t.backward));
            sends[1][std::size_t(t.toChunk)] += t.backward.front().time;
        }
    }

    // The units of each stage in the schedule's order for `mu` micro-batches, run as their arrivals
    // allow: the step.
    auto runUnits = [&](int mu) {
        StepSettings scheduled = settings;
        scheduled.microbatches = mu;
        std::vector<std::vector<PipelineUnit>> order(static_cast<std::size_t>(P));
        for (int s = 0; s < P; ++s)
            order[std::size_t(s)] = stageOrder(scheduled, P, s);
        for (StageComposer& stage : stages)
            stage.restart();
        // When each unit ended, by (direction, chunk, micro-batch); negative while it has not.
        std::vector<double> ended(std::size_t(2 * C * mu), -1.0);
        auto unitAt = [C, mu](bool forward, int chunk, int microbatch) {
            return std::size_t(((forward ? 0 : 1) * C + chunk) * mu + microbatch);
        };
        std::vector<std::size_t> next(static_cast<std::size_t>(P), 0);
        std::vector<double> free(static_cast<std::size_t>(P), 0.0), finish(static_cast<std::size_t>(P), 0.0);
        std::size_t left = 0;
        for (const auto& units : order)
            left += units.size();
        while (left > 0) {
            bool progress = false;
            for (int s = 0; s < P; ++s) {
                auto& at = next[std::size_t(s)];
                while (at < order[std::size_t(s)].size()) {
                    const PipelineUnit& u = order[std::size_t(s)][at];
                    const int dir = u.forward ? 0 : 1;
                    // Its tensors: sent when their unit ended, gathered once here. With overlap the
                    // receive queues on the pipeline stream behind the stage's own sends.
                    const double received =
                        std::max(free[std::size_t(s)], overlap ? stages[std::size_t(s)].sent() : 0.0);
                    double arrived = 0;
                    bool ready = true;
                    for (const Arrival& a : into[dir][std::size_t(u.chunk)]) {
                        const double sent = ended[unitAt(u.forward, a.from, u.microbatch)];
                        if (sent < 0) {
                            ready = false;
                            break;
                        }
                        arrived = std::max(arrived, std::max(sent + a.send, received) + a.gather);
                    }
                    if (!ready)
                        break;
                    const Chunk& chunk = chunks[std::size_t(u.chunk)];
                    const double stageFree = free[std::size_t(s)];
                    double end = 0;
                    if (overlap) {
                        StageComposer& stage = stages[std::size_t(s)];
                        end = runInFull(u.microbatch, mu)
                                  ? stage.run(chunk.index, u.forward, u.microbatch == 0, u.microbatch + 1 == mu,
                                              stageFree, arrived)
                                  : stage.skip(chunk.index, u.forward, stageFree, arrived);
                    } else {
                        const PassTime pass = u.forward ? chunk.forward : chunk.backward;
                        end = std::max(stageFree, arrived) + pass.length;
                    }
                    ended[unitAt(u.forward, u.chunk, u.microbatch)] = end;
                    if (overlap && sends[dir][std::size_t(u.chunk)] > 0)
                        stages[std::size_t(s)].send(end, sends[dir][std::size_t(u.chunk)]);
                    // Without overlap a sender waits for its own sends.
                    free[std::size_t(s)] = end + (overlap ? 0.0 : sends[dir][std::size_t(u.chunk)]);
                    finish[std::size_t(s)] = std::max(finish[std::size_t(s)], free[std::size_t(s)]);
                    ++at;
                    --left;
                    progress = true;
                }
            }
            if (!progress)
                throw std::logic_error("pipeline schedule: units wait for each other");
        }
        // A stage's step ends once its links have drained (the optimizer waits for the reductions).
        double step = 0;
        for (int s = 0; s < P; ++s) {
            const double end = overlap ? std::max(finish[std::size_t(s)], stages[std::size_t(s)].drained())
                                       : finish[std::size_t(s)];
            step = std::max(step, end + stepWork[std::size_t(s)]);
        }
        return step;
    };
    // Past the fill, every further micro-batch (P of them, interleaved) adds the same steady stretch
    // to the step: with overlap (whose passes are dearer to run) a long schedule is run at two lengths
    // in its steady state and extended in a line (within 0.4% of running it whole on the benchmark
    // plans); without, it is run whole, the simulator's step exactly.
    const int period = settings.schedule == Schedule::Interleaved ? P : 1;
    const int longer = (std::max(4 * P + 8, 32) + period - 1) / period * period + period;
    if (!overlap || m <= longer)
        return runUnits(m);
    const double atLonger = runUnits(longer);
    const double perPeriod = atLonger - runUnits(longer - period);
    return atLonger + double(m - longer) / period * perPeriod;
}

} // namespace shardscope

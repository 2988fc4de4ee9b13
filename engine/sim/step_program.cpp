#include "engine/sim/step_program.h"

#include "engine/pipeline/pipeline_cost.h"
#include "engine/pipeline/schedule_order.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace shardscope {

namespace {

/// What waits for a communication task.
enum class Wait {
    Blocking,   ///< the next compute task (resharding, statistics, halo)
    Background, ///< only the optimizer (gradient synchronisation with overlap on)
    Prefetch,   ///< the compute of the op it gathers parameters for
    WithNext,   ///< runs beside the next compute (a linear layer's GEMM); the compute after waits
    WithLast,   ///< runs beside the last compute (the GEMM that produces it); the next compute waits
};

/// Occurrences of `c` in one micro-batch (forward edges into a recomputed op run twice per
/// micro-batch: once in the forward, once in the backward's recomputation).
int perMicrobatch(const CollectiveCost& c, int m) { return std::max(1, c.count / m); }

bool isGather(const CollectiveCost& c, Phase phase) {
    return c.purpose == CommPurpose::ParameterGather && c.phase == phase;
}

/// Builds the program task by task, tracking what the next compute task must wait for.
class ProgramBuilder {
public:
    ProgramBuilder(const CostModel& model, const Plan& plan, const SimOptions& options)
        : model_(model), g_(model.graph()), plan_(plan), options_(options), m_(model.settings().microbatches),
          costs_(g_.ops().size()), incoming_(g_.ops().size()) {
        for (OpId o : g_.topoOrder())
            costs_[o.index()] = model.opCost(o, plan.ops[o.index()].strategy);
        for (const Edge& e : model.edges()) {
            const EdgeCost ec = model.edgeCost(e, plan.ops[e.from.index()].strategy, plan.ops[e.to.index()].strategy);
            auto& in = incoming_[e.to.index()];
            in.insert(in.end(), ec.collectives.begin(), ec.collectives.end());
        }
        const PipelineLayout& layout = plan.pipeline;
        program_.stages = layout.active() ? layout.stages : 1;
        program_.staticBytes.assign(std::size_t(program_.stages), 0);
        program_.workspace.assign(std::size_t(program_.stages), 0);
        std::vector<double> recomputeWorkspace(std::size_t(program_.stages), 0);
        for (OpId o : g_.topoOrder()) {
            const OpCost& c = costs_[o.index()];
            const std::size_t s = std::size_t(stageOf(o));
            program_.staticBytes[s] += c.memory.parameters + c.memory.gradients + c.memory.optimizer;
            program_.workspace[s] = std::max(program_.workspace[s], c.transient);
            recomputeWorkspace[s] += c.activationWorkspace;
        }
        if (layout.active()) {
            // One block's recompute working set is live once per stage (pipeline_cost.h).
            std::vector<int> blocks(std::size_t(layout.stages), 0);
            int total = 0;
            for (int ch = 0; ch < layout.chunks(); ++ch) {
                blocks[std::size_t(layout.stageOfChunk(ch))] += layout.chunkBlocks[std::size_t(ch)];
                total += layout.chunkBlocks[std::size_t(ch)];
            }
            for (std::size_t s = 0; s < blocks.size(); ++s)
                if (blocks[s] > 0)
                    program_.staticBytes[s] += recomputeWorkspace[s] * total / blocks[s];
        }
    }

    StepProgram build() {
        if (plan_.pipeline.active())
            return buildPipelined();
        std::vector<OpId> forward = g_.topoOrder();
        std::vector<OpId> backward(forward.rbegin(), forward.rend());
        for (int mb = 0; mb < m_; ++mb) {
            forwardPass(forward, mb);
            backwardPass(backward, mb);
        }
        finishStep();
        return std::move(program_);
    }

private:
    /// Where a stage transfer goes: its index, direction and micro-batch.
    using TransferKey = std::tuple<std::size_t, bool, int>;

    int stageOf(OpId o) const { return plan_.pipeline.active() ? plan_.pipeline.stageOf(o) : 0; }

    /// Every stage's program in its schedule's order, then the transfers' waits joined up.
    StepProgram buildPipelined() {
        const PipelineLayout& layout = plan_.pipeline;
        transfers_ = stageTransfers(model_, plan_);
        std::vector<std::vector<OpId>> chunkOps(std::size_t(layout.chunks()));
        for (OpId o : g_.topoOrder())
            chunkOps[std::size_t(layout.chunkOf[o.index()])].push_back(o);
        for (int s = 0; s < layout.stages; ++s) {
            switchStage(s);
            for (const PipelineUnit& u : stageOrder(model_.settings(), layout.stages, s)) {
                const std::vector<OpId>& ops = chunkOps[std::size_t(u.chunk)];
                receive(u);
                if (u.forward) {
                    forwardPass(ops, u.microbatch);
                } else {
                    const std::vector<OpId> reversed(ops.rbegin(), ops.rend());
                    backwardPass(reversed, u.microbatch);
                }
                send(u);
                // With overlap, a chunk's gradients sync behind the rest of the schedule; without,
                // after it (finishStep), as Megatron-LM's finalize_model_grads.
                if (!u.forward && u.microbatch + 1 == m_ && options_.overlap)
                    flushBucket(u.microbatch);
            }
            finishStep();
        }
        for (const auto& [task, key] : waits_)
            program_.tasks[std::size_t(task)].deps.push_back(sends_.at(key));
        return std::move(program_);
    }

    /// The transfers that arrive in (`arriving`) or leave (else) unit `u`'s chunk in its direction.
    bool concerns(const StageTransfer& t, const PipelineUnit& u, bool arriving) const {
        const int chunk = u.forward == arriving ? t.toChunk : t.fromChunk;
        return chunk == u.chunk && (u.forward || !t.backward.empty());
    }

    /// Before unit `u`: a receive per arriving transfer, waiting for its send on the other stage and
    /// all-gathering what came in pieces; the unit's first compute waits for it.
    void receive(const PipelineUnit& u) {
        for (std::size_t i = 0; i < transfers_.size(); ++i) {
            const StageTransfer& t = transfers_[i];
            if (!concerns(t, u, true))
                continue;
            const auto& list = u.forward ? t.forward : t.backward;
            SimTask r;
            r.event.stream = Stream::Comm;
            r.event.op = u.forward ? t.to : t.from;
            r.event.name = g_.tensor(list.front().tensor).name + " received";
            r.event.phase = u.forward ? Phase::Forward : Phase::Backward;
            r.event.collective = true;
            r.event.microbatch = u.microbatch;
            if (list.size() > 1) {
                r.event.kind = list[1].kind;
                r.event.axes = list[1].axes;
                r.event.bytes = list[1].bytes;
                r.parts.push_back(CommPart{list[1].kind, list[1].axes, list[1].bytes, 1, 0});
            } else {
                r.event.kind = CollectiveKind::SendRecv;
                r.event.axes = list.front().axes;
            }
            waits_.emplace_back(addComm(std::move(r), Wait::Blocking), TransferKey{i, u.forward, u.microbatch});
        }
    }

    /// After unit `u`: a send per leaving transfer, beside whatever the stage computes next.
    void send(const PipelineUnit& u) {
        for (std::size_t i = 0; i < transfers_.size(); ++i) {
            const StageTransfer& t = transfers_[i];
            if (!concerns(t, u, false))
                continue;
            const CollectiveCost& c = (u.forward ? t.forward : t.backward).front();
            SimTask task = commTask(u.forward ? t.from : t.to, c, 1, u.microbatch);
            task.event.name = g_.tensor(c.tensor).name + (u.forward ? " to chunk " + std::to_string(t.toChunk)
                                                                   : " gradient to chunk " + std::to_string(t.fromChunk));
            sends_[TransferKey{i, u.forward, u.microbatch}] = addComm(std::move(task), Wait::Background);
        }
    }

    /// What the builder tracks per stage between tasks.
    struct StageState {
        int lastCompute = -1, prevCompute = -1;
        std::vector<int> blocking, besideNext, background;
        std::vector<CollectiveCost> bucket;
        double bucketBytes = 0;
        std::vector<std::pair<OpId, CollectiveCost>> stepGathers;
    };

    /// Continues building stage `s`'s program (its own streams and waits).
    void switchStage(int s) {
        if (s == stage_)
            return;
        StageState& out = saved_[stage_];
        out = StageState{lastCompute_, prevCompute_, std::move(blocking_), std::move(besideNext_),
                         std::move(background_), std::move(bucket_), bucketBytes_, std::move(stepGathers_)};
        StageState& in = saved_[s];
        lastCompute_ = in.lastCompute;
        prevCompute_ = in.prevCompute;
        blocking_ = std::move(in.blocking);
        besideNext_ = std::move(in.besideNext);
        background_ = std::move(in.background);
        bucket_ = std::move(in.bucket);
        bucketBytes_ = in.bucketBytes;
        stepGathers_ = std::move(in.stepGathers);
        stage_ = s;
    }

    int addCompute(SimTask t) {
        t.stream = Stream::Compute;
        t.deps.insert(t.deps.end(), blocking_.begin(), blocking_.end());
        blocking_ = std::move(besideNext_);
        besideNext_.clear();
        prevCompute_ = lastCompute_;
        lastCompute_ = push(std::move(t));
        return lastCompute_;
    }

    int addComm(SimTask t, Wait wait) {
        t.stream = Stream::Comm;
        const int after = wait == Wait::WithLast ? prevCompute_ : lastCompute_;
        if (after >= 0)
            t.deps.push_back(after);
        const int id = push(std::move(t));
        if (wait == Wait::Blocking || wait == Wait::WithLast)
            blocking_.push_back(id);
        else if (wait == Wait::WithNext)
            besideNext_.push_back(id);
        else if (wait == Wait::Background)
            background_.push_back(id);
        return id;
    }

    int push(SimTask t) {
        t.stage = stage_;
        t.event.task = static_cast<int>(program_.tasks.size());
        program_.tasks.push_back(std::move(t));
        return program_.tasks.back().event.task;
    }

    SimTask computeTask(OpId o, const char* suffix, Phase phase, double duration, int mb) const {
        SimTask t;
        t.event.op = o;
        t.event.name = g_.op(o).name + suffix;
        t.event.phase = phase;
        t.event.duration = duration;
        t.event.microbatch = mb;
        return t;
    }

    SimTask commTask(OpId o, const CollectiveCost& c, int times, int mb) const {
        SimTask t;
        t.event.stream = Stream::Comm;
        t.event.op = o;
        t.event.name = g_.op(o).name + " " + std::string(collectiveBadge(c.kind));
        t.event.phase = c.phase;
        t.event.collective = true;
        t.event.kind = c.kind;
        t.event.axes = c.axes;
        t.event.bytes = c.bytes;
        t.event.microbatch = mb;
        t.parts.push_back(CommPart{c.kind, c.axes, c.bytes, times, c.bucket});
        return t;
    }

    /// Issues the collectives of `list` (of op `o`) that `keep` selects; returns their task ids.
    template <typename Keep>
    std::vector<int> issue(const std::vector<CollectiveCost>& list, OpId o, int mb, Wait wait, Keep keep) {
        std::vector<int> ids;
        for (const CollectiveCost& cc : list)
            if (keep(cc))
                ids.push_back(addComm(commTask(o, cc, 1, mb), wait));
        return ids;
    }

    /// How a resharding into `consumer` waits: with tensor-parallel overlap (CostModel::
    /// hidesTensorParallelComm, its hidden share set) beside the consumer's GEMM in the forward and
    /// beside the GEMM just run otherwise (the producer's forward, the consumer's backward).
    Wait reshardWait(const CollectiveCost& cc, OpId consumer, Phase phase) const {
        if (!options_.overlap || cc.hidden <= 0 ||
            (phase == Phase::Forward && model_.settings().tpOverlap != TpOverlap::Full))
            return Wait::Blocking;
        return phase == Phase::Forward && model_.hidesTensorParallelComm(consumer) ? Wait::WithNext : Wait::WithLast;
    }

    /// Issues the reshardings into `o` that `keep` selects, each waited for as reshardWait() says.
    template <typename Keep>
    void issueIncoming(OpId o, int mb, Phase phase, Keep keep) {
        for (const CollectiveCost& cc : incoming_[o.index()])
            if (keep(cc))
                addComm(commTask(o, cc, 1, mb), reshardWait(cc, o, phase));
    }

    double gatherBytes(OpId o, Phase phase) const {
        double bytes = 0;
        for (const CollectiveCost& cc : costs_[o.index()].collectives)
            if (isGather(cc, phase))
                bytes += cc.bytes;
        return bytes;
    }

    /// Before the compute of `pass[i]`, issues the parameter gathers of the next op that has any,
    /// when every op running meanwhile leaves room for them in the workspace.
    void prefetch(const std::vector<OpId>& pass, std::size_t i, Phase phase, int mb) {
        if (!options_.overlap)
            return;
        const std::size_t j = nextGather_[i];
        if (j == pass.size() || prefetched_[pass[j].index()])
            return;
        const double bytes = gatherBytes(pass[j], phase);
        if (peakToNext_[i] + bytes > program_.workspace[std::size_t(stage_)])
            return;
        gathers_[pass[j].index()] = issue(costs_[pass[j].index()].collectives, pass[j], mb, Wait::Prefetch,
                                          [phase](const CollectiveCost& cc) { return isGather(cc, phase); });
        prefetched_[pass[j].index()] = true;
    }

    /// For each position of `pass`: the next op after it with parameter gathers (or the pass's end),
    /// and the largest transient working set from it up to that op: prefetch() in constant time, so a
    /// pass is linear in its length.
    void indexGathers(const std::vector<OpId>& pass, Phase phase) {
        const std::size_t n = pass.size();
        nextGather_.assign(n, n);
        peakToNext_.assign(n, 0.0);
        for (std::size_t i = n; i-- > 0;) {
            const double transient = costs_[pass[i].index()].transient;
            if (i + 1 == n) {
                peakToNext_[i] = transient;
                continue;
            }
            const bool nextGathers = gatherBytes(pass[i + 1], phase) > 0;
            nextGather_[i] = nextGathers ? i + 1 : nextGather_[i + 1];
            peakToNext_[i] = nextGathers ? transient : std::max(transient, peakToNext_[i + 1]);
        }
    }

    /// The gathers of `o` not prefetched, issued now; returns the gather tasks its compute waits for.
    std::vector<int> takeGathers(OpId o, Phase phase, int mb) {
        std::vector<int> ids = std::move(gathers_[o.index()]);
        gathers_[o.index()].clear();
        if (!prefetched_[o.index()])
            issue(costs_[o.index()].collectives, o, mb, Wait::Blocking,
                  [phase](const CollectiveCost& cc) { return isGather(cc, phase); });
        return ids;
    }

    void startPass() {
        prefetched_.assign(g_.ops().size(), false);
        gathers_.assign(g_.ops().size(), {});
    }

    void forwardPass(const std::vector<OpId>& pass, int mb) {
        startPass();
        indexGathers(pass, Phase::Forward);
        for (std::size_t i = 0; i < pass.size(); ++i) {
            const OpId o = pass[i];
            const OpCost& c = costs_[o.index()];
            std::vector<int> waits = takeGathers(o, Phase::Forward, mb);
            issue(c.collectives, o, mb, Wait::Blocking, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Forward && cc.purpose != CommPurpose::Statistics &&
                       cc.purpose != CommPurpose::ParameterGather;
            });
            issueIncoming(o, mb, Phase::Forward, [](const CollectiveCost& cc) { return cc.phase == Phase::Forward; });
            prefetch(pass, i, Phase::Forward, mb);
            SimTask fwd = computeTask(o, "", Phase::Forward, c.forward / m_, mb);
            // Pipelined, one block's recompute working set is held for the whole step instead.
            fwd.allocate = c.memory.activations - (plan_.pipeline.active() ? c.activationWorkspace : 0.0);
            fwd.deps = std::move(waits);
            addCompute(std::move(fwd));
            issue(c.collectives, o, mb, Wait::Blocking, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Forward && cc.purpose == CommPurpose::Statistics;
            });
        }
    }

    void backwardPass(const std::vector<OpId>& pass, int mb) {
        startPass();
        indexGathers(pass, Phase::Backward);
        const bool last = mb + 1 == m_;
        const Wait sync = options_.overlap ? Wait::Background : Wait::Blocking;
        for (std::size_t i = 0; i < pass.size(); ++i) {
            const OpId o = pass[i];
            const OpCost& c = costs_[o.index()];
            std::vector<int> waits = takeGathers(o, Phase::Backward, mb);
            if (c.recompute > 0) {
                const int m = m_;
                issueIncoming(o, mb, Phase::Forward, [m](const CollectiveCost& cc) {
                    return cc.phase == Phase::Forward && perMicrobatch(cc, m) == 2;
                });
            }
            prefetch(pass, i, Phase::Backward, mb);
            if (c.recompute > 0) {
                SimTask re = computeTask(o, " (recompute)", Phase::Backward, c.recompute / m_, mb);
                re.deps = std::move(waits);
                waits.clear();
                addCompute(std::move(re));
            }
            SimTask bwd = computeTask(o, " (backward)", Phase::Backward, c.backward / m_, mb);
            bwd.release = c.memory.activations - (plan_.pipeline.active() ? c.activationWorkspace : 0.0);
            bwd.deps = std::move(waits);
            addCompute(std::move(bwd));
            issue(c.collectives, o, mb, Wait::Blocking, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Backward && cc.purpose != CommPurpose::ParameterGather &&
                       cc.purpose != CommPurpose::GradientSync;
            });
            issue(c.collectives, o, mb, sync, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Backward && cc.purpose == CommPurpose::GradientSync;
            });
            issueIncoming(o, mb, Phase::Backward, [](const CollectiveCost& cc) { return cc.phase == Phase::Backward; });
            if (last) {
                collectStepCollectives(o);
                // Pipelined, gradients are synchronised once the chunk's gradient has gone to the stage
                // before (buildPipelined), on their own NCCL streams in Megatron-LM: never ahead of a send.
                if (!plan_.pipeline.active() && (bucketBytes_ >= model_.settings().bucketBytes || i + 1 == pass.size()))
                    flushBucket(mb);
            }
        }
    }

    /// After an op's last backward its gradients are ready: bucket their synchronisation.
    void collectStepCollectives(OpId o) {
        for (const CollectiveCost& cc : costs_[o.index()].collectives) {
            if (cc.phase != Phase::Step)
                continue;
            if (cc.purpose == CommPurpose::GradientSync) {
                bucket_.push_back(cc);
                bucketBytes_ += cc.bytes;
            } else {
                stepGathers_.emplace_back(o, cc);
            }
        }
    }

    /// Issues the gradients bucketed so far as one synchronisation task.
    void flushBucket(int mb) {
        if (bucket_.empty())
            return;
        SimTask t;
        t.event.stream = Stream::Comm;
        t.event.name = "gradient bucket";
        t.event.phase = Phase::Step;
        t.event.collective = true;
        t.event.kind = bucket_.front().kind;
        t.event.microbatch = mb;
        for (const CollectiveCost& cc : bucket_) {
            t.event.axes |= cc.axes;
            t.event.bytes += cc.bytes;
            t.parts.push_back(CommPart{cc.kind, cc.axes, cc.bytes, cc.count, cc.bucket});
        }
        addComm(std::move(t), options_.overlap ? Wait::Background : Wait::Blocking);
        bucket_.clear();
        bucketBytes_ = 0;
    }

    /// The optimizer after every gradient is synchronised, then ZeRO 1 and 2's parameter gathers.
    void finishStep() {
        flushBucket(m_ - 1);
        SimTask optimizer;
        optimizer.event.name = "optimizer";
        optimizer.event.phase = Phase::Step;
        optimizer.deps = background_;
        for (OpId o : g_.topoOrder())
            if (stageOf(o) == stage_)
                optimizer.event.duration += costs_[o.index()].optimizer;
        addCompute(std::move(optimizer));
        for (const auto& [o, cc] : stepGathers_)
            addComm(commTask(o, cc, cc.count, m_ - 1), Wait::Blocking);
    }

    const CostModel& model_;
    const Graph& g_;
    const Plan& plan_;
    SimOptions options_;
    int stage_ = 0;
    std::map<int, StageState> saved_;
    std::vector<StageTransfer> transfers_;
    std::map<TransferKey, int> sends_;                ///< the send task of each transfer occurrence
    std::vector<std::pair<int, TransferKey>> waits_;  ///< receive tasks and the sends they wait for
    int m_;
    std::vector<OpCost> costs_;
    std::vector<std::vector<CollectiveCost>> incoming_;
    StepProgram program_;
    int lastCompute_ = -1;
    int prevCompute_ = -1;         ///< the compute task before lastCompute_
    std::vector<int> blocking_;
    std::vector<int> besideNext_;  ///< WithNext tasks: the compute after the next one waits for them
    std::vector<int> background_;
    std::vector<bool> prefetched_;
    std::vector<std::size_t> nextGather_; ///< per position of the pass being built: see indexGathers()
    std::vector<double> peakToNext_;
    std::vector<std::vector<int>> gathers_;
    std::vector<CollectiveCost> bucket_;
    double bucketBytes_ = 0;
    std::vector<std::pair<OpId, CollectiveCost>> stepGathers_;
};

} // namespace

StepProgram buildStepProgram(const CostModel& model, const Plan& plan, const SimOptions& options) {
    return ProgramBuilder(model, plan, options).build();
}

} // namespace shardscope

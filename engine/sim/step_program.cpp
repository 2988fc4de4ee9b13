#include "engine/sim/step_program.h"

#include <algorithm>

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
        : model_(model), g_(model.graph()), options_(options), m_(model.settings().microbatches),
          costs_(g_.ops().size()), incoming_(g_.ops().size()) {
        for (OpId o : g_.topoOrder())
            costs_[o.index()] = model.opCost(o, plan.strategies[o.index()]);
        for (const Edge& e : model.edges()) {
            const EdgeCost ec = model.edgeCost(e, plan.strategies[e.from.index()], plan.strategies[e.to.index()]);
            auto& in = incoming_[e.to.index()];
            in.insert(in.end(), ec.collectives.begin(), ec.collectives.end());
        }
        for (const OpCost& c : costs_) {
            program_.staticBytes += c.memory.parameters + c.memory.gradients + c.memory.optimizer;
            program_.workspace = std::max(program_.workspace, c.transient);
        }
    }

    StepProgram build() {
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
        std::size_t j = i + 1;
        while (j < pass.size() && gatherBytes(pass[j], phase) == 0)
            ++j;
        if (j == pass.size() || prefetched_[pass[j].index()])
            return;
        const double bytes = gatherBytes(pass[j], phase);
        for (std::size_t k = i; k < j; ++k)
            if (costs_[pass[k].index()].transient + bytes > program_.workspace)
                return;
        gathers_[pass[j].index()] = issue(costs_[pass[j].index()].collectives, pass[j], mb, Wait::Prefetch,
                                          [phase](const CollectiveCost& cc) { return isGather(cc, phase); });
        prefetched_[pass[j].index()] = true;
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
            fwd.allocate = c.memory.activations;
            fwd.deps = std::move(waits);
            addCompute(std::move(fwd));
            issue(c.collectives, o, mb, Wait::Blocking, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Forward && cc.purpose == CommPurpose::Statistics;
            });
        }
    }

    void backwardPass(const std::vector<OpId>& pass, int mb) {
        startPass();
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
            bwd.release = c.memory.activations;
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
            if (last)
                collectStepCollectives(o, i + 1 == pass.size(), mb);
        }
    }

    /// After an op's last backward its gradients are ready: bucket their synchronisation.
    void collectStepCollectives(OpId o, bool lastOp, int mb) {
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
        if (bucket_.empty() || (bucketBytes_ < model_.settings().bucketBytes && !lastOp))
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
        SimTask optimizer;
        optimizer.event.name = "optimizer";
        optimizer.event.phase = Phase::Step;
        optimizer.deps = background_;
        for (const OpCost& c : costs_)
            optimizer.event.duration += c.optimizer;
        addCompute(std::move(optimizer));
        for (const auto& [o, cc] : stepGathers_)
            addComm(commTask(o, cc, cc.count, m_ - 1), Wait::Blocking);
    }

    const CostModel& model_;
    const Graph& g_;
    SimOptions options_;
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

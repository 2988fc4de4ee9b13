#include "engine/sim/step_program.h"

#include "engine/pipeline/pipeline_cost.h"
#include "engine/pipeline/schedule_order.h"
#include "engine/cost/gather_prefetch.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>

namespace shardscope {

namespace {

/// What waits for a communication task.
enum class Wait {
    Blocking,   ///< the next compute task (resharding, statistics, halo)
    Background, ///< only the optimizer (gradient synchronisation with overlap on)
    Prefetch,   ///< the compute of the op it gathers parameters for (gathers_)
    WithNext,   ///< runs beside the next compute (a linear layer's GEMM); the compute after waits
    WithLast,   ///< runs beside the last compute (the GEMM that produces it); the next compute waits
};

/// Occurrences of `c` in one micro-batch (forward edges into a recomputed op run twice per
/// micro-batch: once in the forward, once in the backward's recomputation).
int perMicrobatch(const CollectiveCost& c, int m) { return std::max(1, c.count / m); }

/// A communication task on `stream`.
SimTask commOn(Stream stream) {
    SimTask t;
    t.stream = stream;
    t.event.stream = stream;
    t.event.collective = true;
    return t;
}

/// Builds the program task by task, tracking what the next compute task must wait for.
class ProgramBuilder {
public:
    ProgramBuilder(const CostModel& model, const Plan& plan, const SimOptions& options)
        : model_(model), g_(model.graph()), plan_(plan), options_(options), m_(model.settings().microbatches),
          costs_(g_.ops().size()), incoming_(g_.ops().size()), stepWaits_(g_.ops().size()),
          chains_(!options.timelines && !(options.overlap && model.settings().tpOverlap != TpOverlap::Off)),
          issued_(g_.ops().size()) {
        for (OpId o : g_.topoOrder())
            costs_[o.index()] = model.opCost(o, plan.ops[o.index()].strategy);
        for (const Edge& e : model.edges()) {
            const EdgeCost ec = model.edgeCost(e, plan.ops[e.from.index()].strategy, plan.ops[e.to.index()].strategy);
            auto& in = incoming_[e.to.index()];
            in.insert(in.end(), ec.collectives.begin(), ec.collectives.end());
        }
        for (OpId o : g_.topoOrder())
            classify(o);
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
        const std::size_t chunks = std::size_t(layout.chunks());
        std::vector<std::vector<OpId>> chunkOps(chunks), reversedOps(chunks);
        for (OpId o : g_.topoOrder())
            chunkOps[std::size_t(layout.chunkOf[o.index()])].push_back(o);
        for (std::size_t ch = 0; ch < chunks; ++ch)
            reversedOps[ch].assign(chunkOps[ch].rbegin(), chunkOps[ch].rend());
        for (auto& byChunk : transfersOf_)
            byChunk.assign(chunks, {});
        for (std::size_t i = 0; i < transfers_.size(); ++i) {
            const StageTransfer& t = transfers_[i];
            // Forward units receive what arrives in their chunk and send what leaves it; backward
            // units the gradients the other way, where the transfer has any.
            transfersOf_[kArriveForward][std::size_t(t.toChunk)].push_back(i);
            transfersOf_[kLeaveForward][std::size_t(t.fromChunk)].push_back(i);
            if (!t.backward.empty()) {
                transfersOf_[kArriveBackward][std::size_t(t.fromChunk)].push_back(i);
                transfersOf_[kLeaveBackward][std::size_t(t.toChunk)].push_back(i);
            }
        }
        for (int s = 0; s < layout.stages; ++s) {
            switchStage(s);
            for (const PipelineUnit& u : stageOrder(model_.settings(), layout.stages, s)) {
                receive(u);
                if (u.forward)
                    forwardPass(chunkOps[std::size_t(u.chunk)], u.microbatch);
                else
                    backwardPass(reversedOps[std::size_t(u.chunk)], u.microbatch);
                send(u);
            }
            finishStep();
        }
        for (const auto& [task, key] : waits_)
            program_.tasks[std::size_t(task)].deps.push_back(sends_.at(key));
        return std::move(program_);
    }

    /// The transfers (indices into transfers_) that arrive in (`arriving`) or leave (else) unit `u`'s
    /// chunk in its direction.
    const std::vector<std::size_t>& transfersOf(const PipelineUnit& u, bool arriving) const {
        const std::size_t list = arriving ? (u.forward ? kArriveForward : kArriveBackward)
                                          : (u.forward ? kLeaveForward : kLeaveBackward);
        return transfersOf_[list][std::size_t(u.chunk)];
    }

    /// Before unit `u`: a receive per arriving transfer, waiting for its send on the other stage and
    /// all-gathering what came in pieces; the unit's first compute waits for it.
    void receive(const PipelineUnit& u) {
        for (std::size_t i : transfersOf(u, true)) {
            const StageTransfer& t = transfers_[i];
            const auto& list = u.forward ? t.forward : t.backward;
            SimTask r = commOn(Stream::Pipeline);
            r.event.op = u.forward ? t.to : t.from;
            if (options_.timelines)
                r.event.name = g_.tensor(list.front().tensor).name + " received";
            r.event.phase = u.forward ? Phase::Forward : Phase::Backward;
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
        for (std::size_t i : transfersOf(u, false)) {
            const StageTransfer& t = transfers_[i];
            const CollectiveCost& c = (u.forward ? t.forward : t.backward).front();
            SimTask task = commTask(u.forward ? t.from : t.to, c, 1, u.microbatch);
            if (options_.timelines)
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
        bool stepGathersIssued = false;
    };

    /// Continues building stage `s`'s program (its own streams and waits).
    void switchStage(int s) {
        if (s == stage_)
            return;
        StageState& out = saved_[stage_];
        out = StageState{lastCompute_,         prevCompute_,         std::move(blocking_),
                         std::move(besideNext_), std::move(background_), std::move(bucket_),
                         bucketBytes_,          std::move(stepGathers_), stepGathersIssued_};
        StageState& in = saved_[s];
        lastCompute_ = in.lastCompute;
        prevCompute_ = in.prevCompute;
        blocking_ = std::move(in.blocking);
        besideNext_ = std::move(in.besideNext);
        background_ = std::move(in.background);
        bucket_ = std::move(in.bucket);
        bucketBytes_ = in.bucketBytes;
        stepGathers_ = std::move(in.stepGathers);
        stepGathersIssued_ = in.stepGathersIssued;
        stage_ = s;
    }

    /// Adds compute task `t` after what blocks it, or runs it as part of the last task (extendChain()).
    int addCompute(SimTask t) {
        t.stream = Stream::Compute;
        if (extendChain(t.deps, t.event.duration, t.allocate, t.release))
            return lastCompute_;
        t.deps.insert(t.deps.end(), blocking_.begin(), blocking_.end());
        blocking_.swap(besideNext_);
        besideNext_.clear();
        prevCompute_ = lastCompute_;
        lastCompute_ = push(std::move(t));
        return lastCompute_;
    }

    /// Compute of `duration` that waits for `waits`, saving `allocate` and freeing `release` bytes,
    /// runs as part of the last task (a compute chain, step_program.h) when chains are on, it waits
    /// for nothing (no `waits`, no blocking collective), the last task pushed is this stage's last
    /// compute (so nothing waits for that one yet), and the chain does not both save and free
    /// activations; true when it did (the forward and backward passes call it before building a task).
    bool extendChain(const std::vector<int>& waits, double duration, double allocate, double release) {
        if (!chains_ || !waits.empty() || !blocking_.empty() || lastCompute_ < 0 ||
            std::size_t(lastCompute_) + 1 != program_.tasks.size())
            return false;
        SimTask& last = program_.tasks.back();
        if ((last.allocate > 0 || allocate > 0) && (last.release > 0 || release > 0))
            return false;
        last.event.duration += duration;
        last.allocate += allocate;
        last.release += release;
        blocking_.swap(besideNext_);
        besideNext_.clear();
        return true;
    }

    int addComm(SimTask t, Wait wait) {
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
        if (options_.timelines)
            t.event.name = g_.op(o).name + suffix;
        t.event.phase = phase;
        t.event.duration = duration;
        t.event.microbatch = mb;
        return t;
    }

    SimTask commTask(OpId o, const CollectiveCost& c, int times, int mb) const {
        SimTask t = commOn(streamOf(c));
        t.event.op = o;
        if (options_.timelines)
            t.event.name = g_.op(o).name + " " + std::string(collectiveBadge(c.kind));
        t.event.phase = c.phase;
        t.event.kind = c.kind;
        t.event.axes = c.axes;
        t.event.bytes = c.bytes;
        t.event.microbatch = mb;
        t.parts.push_back(CommPart{c.kind, c.axes, c.bytes, times, c.bucket});
        return t;
    }

    /// Issues the collectives `list` of op `o`, each waited for as `wait`; appends their ids to `ids`
    /// when given.
    void issueAll(const std::vector<const CollectiveCost*>& list, OpId o, int mb, Wait wait, std::vector<int>* ids = nullptr) {
        for (const CollectiveCost* cc : list) {
            const int id = addComm(commTask(o, *cc, 1, mb), wait);
            if (ids)
                ids->push_back(id);
        }
    }

    /// How a resharding into `consumer` waits: with tensor-parallel overlap (CostModel::
    /// hidesTensorParallelComm, its hidden share set) beside the consumer's GEMM in the forward and
    /// beside the GEMM just run otherwise (the producer's forward, the consumer's backward).
    Wait reshardWait(const CollectiveCost& cc, OpId consumer, Phase phase) const {
        if (!options_.overlap || cc.hidden <= 0 ||
            (phase == Phase::Forward && model_.settings().tpOverlap != TpOverlap::Full))
            return Wait::Blocking;
        if (phase == Phase::Forward)
            return model_.hidesTensorParallelComm(consumer) ? Wait::WithNext : Wait::WithLast;
        // The gradient's resharding into a linear producer runs beside that producer's backward GEMM,
        // which the backward runs next (CostModel::producerEnd); others beside the GEMM just run.
        const OpId producer = g_.tensor(cc.tensor).producer;
        return model_.settings().tpOverlap == TpOverlap::Full && producer.valid() &&
                       model_.hidesTensorParallelComm(producer) && !model_.hidesTensorParallelComm(consumer)
                   ? Wait::WithNext
                   : Wait::WithLast;
    }

    /// Issues the reshardings `list` into `o`, each waited for as reshardWait() says.
    void issueIncoming(const std::vector<const CollectiveCost*>& list, OpId o, int mb, Phase phase) {
        for (const CollectiveCost* cc : list)
            addComm(commTask(o, *cc, 1, mb), reshardWait(*cc, o, phase));
    }

    /// Sorts op `o`'s collectives (and the reshardings into it) by when the passes issue them.
    void classify(OpId o) {
        Issued& l = issued_[o.index()];
        for (const CollectiveCost& cc : costs_[o.index()].collectives) {
            const bool gather = cc.purpose == CommPurpose::ParameterGather;
            if (gather && cc.phase == Phase::Forward) {
                l.forwardGathers.push_back(&cc);
                l.forwardGatherBytes += cc.bytes;
            } else if (gather && cc.phase == Phase::Backward) {
                l.backwardGathers.push_back(&cc);
                l.backwardGatherBytes += cc.bytes;
            } else if (gather && cc.phase == Phase::Step) {
                l.stepGathers.push_back(&cc);
            } else if (cc.phase == Phase::Forward) {
                (cc.purpose == CommPurpose::Statistics ? l.forwardStatistics : l.forwardBlocking).push_back(&cc);
            } else if (cc.phase == Phase::Backward) {
                (cc.purpose == CommPurpose::GradientSync ? l.backwardSync : l.backwardBlocking).push_back(&cc);
            }
        }
        for (const CollectiveCost& cc : incoming_[o.index()]) {
            if (cc.phase == Phase::Forward) {
                l.incomingForward.push_back(&cc);
                if (perMicrobatch(cc, m_) == 2)
                    l.incomingRecomputed.push_back(&cc);
            } else if (cc.phase == Phase::Backward) {
                l.incomingBackward.push_back(&cc);
            }
        }
    }

    /// Starts a pass over `pass`: which gathers of `phase` run ahead of the compute (none with
    /// overlap off: each blocks its op).
    void startPass(const std::vector<OpId>& pass, Phase phase) {
        if (gathers_.size() != g_.ops().size())
            gathers_.resize(g_.ops().size());
        for (OpId o : pass)
            gathers_[o.index()].clear();
        prefetch_.reset();
        passBytes_.resize(pass.size());
        passWorking_.resize(pass.size());
        for (std::size_t i = 0; i < pass.size(); ++i) {
            const Issued& l = issued_[pass[i].index()];
            passBytes_[i] = phase == Phase::Forward ? l.forwardGatherBytes : l.backwardGatherBytes;
            passWorking_[i] = costs_[pass[i].index()].transient - costs_[pass[i].index()].prefetchRoom;
        }
        prefetch_.emplace(passBytes_, passWorking_, options_.overlap ? program_.workspace[std::size_t(stage_)] : 0.0);
    }

    /// Before the compute of `pass[i]`: its own gathers unless issued ahead (the compute waits for
    /// them either way, takeGathers()), then the later ones the workspace holds.
    void issueGathers(const std::vector<OpId>& pass, std::size_t i, Phase phase, int mb) {
        const GatherPrefetch::Issue issue = prefetch_->at(i);
        auto gatherOf = [&](std::size_t at) {
            const OpId o = pass[at];
            const Issued& l = issued_[o.index()];
            issueAll(phase == Phase::Forward ? l.forwardGathers : l.backwardGathers, o, mb, Wait::Prefetch, &gathers_[o.index()]);
        };
        if (issue.own)
            gatherOf(i);
        for (std::size_t k = issue.first; k < issue.last; ++k)
            gatherOf(prefetch_->gathers()[k]);
    }

    /// The gather tasks the compute of `o` waits for (its own, issued ahead or just now).
    std::vector<int> takeGathers(OpId o) {
        std::vector<int> ids = std::move(gathers_[o.index()]);
        gathers_[o.index()].clear();
        return ids;
    }

    /// With overlap, at the start of the first micro-batch's forward through `pass`: ZeRO-1 and 2's
    /// parameter gathers after the last step's optimizer, in the order the forward uses them, each op
    /// waiting for its own (Megatron-Core's --overlap-param-gather).
    void issueStepGathers(const std::vector<OpId>& pass, int mb) {
        if (!options_.overlap || mb != 0)
            return;
        for (OpId o : pass)
            issueAll(issued_[o.index()].stepGathers, o, mb, Wait::Prefetch, &stepWaits_[o.index()]);
        stepGathersIssued_ = true;
    }

    void forwardPass(const std::vector<OpId>& pass, int mb) {
        startPass(pass, Phase::Forward);
        issueStepGathers(pass, mb);
        for (std::size_t i = 0; i < pass.size(); ++i) {
            const OpId o = pass[i];
            const OpCost& c = costs_[o.index()];
            const Issued& l = issued_[o.index()];
            issueGathers(pass, i, Phase::Forward, mb);
            std::vector<int> waits = takeGathers(o);
            waits.insert(waits.end(), stepWaits_[o.index()].begin(), stepWaits_[o.index()].end());
            stepWaits_[o.index()].clear();
            issueAll(l.forwardBlocking, o, mb, Wait::Blocking);
            issueIncoming(l.incomingForward, o, mb, Phase::Forward);
            // Pipelined, one block's recompute working set is held for the whole step instead.
            const double saved = c.memory.activations - (plan_.pipeline.active() ? c.activationWorkspace : 0.0);
            if (!extendChain(waits, c.forward / m_, saved, 0)) {
                SimTask fwd = computeTask(o, "", Phase::Forward, c.forward / m_, mb);
                fwd.allocate = saved;
                fwd.deps = std::move(waits);
                addCompute(std::move(fwd));
            }
            issueAll(l.forwardStatistics, o, mb, Wait::Blocking);
        }
    }

    void backwardPass(const std::vector<OpId>& pass, int mb) {
        startPass(pass, Phase::Backward);
        const bool last = mb + 1 == m_;
        const Wait sync = options_.overlap ? Wait::Background : Wait::Blocking;
        for (std::size_t i = 0; i < pass.size(); ++i) {
            const OpId o = pass[i];
            const OpCost& c = costs_[o.index()];
            const Issued& l = issued_[o.index()];
            issueGathers(pass, i, Phase::Backward, mb);
            std::vector<int> waits = takeGathers(o);
            if (c.recompute > 0) {
                issueIncoming(l.incomingRecomputed, o, mb, Phase::Forward);
                if (!extendChain(waits, c.recompute / m_, 0, 0)) {
                    SimTask re = computeTask(o, " (recompute)", Phase::Backward, c.recompute / m_, mb);
                    re.deps = std::move(waits);
                    addCompute(std::move(re));
                }
                waits.clear();
            }
            const double freed = c.memory.activations - (plan_.pipeline.active() ? c.activationWorkspace : 0.0);
            if (!extendChain(waits, c.backward / m_, 0, freed)) {
                SimTask bwd = computeTask(o, " (backward)", Phase::Backward, c.backward / m_, mb);
                bwd.release = freed;
                bwd.deps = std::move(waits);
                addCompute(std::move(bwd));
            }
            issueAll(l.backwardBlocking, o, mb, Wait::Blocking);
            issueAll(l.backwardSync, o, mb, sync);
            issueIncoming(l.incomingBackward, o, mb, Phase::Backward);
            if (last) {
                // The last micro-batch's gradients are ready: with overlap, a bucket is reduced as soon
                // as it fills, on the reduce stream, and a chunk's last bucket after its backward (each
                // pipeline chunk in Megatron-LM has its own buckets); without, every bucket after the
                // backward (finishStep(), as Megatron-LM's finalize_model_grads).
                collectStepCollectives(o);
                if (options_.overlap && (bucketBytes_ >= model_.settings().bucketBytes || i + 1 == pass.size()))
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
        SimTask t = commOn(Stream::Reduce);
        t.event.name = "gradient bucket";
        t.event.phase = Phase::Step;
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

    /// The optimizer after every gradient is synchronised, then (overlap off) ZeRO 1 and 2's parameter
    /// gathers; with overlap they ran during the first forward (issueStepGathers()).
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
        if (!stepGathersIssued_)
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
    std::vector<double> passBytes_, passWorking_; ///< per position of the pass being built: gathers, working sets
    std::optional<GatherPrefetch> prefetch_;  ///< the gathers of the pass being built (reads the two above)
    std::vector<std::vector<int>> gathers_;   ///< per op: the gather tasks its compute in this pass waits for
    std::vector<std::vector<int>> stepWaits_; ///< per op: ZeRO-1/2 gathers its first forward waits for
    std::vector<CollectiveCost> bucket_;
    double bucketBytes_ = 0;
    std::vector<std::pair<OpId, CollectiveCost>> stepGathers_;
    bool stepGathersIssued_ = false;          ///< this stage's ran during its first forward
    /// Compute chains run as one task: without timelines, and where no communication runs beside
    /// the compute before the last (Wait::WithLast, tensor-parallel overlap only).
    const bool chains_;
    /// Per op, its collectives and the reshardings into it by when the passes issue them (classify()).
    struct Issued {
        std::vector<const CollectiveCost*> forwardBlocking, forwardStatistics, backwardBlocking, backwardSync;
        std::vector<const CollectiveCost*> forwardGathers, backwardGathers, stepGathers;
        std::vector<const CollectiveCost*> incomingForward, incomingBackward, incomingRecomputed;
        double forwardGatherBytes = 0, backwardGatherBytes = 0;
    };
    std::vector<Issued> issued_;
    /// Pipelined: per kind (kArriveForward ..) and chunk, the transfers a unit of it receives or sends.
    std::array<std::vector<std::vector<std::size_t>>, 4> transfersOf_;
    static constexpr std::size_t kArriveForward = 0, kArriveBackward = 1, kLeaveForward = 2, kLeaveBackward = 3;
};

} // namespace

StepProgram buildStepProgram(const CostModel& model, const Plan& plan, const SimOptions& options) {
    return ProgramBuilder(model, plan, options).build();
}

} // namespace shardscope

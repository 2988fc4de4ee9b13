#include "engine/sim/simulator.h"

#include <algorithm>
#include <map>

namespace shardscope {

namespace {

/// One task of the device program, in issue order.
struct Task {
    Stream stream = Stream::Compute;
    bool blocking = true;          ///< the compute stream waits for it (false: gradient buckets)
    bool waitsForBuckets = false;  ///< the optimizer waits for every bucket
    SimEvent event;
    double allocate = 0;           ///< activation bytes saved when the task ends
    double release = 0;            ///< activation bytes freed when the task ends
};

Task computeTask(const Graph& g, OpId o, const char* suffix, Phase phase, double duration, int mb) {
    Task t;
    t.event.stream = Stream::Compute;
    t.event.op = o;
    t.event.name = g.op(o).name + suffix;
    t.event.phase = phase;
    t.event.duration = duration;
    t.event.microbatch = mb;
    return t;
}

Task commTask(const Graph& g, OpId o, const CollectiveCost& c, int mb) {
    Task t;
    t.stream = Stream::Comm;
    t.event.stream = Stream::Comm;
    t.event.op = o;
    t.event.name = g.op(o).name + " " + std::string(collectiveBadge(c.kind));
    t.event.phase = c.phase;
    t.event.collective = true;
    t.event.kind = c.kind;
    t.event.axes = c.axes;
    t.event.bytes = c.bytes;
    t.event.duration = c.time;
    t.event.microbatch = mb;
    return t;
}

/// Occurrences of `c` in one micro-batch's pass of `phase` (forward edges run twice with recompute:
/// once in the forward, once in the backward's recomputation).
int perMicrobatch(const CollectiveCost& c, int m) { return std::max(1, c.count / m); }

} // namespace

std::shared_ptr<const SimResult> simulate(const CostModel& model, const Plan& plan, const SimOptions& options) {
    const Graph& g = model.graph();
    const int m = model.settings().microbatches;
    std::vector<OpCost> costs(g.ops().size());
    for (OpId o : g.topoOrder())
        costs[o.index()] = model.opCost(o, plan.strategies[o.index()]);
    std::vector<std::vector<CollectiveCost>> incoming(g.ops().size());
    for (const Edge& e : model.edges()) {
        const EdgeCost ec = model.edgeCost(e, plan.strategies[e.from.index()], plan.strategies[e.to.index()]);
        auto& in = incoming[e.to.index()];
        in.insert(in.end(), ec.collectives.begin(), ec.collectives.end());
    }
    double baseline = 0, workspace = 0;
    for (const OpCost& c : costs) {
        baseline += c.memory.parameters + c.memory.gradients + c.memory.optimizer;
        workspace = std::max(workspace, c.transient);
    }

    // The program: forward and backward per micro-batch, then gradient synchronisation, optimizer,
    // and the parameter all-gathers of ZeRO 1 and 2.
    std::vector<Task> tasks;
    std::vector<CollectiveCost> stepSync, stepGather;
    std::vector<OpId> stepGatherOp;
    const auto& order = g.topoOrder();
    // Issues the collectives of `list` (of op `o`, micro-batch `mb`) that `keep` selects.
    auto issue = [&](const std::vector<CollectiveCost>& list, OpId o, int mb, auto keep) {
        for (const CollectiveCost& cc : list)
            if (keep(cc))
                tasks.push_back(commTask(g, o, cc, mb));
    };
    for (int mb = 0; mb < m; ++mb) {
        for (OpId o : order) {
            const OpCost& c = costs[o.index()];
            issue(c.collectives, o, mb, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Forward && cc.purpose != CommPurpose::Statistics;
            });
            issue(incoming[o.index()], o, mb, [](const CollectiveCost& cc) { return cc.phase == Phase::Forward; });
            Task fwd = computeTask(g, o, "", Phase::Forward, c.forward / m, mb);
            fwd.allocate = c.memory.activations;
            tasks.push_back(fwd);
            issue(c.collectives, o, mb, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Forward && cc.purpose == CommPurpose::Statistics;
            });
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const OpId o = *it;
            const OpCost& c = costs[o.index()];
            if (c.recompute > 0) {
                tasks.push_back(computeTask(g, o, " (recompute)", Phase::Backward, c.recompute / m, mb));
                issue(incoming[o.index()], o, mb, [m](const CollectiveCost& cc) {
                    return cc.phase == Phase::Forward && perMicrobatch(cc, m) == 2;
                });
            }
            issue(c.collectives, o, mb, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Backward && cc.purpose == CommPurpose::ParameterGather;
            });
            Task bwd = computeTask(g, o, " (backward)", Phase::Backward, c.backward / m, mb);
            bwd.release = c.memory.activations;
            tasks.push_back(bwd);
            issue(c.collectives, o, mb, [](const CollectiveCost& cc) {
                return cc.phase == Phase::Backward && cc.purpose != CommPurpose::ParameterGather;
            });
            issue(incoming[o.index()], o, mb, [](const CollectiveCost& cc) { return cc.phase == Phase::Backward; });
            if (mb + 1 < m)
                continue;
            // Gradient synchronisation is ready once the op's last backward is done: bucket it.
            for (const CollectiveCost& cc : c.collectives)
                if (cc.phase == Phase::Step) {
                    if (cc.purpose == CommPurpose::GradientSync) {
                        stepSync.push_back(cc);
                    } else {
                        stepGather.push_back(cc);
                        stepGatherOp.push_back(o);
                    }
                }
            double bucketBytes = 0;
            for (std::size_t i = 0; i < stepSync.size(); ++i)
                bucketBytes += stepSync[i].bytes;
            if (!stepSync.empty() && (bucketBytes >= options.bucketBytes || std::next(it) == order.rend())) {
                Task bucket;
                bucket.stream = Stream::Comm;
                bucket.blocking = !options.overlap;
                bucket.event.stream = Stream::Comm;
                bucket.event.name = "gradient bucket";
                bucket.event.phase = Phase::Step;
                bucket.event.collective = true;
                bucket.event.kind = stepSync.front().kind;
                for (const CollectiveCost& cc : stepSync) {
                    bucket.event.axes |= cc.axes;
                    bucket.event.bytes += cc.bytes;
                    bucket.event.duration += cc.time * cc.count;
                }
                bucket.event.microbatch = mb;
                tasks.push_back(bucket);
                stepSync.clear();
            }
        }
    }
    Task optimizer;
    optimizer.event.name = "optimizer";
    optimizer.event.phase = Phase::Step;
    optimizer.waitsForBuckets = true;
    for (const OpCost& c : costs)
        optimizer.event.duration += c.optimizer;
    tasks.push_back(optimizer);
    for (std::size_t i = 0; i < stepGather.size(); ++i) {
        Task t = commTask(g, stepGatherOp[i], stepGather[i], m - 1);
        t.event.duration = stepGather[i].time * stepGather[i].count;
        tasks.push_back(t);
    }

    // Run: each stream in issue order; with overlap off every task also waits for the one before it.
    auto result = std::make_shared<SimResult>();
    result->devices = model.mesh().deviceCount();
    double computeFree = 0, commFree = 0, last = 0, bucketsDone = 0, live = 0;
    result->memory.push_back({0, baseline + workspace});
    result->peakMemory = baseline + workspace;
    const CommModel& comm = model.comm();
    std::map<AxisSet, std::vector<double>> levelBytes; // per device, by the axes a collective runs on
    auto addTraffic = [&](CollectiveKind kind, AxisSet axes, double bytes, int times) {
        const auto perLevel = comm.bytesPerLevel(kind, axes, bytes);
        auto& sum = levelBytes[axes];
        sum.resize(perLevel.size(), 0.0);
        for (std::size_t l = 0; l < perLevel.size(); ++l)
            sum[l] += perLevel[l] * times;
    };
    for (Task& t : tasks) {
        double start = t.stream == Stream::Compute ? computeFree : std::max(commFree, computeFree);
        if (t.waitsForBuckets)
            start = std::max(start, bucketsDone);
        if (!options.overlap)
            start = std::max(start, last);
        t.event.start = start;
        const double end = start + t.event.duration;
        last = std::max(last, end);
        if (t.stream == Stream::Compute) {
            computeFree = end;
            result->computeBusy += t.event.duration;
        } else {
            commFree = end;
            result->commBusy += t.event.duration;
            if (t.blocking)
                computeFree = std::max(computeFree, end);
            else
                bucketsDone = std::max(bucketsDone, end);
        }
        if (t.event.collective && t.event.op.valid())
            addTraffic(t.event.kind, t.event.axes, t.event.bytes, 1);
        if (t.allocate > 0 || t.release > 0) {
            live += t.allocate - t.release;
            const double now = baseline + workspace + live;
            result->memory.push_back({end, now});
            if (now > result->peakMemory) {
                result->peakMemory = now;
                result->peakMemoryTime = end;
            }
        }
        if (t.event.duration > 0)
            result->events.push_back(t.event);
    }
    // Buckets merge several tensors' collectives; their traffic is the sum of the parts.
    for (const OpCost& c : costs)
        for (const CollectiveCost& cc : c.collectives)
            if (cc.phase == Phase::Step && cc.purpose == CommPurpose::GradientSync)
                addTraffic(cc.kind, cc.axes, cc.bytes, cc.count);
    result->stepTime = last;
    result->exposedComm = result->stepTime - result->computeBusy;
    result->traffic = linkTraffic(model.cluster(), model.mesh(), levelBytes);
    std::sort(result->events.begin(), result->events.end(),
              [](const SimEvent& a, const SimEvent& b) { return a.start < b.start; });
    return result;
}

} // namespace shardscope

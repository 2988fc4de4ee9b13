#include "engine/evaluation/stream_composition.h"

#include "engine/cost/gather_prefetch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>

namespace shardscope {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

/// One link level's background collectives in flight: the gather and the reduce stream each serve
/// their queue in order and share the level's bandwidth equally while both have work (the
/// simulator's fluid model, event_engine.h).
class Link {
public:
    enum Stream { Gather = 0, Reduce = 1 };

    /// Queues `seconds` of work on `stream` at `at` (never before an earlier arrival); returns its ticket.
    std::size_t enqueue(Stream stream, double seconds, double at) {
        advance(at);
        const std::size_t id = done_.size();
        done_.push_back(-1);
        queue_[stream].push_back({id, seconds});
        left_[stream] += seconds;
        return id;
    }
    /// When the work of ticket `id` is done, with no arrivals before then.
    double completion(std::size_t id) {
        while (done_[id] < 0)
            step(kNever);
        return done_[id];
    }
    /// When everything queued is done, with no more arrivals (the level is never idle meanwhile).
    double drained() const { return clock_ + left_[0] + left_[1]; }
    /// Moves the state to `t` (at least).
    void advance(double t) {
        while (clock_ < t && !(queue_[0].empty() && queue_[1].empty()))
            step(t);
        clock_ = std::max(clock_, t);
    }
    /// Work left per stream.
    std::array<double, 2> left() const { return {std::max(0.0, left_[0]), std::max(0.0, left_[1])}; }
    /// Shifts the clock by `dt` (cycles skipped because they repeat).
    void shift(double dt) { clock_ += dt; }

private:
    /// Serves the heads until one finishes or `until` comes.
    void step(double until) {
        const int busy = (queue_[0].empty() ? 0 : 1) + (queue_[1].empty() ? 0 : 1);
        const double rate = 1.0 / busy;
        std::array<double, 2> finish{kNever, kNever};
        for (int s = 0; s < 2; ++s)
            if (!queue_[s].empty())
                finish[std::size_t(s)] = queue_[s].front().second / rate;
        const double next = std::min(finish[0], finish[1]);
        if (until - clock_ < next) {
            for (int s = 0; s < 2; ++s)
                if (!queue_[s].empty()) {
                    queue_[s].front().second -= (until - clock_) * rate;
                    left_[s] -= (until - clock_) * rate;
                }
            clock_ = until;
            return;
        }
        clock_ += next;
        for (int s = 0; s < 2; ++s) {
            auto& q = queue_[s];
            if (q.empty())
                continue;
            if (finish[std::size_t(s)] <= next * (1 + 1e-12)) {
                left_[s] -= q.front().second;
                done_[q.front().first] = clock_;
                q.pop_front();
                if (q.empty())
                    left_[s] = 0; // no rounding left behind
            } else {
                q.front().second -= next * rate;
                left_[s] -= next * rate;
            }
        }
    }

    double clock_ = 0;
    std::deque<std::pair<std::size_t, double>> queue_[2]; ///< per stream: (ticket, seconds left)
    double left_[2] = {0, 0};                            ///< per stream: seconds left in all
    std::vector<double> done_;                           ///< per ticket: when done, or -1
};

/// The clocks of one timeline while passes are composed: the compute stream and the links.
struct Clocks {
    double t = 0;
    std::vector<Link> links;
    double compute = 0, blocking = 0;

    /// When every link has drained.
    double drained() const {
        double most = 0;
        for (const Link& l : links)
            most = std::max(most, l.drained());
        return most;
    }
};

/// The once-per-step collectives a pass adds: gathers per op, and reductions per op with their bytes,
/// issued in buckets.
struct PassExtras {
    const std::vector<double>* gather = nullptr;
    const std::vector<double>* reduce = nullptr;
    const std::vector<double>* reduceBytes = nullptr;
    double bucket = 0;
};

/// One pass's ops with what its prefetch reads, made once and run once per micro-batch.
class Pass {
public:
    Pass(const std::vector<PassOp>& ops, double workspace)
        : ops_(ops), workspace_(workspace), bytes_(ops.size()), working_(ops.size()), ticket_(ops.size()),
          firstTicket_(ops.size()) {
        for (std::size_t k = 0; k < ops.size(); ++k) {
            bytes_[k] = ops[k].gather > 0 ? std::max(ops[k].gatherBytes, 1.0) : 0.0;
            working_[k] = ops[k].working;
        }
    }

    /// Runs the pass from `c` with `extras`.
    void run(const PassExtras& extras, double slowdown, Clocks& c) {
        constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
        const std::vector<PassOp>& ops = ops_;
        std::fill(ticket_.begin(), ticket_.end(), kNone);
        std::fill(firstTicket_.begin(), firstTicket_.end(), kNone);
        // The once-per-step gathers are all queued at the start, in the order the pass uses them.
        if (extras.gather)
            for (std::size_t k = 0; k < ops.size(); ++k)
                if ((*extras.gather)[k] > 0)
                    firstTicket_[k] = c.links[ops[k].level].enqueue(Link::Gather, (*extras.gather)[k], c.t);
        GatherPrefetch prefetch(bytes_, working_, workspace_);
        const double stretch = 1 + slowdown;
        double bucketSeconds = 0, bucketBytes = 0, computeEnd = c.t;
        std::size_t bucketLevel = 0;
        for (std::size_t k = 0; k < ops.size(); ++k) {
            const PassOp& op = ops[k];
            // Before this compute: its own gather unless it went ahead, then those the workspace
            // holds; each is issued when the compute before it has ended.
            const GatherPrefetch::Issue issue = prefetch.at(k);
            if (issue.own)
                ticket_[k] = c.links[op.level].enqueue(Link::Gather, op.gather, computeEnd);
            for (std::size_t i = issue.first; i < issue.last; ++i) {
                const std::size_t j = prefetch.gathers()[i];
                ticket_[j] = c.links[ops[j].level].enqueue(Link::Gather, ops[j].gather, computeEnd);
            }
            double start = c.t + op.before;
            if (firstTicket_[k] != kNone)
                start = std::max(start, c.links[op.level].completion(firstTicket_[k]));
            if (ticket_[k] != kNone)
                start = std::max(start, c.links[op.level].completion(ticket_[k]));
            // Compute runs slower while a link still has work queued.
            const double busy = c.drained();
            double duration = op.work;
            if (slowdown > 0 && busy > start)
                duration += std::min(busy - start, op.work * stretch) * slowdown / stretch;
            c.compute += duration;
            c.blocking += op.before + op.after;
            computeEnd = start + duration;
            c.t = computeEnd + op.after;
            if (op.reduce > 0)
                c.links[op.level].enqueue(Link::Reduce, op.reduce, computeEnd);
            if (extras.reduce && (*extras.reduce)[k] > 0) {
                bucketSeconds += (*extras.reduce)[k];
                bucketBytes += (*extras.reduceBytes)[k];
                bucketLevel = op.level;
            }
            if (bucketSeconds > 0 && (bucketBytes >= extras.bucket || k + 1 == ops.size())) {
                c.links[bucketLevel].enqueue(Link::Reduce, bucketSeconds, computeEnd);
                bucketSeconds = bucketBytes = 0;
            }
        }
    }

private:
    const std::vector<PassOp>& ops_;
    double workspace_;
    std::vector<double> bytes_, working_;
    std::vector<std::size_t> ticket_, firstTicket_;
};

/// The links' work left per stream once they have caught up with the compute clock.
std::vector<double> backlog(Clocks& c) {
    std::vector<double> out;
    for (Link& l : c.links) {
        l.advance(c.t);
        const auto left = l.left();
        out.insert(out.end(), left.begin(), left.end());
    }
    return out;
}

bool same(const std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - b[i]) > 1e-12 * std::max(1.0, std::abs(b[i])))
            return false;
    return true;
}

ComposedStep serial(const StepPasses& p, int m) {
    ComposedStep out;
    auto sum = [&](const std::vector<PassOp>& ops) {
        for (const PassOp& op : ops) {
            out.computeTime += m * op.work;
            out.blockingTime += m * (op.before + op.after + op.gather + op.reduce);
        }
    };
    sum(p.forward);
    sum(p.backward);
    for (double g : p.firstGather)
        out.blockingTime += g;
    for (double r : p.lastReduce)
        out.blockingTime += r;
    out.stepTime = out.computeTime + out.blockingTime + p.optimizer;
    return out;
}

} // namespace

namespace {

/// A micro-batch's two passes, ready to run.
struct Cycle {
    Pass forward, backward;
    explicit Cycle(const StepPasses& p) : forward(p.forward, p.workspace), backward(p.backward, p.workspace) {}
    /// Runs one micro-batch; returns its figures.
    ComposedCycle run(const PassExtras& first, const PassExtras& last, double slowdown, Clocks& c) {
        const double start = c.t, compute = c.compute;
        forward.run(first, slowdown, c);
        const double middle = c.t, forwardCompute = c.compute;
        backward.run(last, slowdown, c);
        return ComposedCycle{middle - start, c.t - middle, forwardCompute - compute, c.compute - forwardCompute};
    }
};

} // namespace

ComposedCycle composeCycle(const StepPasses& p, std::size_t levels, double slowdown) {
    Clocks c;
    c.links.resize(std::max<std::size_t>(levels, 1));
    Cycle passes(p);
    const PassExtras none;
    ComposedCycle cycle;
    std::vector<double> before = backlog(c);
    for (int i = 0; i < 16; ++i) {
        cycle = passes.run(none, none, slowdown, c);
        std::vector<double> after = backlog(c);
        if (same(after, before))
            break;
        before = std::move(after);
    }
    return cycle;
}

ComposedStep composeStep(const StepPasses& p, int m, std::size_t levels, bool overlap, double slowdown) {
    if (!overlap)
        return serial(p, m);
    Clocks c;
    c.links.resize(std::max<std::size_t>(levels, 1));
    Cycle passes(p);
    const PassExtras none;
    const PassExtras firstForward{&p.firstGather, nullptr, nullptr, 0};
    const PassExtras lastBackward{nullptr, &p.lastReduce, &p.lastReduceBytes, p.bucketBytes};
    ComposedStep out;
    for (int mb = 0; mb < m; ++mb) {
        const bool first = mb == 0, last = mb + 1 == m;
        if (!first && !last) {
            // Cycles between the first and the last are identical: once one ends in the state it
            // started from, every later one repeats it.
            const std::vector<double> before = backlog(c);
            const double compute = c.compute, blocking = c.blocking;
            const ComposedCycle cycle = passes.run(none, none, slowdown, c);
            if (same(backlog(c), before)) {
                out.steady = cycle;
                const int repeats = m - 2 - mb;
                const double length = cycle.forward + cycle.backward;
                c.compute += repeats * (c.compute - compute);
                c.blocking += repeats * (c.blocking - blocking);
                c.t += repeats * length;
                for (Link& l : c.links)
                    l.shift(repeats * length);
                mb += repeats;
            }
            continue;
        }
        passes.run(first ? firstForward : none, last ? lastBackward : none, slowdown, c);
    }
    out.computeTime = c.compute;
    out.blockingTime = c.blocking;
    // The optimizer waits for every reduction.
    out.stepTime = std::max(c.t, c.drained()) + p.optimizer;
    return out;
}

} // namespace shardscope

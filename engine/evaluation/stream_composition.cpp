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

} // namespace

/// One link level's background collectives in flight: the gather and the reduce stream each serve
/// their queue in order; a collective first waits out its latency, which no other transfer slows,
/// then moves its bytes, sharing the level's bandwidth equally with the other stream's collective
/// while both move bytes (the simulator's fluid model, event_engine.h).
class StreamLink {
public:
    enum Stream { Gather = 0, Reduce = 1 };

    /// Queues `work` on `stream` at `at` (never before an earlier arrival); returns its ticket.
    std::size_t enqueue(Stream stream, LinkWork work, double at) {
        advance(at);
        const std::size_t id = done_.size();
        done_.push_back(-1);
        const double latency = std::min(work.latency, work.seconds);
        queue_[stream].push_back(Job{id, latency, work.seconds - latency});
        latency_[stream] += latency;
        bytes_[stream] += work.seconds - latency;
        return id;
    }
    /// When the work of ticket `id` is done, with no arrivals before then.
    double completion(std::size_t id) {
        while (done_[id] < 0)
            step(kNever);
        return done_[id];
    }
    /// When everything queued will be done, with no more arrivals, at the least (exact when one
    /// stream has work): what compute beside it is slowed for.
    double drained() const {
        return clock_ + std::max({latency_[0] + bytes_[0], latency_[1] + bytes_[1], bytes_[0] + bytes_[1]});
    }
    /// When everything queued will be done, with no more arrivals.
    double finished() const {
        StreamLink rest = *this;
        while (!(rest.queue_[0].empty() && rest.queue_[1].empty()))
            rest.step(kNever);
        return std::max(rest.clock_, clock_);
    }
    /// Moves the state to `t` (at least).
    void advance(double t) {
        while (clock_ < t && !(queue_[0].empty() && queue_[1].empty()))
            step(t);
        clock_ = std::max(clock_, t);
    }
    /// Work left per stream.
    std::array<double, 2> left() const {
        return {std::max(0.0, latency_[0] + bytes_[0]), std::max(0.0, latency_[1] + bytes_[1])};
    }
    /// Shifts the clock by `dt` (cycles skipped because they repeat).
    void shift(double dt) { clock_ += dt; }
    /// What is queued, per stream as one collective of its latency and bytes left, and the clock.
    struct Backlog {
        double clock = 0;
        std::array<double, 2> latency{0, 0}, bytes{0, 0};
        std::array<bool, 2> queued{false, false};
    };
    /// The link's backlog now.
    Backlog backlog() const {
        return Backlog{clock_, {latency_[0], latency_[1]}, {bytes_[0], bytes_[1]}, {!queue_[0].empty(), !queue_[1].empty()}};
    }
    /// Takes `b` as its queued work (the middle of a long schedule, where only how much is left
    /// matters), its clock shifted by `dt`; nothing waits on it.
    void adopt(const Backlog& b, double dt) {
        for (int s = 0; s < 2; ++s) {
            queue_[s].clear();
            latency_[s] = b.latency[std::size_t(s)];
            bytes_[s] = b.bytes[std::size_t(s)];
            if (b.queued[std::size_t(s)])
                queue_[s].push_back(Job{kUntracked, latency_[s], bytes_[s]});
        }
        clock_ = b.clock + dt;
    }

private:
    static constexpr std::size_t kUntracked = std::numeric_limits<std::size_t>::max();

    struct Job {
        std::size_t id; ///< its ticket, or kUntracked
        double latency; ///< seconds of latency left
        double bytes;   ///< seconds of bytes left, alone on the level
    };

    /// Serves the heads until one changes phase or `until` comes.
    void step(double until) {
        int moving = 0; // heads moving bytes
        for (const auto& q : queue_)
            moving += !q.empty() && q.front().latency <= 0 ? 1 : 0;
        std::array<double, 2> change{kNever, kNever};
        for (int s = 0; s < 2; ++s)
            if (!queue_[s].empty()) {
                const Job& j = queue_[s].front();
                change[std::size_t(s)] = j.latency > 0 ? j.latency : j.bytes * moving;
            }
        const double next = std::min(change[0], change[1]);
        const double dt = std::min(next, until - clock_);
        clock_ += dt;
        for (int s = 0; s < 2; ++s) {
            auto& q = queue_[s];
            if (q.empty())
                continue;
            Job& j = q.front();
            const bool due = dt >= next && change[std::size_t(s)] <= next * (1 + 1e-12);
            if (j.latency > 0) {
                const double spent = due ? j.latency : dt;
                j.latency -= spent;
                latency_[s] -= spent;
                if (due)
                    j.latency = 0;
            } else {
                const double moved = due ? j.bytes : dt / moving;
                j.bytes -= moved;
                bytes_[s] -= moved;
                if (due)
                    j.bytes = 0;
            }
            if (j.latency <= 0 && j.bytes <= 0) {
                if (j.id != kUntracked)
                    done_[j.id] = clock_;
                q.pop_front();
                if (q.empty())
                    latency_[s] = bytes_[s] = 0; // no rounding left behind
            }
        }
    }

    double clock_ = 0;
    std::deque<Job> queue_[2];      ///< per stream, in order
    double latency_[2] = {0, 0};    ///< per stream: seconds of latency left in all
    double bytes_[2] = {0, 0};      ///< per stream: seconds of bytes left in all
    std::vector<double> done_;      ///< per ticket: when done, or -1
};

/// The clocks of one timeline while passes are composed: the compute stream and the links.
struct StageClocks {
    double t = 0;
    std::vector<StreamLink> links;
    double compute = 0, blocking = 0;
    double lead = 0;    ///< of the last pass run, from its start to its first compute (waiting for gathers)
    double plain = 0;   ///< of the last pass run, the compute seconds at full rate
    double sending = 0; ///< when the pipeline stream's sends are done (StageComposer::send())

    /// When every link has drained and the sends are done, at the least (StreamLink::drained()).
    double drained() const {
        double most = sending;
        for (const StreamLink& l : links)
            most = std::max(most, l.drained());
        return most;
    }
    /// When every link has drained and the sends are done.
    double finished() const {
        double most = sending;
        for (const StreamLink& l : links)
            most = std::max(most, l.finished());
        return most;
    }
};

/// The links' backlogs when a pass ended, and when it ended.
struct SteadyLinks {
    std::vector<StreamLink::Backlog> links;
    double t = 0;
};

/// The once-per-step collectives a pass adds: gathers per op, and reductions per op with their bytes,
/// issued in buckets.
struct PassExtras {
    const std::vector<LinkWork>* gather = nullptr;
    const std::vector<LinkWork>* reduce = nullptr;
    const std::vector<double>* reduceBytes = nullptr;
    double bucket = 0;
};

/// One pass's ops with what its prefetch reads, made once and run once per micro-batch.
class PassRunner {
public:
    PassRunner(const std::vector<PassOp>& ops, double workspace)
        : ops_(ops), workspace_(workspace), bytes_(ops.size()), working_(ops.size()), ticket_(ops.size()),
          firstTicket_(ops.size()) {
        for (std::size_t k = 0; k < ops.size(); ++k) {
            bytes_[k] = ops[k].gather.seconds > 0 ? std::max(ops[k].gatherBytes, 1.0) : 0.0;
            working_[k] = ops[k].working;
        }
    }

    /// Runs the pass from `c` with `extras`, no compute before `notBefore`.
    void run(const PassExtras& extras, double slowdown, StageClocks& c, double notBefore = -kNever) {
        constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
        const std::vector<PassOp>& ops = ops_;
        std::fill(ticket_.begin(), ticket_.end(), kNone);
        std::fill(firstTicket_.begin(), firstTicket_.end(), kNone);
        // The once-per-step gathers are all queued at the start, in the order the pass uses them.
        if (extras.gather)
            for (std::size_t k = 0; k < ops.size(); ++k)
                if ((*extras.gather)[k].seconds > 0)
                    firstTicket_[k] = c.links[ops[k].level].enqueue(StreamLink::Gather, (*extras.gather)[k], c.t);
        GatherPrefetch prefetch(bytes_, working_, workspace_);
        const double stretch = 1 + slowdown;
        const double passStart = c.t;
        c.lead = -1;
        c.plain = 0;
        LinkWork bucket;
        double bucketBytes = 0, computeEnd = c.t;
        std::size_t bucketLevel = 0;
        for (std::size_t k = 0; k < ops.size(); ++k) {
            const PassOp& op = ops[k];
            // Before this compute: its own gather unless it went ahead, then those the workspace
            // holds; each is issued when the compute before it has ended.
            const GatherPrefetch::Issue issue = prefetch.at(k);
            if (issue.own)
                ticket_[k] = c.links[op.level].enqueue(StreamLink::Gather, op.gather, computeEnd);
            for (std::size_t i = issue.first; i < issue.last; ++i) {
                const std::size_t j = prefetch.gathers()[i];
                ticket_[j] = c.links[ops[j].level].enqueue(StreamLink::Gather, ops[j].gather, computeEnd);
            }
            double start = std::max(c.t + op.before, notBefore);
            if (firstTicket_[k] != kNone)
                start = std::max(start, c.links[op.level].completion(firstTicket_[k]));
            if (ticket_[k] != kNone)
                start = std::max(start, c.links[op.level].completion(ticket_[k]));
            if (c.lead < 0 && op.work > 0)
                c.lead = std::max(0.0, start - op.before - passStart);
            // Compute runs slower while a link still has work queued.
            const double busy = c.drained();
            const double slowed = busy > start ? std::min(busy - start, op.work * stretch) / stretch : 0.0;
            const double duration = op.work + slowed * slowdown;
            c.plain += op.work - slowed;
            c.compute += duration;
            c.blocking += op.before + op.after;
            computeEnd = start + duration;
            c.t = computeEnd + op.after;
            if (op.reduce.seconds > 0)
                c.links[op.level].enqueue(StreamLink::Reduce, op.reduce, computeEnd);
            if (extras.reduce && (*extras.reduce)[k].seconds > 0) {
                bucket += (*extras.reduce)[k];
                bucketBytes += (*extras.reduceBytes)[k];
                bucketLevel = op.level;
            }
            if (bucket.seconds > 0 && (bucketBytes >= extras.bucket || k + 1 == ops.size())) {
                c.links[bucketLevel].enqueue(StreamLink::Reduce, bucket, computeEnd);
                bucket = LinkWork{};
                bucketBytes = 0;
            }
        }
        c.lead = std::max(0.0, c.lead);
    }

private:
    const std::vector<PassOp>& ops_;
    double workspace_;
    std::vector<double> bytes_, working_;
    std::vector<std::size_t> ticket_, firstTicket_;
};

namespace {

/// The links' work left per stream once they have caught up with the compute clock.
std::vector<double> backlog(StageClocks& c) {
    std::vector<double> out;
    for (StreamLink& l : c.links) {
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
            out.blockingTime += m * (op.before + op.after + op.gather.seconds + op.reduce.seconds);
        }
    };
    sum(p.forward);
    sum(p.backward);
    for (const LinkWork& g : p.firstGather)
        out.blockingTime += g.seconds;
    for (const LinkWork& r : p.lastReduce)
        out.blockingTime += r.seconds;
    out.stepTime = out.computeTime + out.blockingTime + p.optimizer;
    return out;
}

} // namespace

/// A micro-batch's two passes, ready to run.
struct PassPair {
    PassRunner forward, backward;
    explicit PassPair(const StepPasses& p) : forward(p.forward, p.workspace), backward(p.backward, p.workspace) {}
    /// Runs one micro-batch; returns its figures.
    ComposedCycle run(const PassExtras& first, const PassExtras& last, double slowdown, StageClocks& c) {
        const double start = c.t, compute = c.compute;
        forward.run(first, slowdown, c);
        const double middle = c.t, forwardCompute = c.compute;
        backward.run(last, slowdown, c);
        return ComposedCycle{middle - start, c.t - middle, forwardCompute - compute, c.compute - forwardCompute};
    }
};

ComposedCycle composeCycle(const StepPasses& p, std::size_t levels, double slowdown) {
    StageClocks c;
    c.links.resize(std::max<std::size_t>(levels, 1));
    PassPair passes(p);
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

/// One chunk of a stage: its passes ready to run, its steady passes and the links after each.
struct StageComposer::Chunk {
    StepPasses passes;
    PassPair cycle;
    PassTime forward, backward;
    SteadyLinks afterForward, afterBackward; ///< the links at the end of a steady forward, a steady backward
    explicit Chunk(StepPasses p) : passes(std::move(p)), cycle(passes) {}
};

namespace {

/// The links of `c` once they have caught up with its compute clock.
SteadyLinks steadyOf(StageClocks& c) {
    SteadyLinks out;
    out.t = c.t;
    for (StreamLink& l : c.links) {
        l.advance(c.t);
        out.links.push_back(l.backlog());
    }
    return out;
}

} // namespace

StageComposer::StageComposer(std::size_t levels, double slowdown)
    : levels_(std::max<std::size_t>(levels, 1)), slowdown_(slowdown), links_(std::make_unique<StageClocks>()) {
    links_->links.resize(levels_);
}

void StageComposer::restart() {
    links_ = std::make_unique<StageClocks>();
    links_->links.resize(levels_);
}

StageComposer::~StageComposer() = default;
StageComposer::StageComposer(StageComposer&&) noexcept = default;

int StageComposer::addChunk(StepPasses passes) {
    auto chunk = std::make_unique<Chunk>(std::move(passes));
    StageClocks c;
    c.links.resize(levels_);
    const PassExtras none;
    std::vector<double> before = backlog(c);
    for (int i = 0; i < 16; ++i) {
        double start = c.t;
        chunk->cycle.forward.run(none, slowdown_, c);
        chunk->forward = PassTime{c.t - start, c.lead, c.plain};
        chunk->afterForward = steadyOf(c);
        start = c.t;
        chunk->cycle.backward.run(none, slowdown_, c);
        chunk->backward = PassTime{c.t - start, c.lead, c.plain};
        chunk->afterBackward = steadyOf(c);
        std::vector<double> after = backlog(c);
        if (same(after, before))
            break;
        before = std::move(after);
    }
    chunks_.push_back(std::move(chunk));
    return int(chunks_.size()) - 1;
}

PassTime StageComposer::steady(int chunk, bool forward) const {
    const Chunk& c = *chunks_[std::size_t(chunk)];
    return forward ? c.forward : c.backward;
}

double StageComposer::run(int chunk, bool forward, bool first, bool last, double free, double arrived) {
    Chunk& ch = *chunks_[std::size_t(chunk)];
    StageClocks& c = *links_;
    for (StreamLink& l : c.links)
        l.advance(free); // idle until then: the links work on
    c.t = std::max(c.t, free);
    const PassExtras extras = forward && first ? PassExtras{&ch.passes.firstGather, nullptr, nullptr, 0}
                              : !forward && last
                                  ? PassExtras{nullptr, &ch.passes.lastReduce, &ch.passes.lastReduceBytes, ch.passes.bucketBytes}
                                  : PassExtras{};
    (forward ? ch.cycle.forward : ch.cycle.backward).run(extras, slowdown_, c, arrived);
    return c.t;
}

double StageComposer::skip(int chunk, bool forward, double free, double arrived) {
    const Chunk& ch = *chunks_[std::size_t(chunk)];
    const PassTime pass = forward ? ch.forward : ch.backward;
    const double computing = std::max(free + pass.lead, arrived);
    // Compute that ran at full rate in the steady pass is slowed beside the stage's sends.
    const double stretch = 1 + slowdown_;
    const double besideSends = std::min(std::max(0.0, links_->sending - computing) / stretch, pass.plain);
    const double end = computing + pass.length - pass.lead + besideSends * slowdown_;
    // The links as a steady pass of this chunk leaves them.
    const SteadyLinks& after = forward ? ch.afterForward : ch.afterBackward;
    for (std::size_t l = 0; l < levels_; ++l)
        links_->links[l].adopt(after.links[l], end - after.t);
    links_->t = end;
    return end;
}

void StageComposer::send(double at, double seconds) { links_->sending = std::max(links_->sending, at) + seconds; }

double StageComposer::sent() const { return links_->sending; }

double StageComposer::drained() const { return links_->finished(); }

double StageComposer::optimizer() const {
    double total = 0;
    for (const auto& c : chunks_)
        total += c->passes.optimizer;
    return total;
}

ComposedStep composeStep(const StepPasses& p, int m, std::size_t levels, bool overlap, double slowdown) {
    if (!overlap)
        return serial(p, m);
    StageClocks c;
    c.links.resize(std::max<std::size_t>(levels, 1));
    PassPair passes(p);
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
                for (StreamLink& l : c.links)
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
    out.stepTime = std::max(c.t, c.finished()) + p.optimizer;
    return out;
}

} // namespace shardscope

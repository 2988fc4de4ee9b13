#include "engine/sim/event_engine.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>

namespace shardscope {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// One running task on a line, with the work it has left.
struct Running {
    std::size_t inst = 0;
    int task = 0;
    bool comm = false;
    double remaining = 0;             ///< compute: seconds of work at full rate
    std::size_t part = 0;             ///< comm: the task's part running (its parts run one after another)
    double latency = 0;               ///< comm: of the current part, latency left
    std::vector<double> level;        ///< comm: of the current part, seconds left per link level
    // Scheduling state, set by plan(): when the next change of phase is due, and per level.
    double due = kInfinity;
    bool latencyDue = false;          ///< the change due is the end of the latency
    std::vector<double> levelDue;
};

/// One line's clock, queues and running tasks.
struct Line {
    double clock = 0;                 ///< the running tasks' work is settled up to here
    std::vector<Running> running;
    std::vector<Running> spare;       ///< ended tasks' storage, reused (their level vectors)
    std::vector<std::vector<int>> queues; ///< per queue: task ids in issue order
    std::vector<std::size_t> head;    ///< per queue: index of its next task
    std::vector<bool> busy;           ///< per queue: its head task is running
    std::uint64_t version = 0;        ///< bumped when its schedule changes
    double live = 0;                  ///< activation bytes saved
    std::vector<int> levelUsers;      ///< per level: comm tasks moving bytes on it
};

struct Event {
    double time;
    std::size_t line;
    std::uint64_t version;
    std::uint64_t seq;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class Engine {
public:
    explicit Engine(const EngineSetup& s)
        : s_(s), program_(*s.program), tasks_(program_.tasks), L_(s.comm.size()), lines_(L_), runs_(L_) {
        levels_ = L_ > 0 && s.comm[0] ? s.comm[0]->levelCount() : 0;
        const std::size_t instances = s.spmd ? tasks_.size() * L_ : tasks_.size();
        depsLeft_.assign(instances, 0);
        arrived_.assign(s.spmd ? instances : 0, false);
        started_.assign(instances, false);
        start_.assign(instances, 0.0);
        ends_.assign(instances, -1.0);
        // Who waits for each task, as one flat list indexed by dependentsAt_.
        dependentsAt_.assign(tasks_.size() + 1, 0);
        for (const SimTask& t : tasks_)
            for (int d : t.deps)
                ++dependentsAt_[std::size_t(d) + 1];
        for (std::size_t i = 1; i < dependentsAt_.size(); ++i)
            dependentsAt_[i] += dependentsAt_[i - 1];
        dependents_.resize(dependentsAt_.back());
        std::vector<std::size_t> fill(dependentsAt_.begin(), dependentsAt_.end() - 1);
        for (const SimTask& t : tasks_)
            for (int d : t.deps)
                dependents_[fill[std::size_t(d)]++] = t.event.task;
        for (std::size_t i = 0; i < instances; ++i)
            depsLeft_[i] = int(tasks_[taskOf(i)].deps.size());
        const std::size_t queues = s.overlap ? kStreamCount : 1;
        for (std::size_t l = 0; l < L_; ++l) {
            Line& line = lines_[l];
            line.queues.resize(queues);
            line.head.assign(queues, 0);
            line.busy.assign(queues, false);
            line.levelUsers.assign(levels_, 0);
            runs_[l].timeline.memory.push_back({0, s.resident[l]});
            runs_[l].peak = s.resident[l];
        }
        for (const SimTask& t : tasks_) {
            const std::size_t q = queueOf(t);
            if (s.spmd)
                for (Line& line : lines_)
                    line.queues[q].push_back(t.event.task);
            else
                lines_[std::size_t(t.stage)].queues[q].push_back(t.event.task);
        }
        if (s.spmd)
            for (const auto& [axes, perLine] : *s.peers) {
                auto& reverse = reversePeers_[axes];
                reverse.resize(L_);
                for (std::size_t c = 0; c < perLine.size(); ++c)
                    for (int p : perLine[c])
                        reverse[std::size_t(p)].push_back(int(c));
            }
    }

    EngineRun run() {
        for (std::size_t l = 0; l < L_; ++l)
            for (std::size_t q = 0; q < lines_[l].queues.size(); ++q)
                tryStart(l, q, 0.0);
        for (std::size_t l = 0; l < L_; ++l)
            plan(l);
        std::size_t processed = 0;
        EngineRun out;
        while (!events_.empty()) {
            const Event e = events_.top();
            events_.pop();
            if (e.version != lines_[e.line].version)
                continue;
            if (++processed % 4096 == 0 && s_.stop.stop_requested()) {
                out.cancelled = true;
                break;
            }
            step(e.line, e.time);
        }
        if (!out.cancelled)
            for (std::size_t i = 0; i < ends_.size(); ++i)
                if (ends_[i] < 0)
                    throw std::logic_error("simulation: " + tasks_[taskOf(i)].event.name + " waits for ever");
        out.lines = std::move(runs_);
        return out;
    }

private:
    std::size_t taskOf(std::size_t inst) const { return s_.spmd ? inst / L_ : inst; }
    std::size_t instOf(int task, std::size_t line) const { return s_.spmd ? std::size_t(task) * L_ + line : std::size_t(task); }
    std::size_t lineOf(int task, std::size_t line) const { return s_.spmd ? line : std::size_t(tasks_[std::size_t(task)].stage); }
    std::size_t queueOf(const SimTask& t) const { return s_.overlap ? static_cast<std::size_t>(t.stream) : 0; }

    /// Moves `l`'s running work forward to `now` at the rates set by plan().
    void settle(std::size_t l, double now) {
        Line& line = lines_[l];
        const double dt = now - line.clock;
        if (dt > 0) {
            const double computeRate = computeRateOf(line);
            for (Running& r : line.running) {
                if (!r.comm) {
                    r.remaining = std::max(0.0, r.remaining - dt * computeRate);
                } else if (r.latency > 0) {
                    r.latency = std::max(0.0, r.latency - dt);
                } else {
                    for (std::size_t k = 0; k < r.level.size(); ++k)
                        if (r.level[k] > 0)
                            r.level[k] = std::max(0.0, r.level[k] - dt / line.levelUsers[k]);
                }
            }
        }
        line.clock = std::max(line.clock, now);
    }

    double computeRateOf(const Line& line) const {
        if (!s_.overlap || s_.slowdown <= 0)
            return 1.0;
        for (const Running& r : line.running)
            if (r.comm)
                return 1.0 / (1.0 + s_.slowdown);
        return 1.0;
    }

    /// Recounts `l`'s level users and sets every running task's next change of phase; schedules the
    /// earliest.
    void plan(std::size_t l) {
        Line& line = lines_[l];
        std::fill(line.levelUsers.begin(), line.levelUsers.end(), 0);
        for (const Running& r : line.running)
            if (r.comm && r.latency <= 0)
                for (std::size_t k = 0; k < r.level.size(); ++k)
                    line.levelUsers[k] += r.level[k] > 0 ? 1 : 0;
        const double computeRate = computeRateOf(line);
        double next = kInfinity;
        for (Running& r : line.running) {
            r.latencyDue = r.comm && r.latency > 0;
            if (!r.comm) {
                r.due = line.clock + r.remaining / computeRate;
            } else if (r.latencyDue) {
                r.due = line.clock + r.latency;
            } else {
                r.due = kInfinity;
                r.levelDue.assign(r.level.size(), kInfinity);
                for (std::size_t k = 0; k < r.level.size(); ++k)
                    if (r.level[k] > 0) {
                        r.levelDue[k] = line.clock + r.level[k] * line.levelUsers[k];
                        r.due = std::min(r.due, r.levelDue[k]);
                    }
                if (r.due == kInfinity)
                    r.due = line.clock; // nothing left to move
            }
            next = std::min(next, r.due);
        }
        ++line.version;
        if (next < kInfinity)
            events_.push(Event{next, l, line.version, seq_++});
    }

    /// At `now`, `l`'s due phase changes happen: tasks end, collectives move to their bytes or next
    /// part; what their ends release starts.
    void step(std::size_t l, double now) {
        settle(l, now);
        Line& line = lines_[l];
        std::vector<std::size_t>& finished = finished_;
        finished.clear();
        for (std::size_t i = 0; i < line.running.size(); ++i) {
            Running& r = line.running[i];
            if (r.due > now)
                continue;
            if (!r.comm) {
                r.remaining = 0;
                finished.push_back(i);
                continue;
            }
            if (r.latencyDue) {
                r.latency = 0;
            } else {
                for (std::size_t k = 0; k < r.level.size(); ++k)
                    if (r.levelDue[k] <= now)
                        r.level[k] = 0;
            }
            // On to the next part once this one has moved everything.
            while (r.latency <= 0 && std::all_of(r.level.begin(), r.level.end(), [](double v) { return v <= 0; })) {
                if (!loadPart(l, r, r.part + 1)) {
                    finished.push_back(i);
                    break;
                }
            }
        }
        // Ends, latest index first so the indices stay valid; a slot is kept for reuse (retire()).
        std::vector<std::pair<std::size_t, int>>& ended = ended_;
        ended.clear();
        for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
            finish(l, line.running[*it], now);
            ended.emplace_back(line.running[*it].inst, line.running[*it].task);
            retire(line, *it);
        }
        std::vector<std::size_t>& touched = touched_;
        touched.assign(1, l);
        for (const auto& [inst, task] : ended)
            release(l, inst, task, now, touched);
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        for (std::size_t t : touched)
            plan(t);
    }

    /// Drops running task `i` of `line`, keeping its storage in `line.spare` for the next to start.
    static void retire(Line& line, std::size_t i) {
        if (i + 1 != line.running.size())
            std::swap(line.running[i], line.running.back());
        line.spare.push_back(std::move(line.running.back()));
        line.running.pop_back();
    }

    /// Records the end of `r` on line `l`.
    void finish(std::size_t l, const Running& r, double now) {
        const SimTask& t = tasks_[std::size_t(r.task)];
        ends_[r.inst] = now;
        Line& line = lines_[l];
        line.busy[queueOf(t)] = false;
        ++line.head[queueOf(t)];
        LineRun& run = runs_[l];
        const double duration = now - start_[r.inst];
        if (r.comm)
            run.timeline.commBusy += duration;
        else
            run.computeBusy += duration;
        run.timeline.stepTime = std::max(run.timeline.stepTime, now);
        if (t.allocate > 0 || t.release > 0) {
            line.live += t.allocate - t.release;
            const double bytes = s_.resident[l] + line.live;
            if (s_.timelines)
                run.timeline.memory.push_back({now, bytes});
            if (bytes > run.peak) {
                run.peak = bytes;
                run.timeline.peakMemoryTime = now;
            }
        }
        if (duration > 0 && s_.timelines) {
            SimEvent e = t.event;
            e.start = start_[r.inst];
            e.duration = duration;
            run.timeline.events.push_back(std::move(e));
        }
    }

    /// After `task` (instance `inst` on line `l`) ended: its dependents and its queue may start.
    void release(std::size_t l, std::size_t inst, int task, double now, std::vector<std::size_t>& touched) {
        (void)inst;
        for (std::size_t k = dependentsAt_[std::size_t(task)]; k < dependentsAt_[std::size_t(task) + 1]; ++k) {
            const int d = dependents_[k];
            const std::size_t dl = lineOf(d, l);
            const std::size_t di = instOf(d, dl);
            if (--depsLeft_[di] == 0 && tryStart(dl, queueOf(tasks_[std::size_t(d)]), now))
                touched.push_back(dl);
        }
        if (tryStart(l, queueOf(tasks_[std::size_t(task)]), now))
            touched.push_back(l);
    }

    /// Starts the head of queue `q` of line `l` at `now` if it can (a collective on the lines whose
    /// peers have all reached it, planning those other lines); true when it started on `l`.
    bool tryStart(std::size_t l, std::size_t q, double now) {
        Line& line = lines_[l];
        if (line.busy[q] || line.head[q] >= line.queues[q].size())
            return false;
        const int task = line.queues[q][line.head[q]];
        const std::size_t inst = instOf(task, l);
        if (depsLeft_[inst] > 0 || started_[inst])
            return false;
        const SimTask& t = tasks_[std::size_t(task)];
        line.busy[q] = true;
        if (!s_.spmd || t.stream == Stream::Compute) {
            begin(l, task, now);
            return true;
        }
        // A collective waits for every line in its groups.
        arrived_[inst] = true;
        bool any = false;
        for (int c : reversePeers_.at(t.event.axes)[l]) {
            const std::size_t ci = instOf(task, std::size_t(c));
            if (started_[ci] || !arrived_[ci])
                continue;
            const auto& peers = s_.peers->at(t.event.axes)[std::size_t(c)];
            if (std::all_of(peers.begin(), peers.end(), [&](int p) { return arrived_[instOf(task, std::size_t(p))]; })) {
                begin(std::size_t(c), task, now);
                if (std::size_t(c) != l)
                    plan(std::size_t(c));
                any = any || std::size_t(c) == l;
            }
        }
        return any;
    }

    /// Task `task` starts on line `l` at `now`.
    void begin(std::size_t l, int task, double now) {
        settle(l, now);
        const SimTask& t = tasks_[std::size_t(task)];
        const std::size_t inst = instOf(task, l);
        started_[inst] = true;
        start_[inst] = now;
        Line& line = lines_[l];
        Running r;
        if (!line.spare.empty()) {
            r = std::move(line.spare.back());
            line.spare.pop_back();
        }
        r.inst = inst;
        r.task = task;
        r.comm = t.stream != Stream::Compute;
        r.part = 0;
        r.latency = 0;
        r.due = kInfinity;
        r.latencyDue = false;
        if (!r.comm) {
            r.remaining = t.event.duration;
        } else {
            for (const CommPart& p : t.parts)
                countBytes(*s_.comm[l], t, p, runs_[l]);
            r.level.assign(levels_, 0.0);
            loadPart(l, r, 0);
        }
        line.running.push_back(std::move(r));
    }

    /// Sets `r` (a communication task on line `l`) to run its part `k`: its latency and bytes per
    /// level; false when it has no part `k`. Parts of no time leave nothing to run.
    bool loadPart(std::size_t l, Running& r, std::size_t k) const {
        const SimTask& t = tasks_[std::size_t(r.task)];
        r.part = k;
        if (k >= t.parts.size())
            return k == 0; // a task without parts runs once, in no time
        const CommPart& p = t.parts[k];
        const CommShape shape = s_.comm[l]->shape(p.kind, p.axes, p.bytes, p.bucket).scaled(p.times);
        r.latency = shape.latency;
        std::copy(shape.levelSeconds.begin(), shape.levelSeconds.end(), r.level.begin());
        return true;
    }

    /// Adds part `p` of `t`'s bytes to the line's per-level (or point-to-point) traffic.
    static void countBytes(const CommModel& comm, const SimTask& t, const CommPart& p, LineRun& run) {
        if (p.kind == CollectiveKind::SendRecv && t.stream == Stream::Pipeline) {
            (t.event.phase == Phase::Backward ? run.sends.backward : run.sends.forward) +=
                comm.bytesSent(p.kind, p.axes, p.bytes) * p.times;
            return;
        }
        const auto perLevel = comm.bytesPerLevel(p.kind, p.axes, p.bytes);
        auto& sum = run.levelBytes[p.axes];
        sum.resize(perLevel.size(), 0.0);
        for (std::size_t k = 0; k < perLevel.size(); ++k)
            sum[k] += perLevel[k] * p.times;
    }

    const EngineSetup& s_;
    const StepProgram& program_;
    const std::vector<SimTask>& tasks_;
    std::size_t L_;
    std::size_t levels_ = 0;
    std::vector<Line> lines_;
    std::vector<LineRun> runs_;
    std::vector<int> depsLeft_;
    std::vector<bool> arrived_, started_;
    std::vector<double> start_, ends_;
    std::vector<int> dependents_;                 ///< tasks waiting for task t: [dependentsAt_[t], dependentsAt_[t+1])
    std::vector<std::size_t> dependentsAt_;
    std::map<AxisSet, std::vector<std::vector<int>>> reversePeers_;
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
    std::uint64_t seq_ = 0;
    std::vector<std::size_t> finished_, touched_;     ///< step()'s scratch
    std::vector<std::pair<std::size_t, int>> ended_;  ///< step()'s scratch
};

} // namespace

EngineRun runEngine(const EngineSetup& setup) { return Engine(setup).run(); }

} // namespace shardscope

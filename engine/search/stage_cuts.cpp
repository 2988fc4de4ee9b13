#include "engine/search/stage_cuts.h"

#include "engine/pipeline/pipeline_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardscope {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void add(CutSegment& to, const CutSegment& s) {
    to.time += s.time;
    to.work += s.work;
    to.statics += s.statics;
    to.activations += s.activations;
    to.workspace += s.workspace;
    to.buffers = std::max(to.buffers, s.buffers);
}

/// A stage's figures from the sum of its segments: `sends` seconds of sends per micro-batch, `blocks`
/// of the profile's `totalBlocks` on it, holding `inFlight` micro-batches of activations. A stage
/// recomputes one block at a time, so it holds one block's working set whatever its count
/// (composePipeline()).
CutStage figures(const CutSegment& sum, double sends, int blocks, int totalBlocks, double inFlight) {
    const double oneBlock = blocks > 0 ? sum.workspace * totalBlocks / blocks : 0;
    const double floor = sum.statics + sum.activations * inFlight + sum.buffers;
    return CutStage{sum.time + sends, sum.work, floor + oneBlock, floor};
}

/// Fits first, then the least slowest stage, then the least work; when nothing fits, the least memory.
struct CutValue {
    bool fits = false;
    double time = kInf, work = kInf, memory = kInf;

    bool betterThan(const CutValue& o) const {
        if (fits != o.fits)
            return fits;
        if (!fits)
            return memory < o.memory;
        if (time != o.time)
            return time < o.time;
        return work < o.work;
    }
};

CutValue valueOf(const std::vector<CutStage>& stages, double capacity) {
    CutValue v{true, 0, 0, 0};
    for (const CutStage& s : stages) {
        v.time = std::max(v.time, s.time);
        v.work = std::max(v.work, s.work);
        v.memory = std::max(v.memory, s.memory);
    }
    v.fits = v.memory <= capacity;
    return v;
}

/// True when every pinned block of the cut sits on its stage.
bool keepsLocks(const std::vector<int>& chunkBlocks, int stages, const std::vector<int>& blockStage) {
    int block = 0;
    for (std::size_t c = 0; c < chunkBlocks.size(); ++c)
        for (int k = 0; k < chunkBlocks[c]; ++k, ++block)
            if (std::size_t(block) < blockStage.size() && blockStage[std::size_t(block)] >= 0 &&
                blockStage[std::size_t(block)] != int(c) % stages)
                return false;
    return true;
}

/// One chunk per stage: the bottleneck programme over block boundaries. `cost(s, i, j)` is stage s
/// holding blocks i..j-1 as {value (infinity: not allowed), floor}, where the floor never exceeds the
/// value and never falls as the range grows (i falls): once it reaches the best found for (s, j), no
/// longer range can do better, so the scan stops there (O(L^2) in all instead of O(P L^2) when the
/// stages balance). The cut minimising the largest value, or nullopt.
template <class Cost>
std::optional<std::vector<int>> bottleneckCut(int P, int L, const std::vector<int>& blockStage, Cost cost) {
    const std::size_t width = std::size_t(L) + 1;
    std::vector<double> best(std::size_t(P) * width, kInf);
    std::vector<int> from(std::size_t(P) * width, -1);
    auto at = [&](int s, int j) -> double& { return best[std::size_t(s) * width + std::size_t(j)]; };
    for (int s = 0; s < P; ++s)
        for (int j = s + 1; j <= L - (P - 1 - s); ++j)
            for (int i = j - 1; i >= (s == 0 ? 0 : s); --i) {
                // Stage s would take block i: past a block pinned elsewhere no longer range is allowed.
                const int pin = std::size_t(i) < blockStage.size() ? blockStage[std::size_t(i)] : -1;
                if (pin >= 0 && pin != s)
                    break;
                if (s == 0 && i > 0)
                    continue; // stage 0 starts at block 0
                const double before = s == 0 ? 0 : at(s - 1, i);
                const auto [value, floor] = cost(s, i, j);
                if (floor >= at(s, j))
                    break;
                if (before == kInf)
                    continue;
                const double v = std::max(before, value);
                if (v < at(s, j)) {
                    at(s, j) = v;
                    from[std::size_t(s) * width + std::size_t(j)] = i;
                }
            }
    if (at(P - 1, L) == kInf)
        return std::nullopt;
    std::vector<int> counts(static_cast<std::size_t>(P));
    for (int s = P - 1, j = L; s >= 0; --s) {
        const int i = from[std::size_t(s) * width + std::size_t(j)];
        counts[std::size_t(s)] = j - i;
        j = i;
    }
    return counts;
}

std::optional<std::vector<int>> contiguousCut(const CutProfile& p, int P, const StepSettings& settings, double capacity,
                                              const std::vector<int>& blockStage, bool closest) {
    const int L = int(p.blocks.size());
    std::vector<CutSegment> prefix(static_cast<std::size_t>(L) + 1);
    for (int b = 0; b < L; ++b) {
        prefix[std::size_t(b) + 1] = prefix[std::size_t(b)];
        add(prefix[std::size_t(b) + 1], p.blocks[std::size_t(b)]);
        prefix[std::size_t(b) + 1].buffers = 0; // buffers are a maximum, taken per range below
    }
    std::vector<double> inFlight(static_cast<std::size_t>(P));
    for (int s = 0; s < P; ++s)
        inFlight[std::size_t(s)] = activationsInFlight(settings, P, s);
    // Range maxima of the blocks' buffers: a sparse table, level k holding the maxima of 2^k blocks.
    std::vector<std::vector<double>> buffersMax{{}};
    for (const CutSegment& b : p.blocks)
        buffersMax[0].push_back(b.buffers);
    for (std::size_t k = 1; (std::size_t(1) << k) <= std::size_t(L); ++k) {
        const std::vector<double>& below = buffersMax[k - 1];
        std::vector<double> level;
        for (std::size_t b = 0; b + (std::size_t(1) << k) <= std::size_t(L); ++b)
            level.push_back(std::max(below[b], below[b + (std::size_t(1) << (k - 1))]));
        buffersMax.push_back(std::move(level));
    }
    auto rangeBuffers = [&](int i, int j) {
        std::size_t k = 0;
        while ((std::size_t(2) << k) <= std::size_t(j - i))
            ++k;
        return std::max(buffersMax[k][std::size_t(i)], buffersMax[k][std::size_t(j) - (std::size_t(1) << k)]);
    };
    auto stage = [&](int s, int i, int j) {
        CutSegment sum;
        const CutSegment &hi = prefix[std::size_t(j)], &lo = prefix[std::size_t(i)];
        sum.time = hi.time - lo.time;
        sum.work = hi.work - lo.work;
        sum.statics = hi.statics - lo.statics;
        sum.activations = hi.activations - lo.activations;
        sum.workspace = hi.workspace - lo.workspace;
        sum.buffers = rangeBuffers(i, j);
        if (s == 0)
            add(sum, p.before);
        if (s == P - 1)
            add(sum, p.after);
        const double sends = (s < P - 1 ? p.sendForward : 0) + (s > 0 ? p.sendBackward : 0);
        return figures(sum, sends, j - i, L, inFlight[std::size_t(s)]);
    };
    // Pass 1: the least slowest stage among cuts that fit.
    // Time, work and the memory floor are sums (and a maximum) over the range: they only grow with
    // it, so they bound every longer range; a range whose floor overflows has no longer one that fits.
    const auto fastest = bottleneckCut(P, L, blockStage, [&](int s, int i, int j) {
        const CutStage f = stage(s, i, j);
        return std::pair{f.memory <= capacity ? f.time : kInf, f.memoryFloor > capacity ? kInf : f.time};
    });
    if (!fastest && !closest)
        return std::nullopt;
    if (!fastest) // nothing fits: the least peak
        return bottleneckCut(P, L, blockStage, [&](int s, int i, int j) {
            const CutStage f = stage(s, i, j);
            return std::pair{f.memory, f.memoryFloor};
        });
    double pace = 0;
    for (int s = 0, i = 0; s < P; i += (*fastest)[std::size_t(s)], ++s)
        pace = std::max(pace, stage(s, i, i + (*fastest)[std::size_t(s)]).time);
    // Pass 2: at that pace, the least per-step work.
    const double slack = pace * (1 + 1e-12);
    const auto lighter = bottleneckCut(P, L, blockStage, [&](int s, int i, int j) {
        const CutStage f = stage(s, i, j);
        return std::pair{f.memory <= capacity && f.time <= slack ? f.work : kInf, f.time <= slack ? f.work : kInf};
    });
    return lighter ? lighter : fastest;
}

std::optional<std::vector<int>> interleavedCut(const CutProfile& p, int P, const StepSettings& settings,
                                               double capacity, const std::vector<int>& blockStage, bool closest) {
    const int L = int(p.blocks.size());
    const int chunks = P * settings.virtualStages;
    const int span = 2 * (L / chunks) + 1;
    std::optional<std::vector<int>> best;
    CutValue bestValue;
    for (int first = 1; first <= span; ++first)
        for (int last = 1; last <= span; ++last) {
            const int middle = L - first - last;
            if (middle < chunks - 2)
                continue;
            std::vector<int> cut{first};
            for (int n : balancedChunkBlocks(middle, chunks - 2))
                cut.push_back(n);
            cut.push_back(last);
            if (!keepsLocks(cut, P, blockStage))
                continue;
            const CutValue v = valueOf(cutStages(p, cut, P, settings), capacity);
            if (!best || v.betterThan(bestValue)) {
                best = cut;
                bestValue = v;
            }
        }
    return best && (bestValue.fits || closest) ? best : std::nullopt;
}

} // namespace

CutProfile cutProfile(const Evaluation& e, const Plan& plan, const RepeatedBlocks& blocks, int microbatches) {
    CutProfile p;
    p.blocks.resize(std::size_t(blocks.count()));
    const double m = microbatches;
    double forward = 0, backward = 0;
    for (const OpReport& r : e.perOp) {
        const std::size_t o = r.op.index();
        const int b = blocks.blockOf[o];
        CutSegment& seg = b >= 0 ? p.blocks[std::size_t(b)] : plan.pipeline.chunkOf[o] == 0 ? p.before : p.after;
        seg.time += (r.computeTime + r.slowdownTime) / m;
        for (const CollectiveCost& c : r.collectives) {
            if (c.purpose == CommPurpose::StageTransfer)
                (c.phase == Phase::Forward ? forward : backward) += c.exposedTime() / m;
            else if (c.phase == Phase::Step)
                seg.work += c.exposedTime();
            else
                seg.time += c.exposedTime() / m;
        }
        seg.work += r.optimizerTime;
        seg.statics += r.memory.parameters + r.memory.gradients + r.memory.optimizer;
        seg.activations += r.memory.activations - r.activationWorkspace;
        seg.workspace += r.activationWorkspace;
        seg.buffers = std::max(seg.buffers, r.transient);
    }
    const int boundaries = std::max(1, plan.pipeline.chunks() - 1);
    p.sendForward = forward / boundaries;
    p.sendBackward = backward / boundaries;
    return p;
}

CutProfile uniformProfile(int blocks) {
    CutProfile p;
    p.blocks.assign(std::size_t(blocks), CutSegment{1, 0, 0, 0, 0, 0});
    return p;
}

std::vector<CutStage> cutStages(const CutProfile& profile, const std::vector<int>& chunkBlocks, int stages,
                                const StepSettings& settings) {
    const int L = int(profile.blocks.size());
    const int chunks = int(chunkBlocks.size());
    std::vector<CutSegment> sums(static_cast<std::size_t>(stages));
    std::vector<double> sends(std::size_t(stages), 0);
    std::vector<int> counts(std::size_t(stages), 0);
    int block = 0;
    for (int c = 0; c < chunks; ++c) {
        const std::size_t s = std::size_t(c % stages);
        for (int k = 0; k < chunkBlocks[std::size_t(c)]; ++k)
            add(sums[s], profile.blocks[std::size_t(block++)]);
        counts[s] += chunkBlocks[std::size_t(c)];
        if (c == 0)
            add(sums[s], profile.before);
        if (c == chunks - 1)
            add(sums[s], profile.after);
        sends[s] += (c < chunks - 1 ? profile.sendForward : 0) + (c > 0 ? profile.sendBackward : 0);
    }
    std::vector<CutStage> out;
    for (int s = 0; s < stages; ++s)
        out.push_back(figures(sums[std::size_t(s)], sends[std::size_t(s)], counts[std::size_t(s)], L,
                              activationsInFlight(settings, stages, s)));
    return out;
}

std::optional<std::vector<int>> chooseStageCut(const CutProfile& profile, int stages, const StepSettings& settings,
                                               double capacity, const std::vector<int>& blockStage, bool closest) {
    const int V = settings.schedule == Schedule::Interleaved ? settings.virtualStages : 1;
    if (int(profile.blocks.size()) < stages * V)
        return std::nullopt;
    return V == 1 ? contiguousCut(profile, stages, settings, capacity, blockStage, closest)
                  : interleavedCut(profile, stages, settings, capacity, blockStage, closest);
}

bool cutGains(const CutProfile& profile, const std::vector<int>& from, const std::vector<int>& to, int stages,
              const StepSettings& settings, double capacity) {
    const CutValue a = valueOf(cutStages(profile, from, stages, settings), capacity);
    const CutValue b = valueOf(cutStages(profile, to, stages, settings), capacity);
    if (b.fits != a.fits)
        return b.fits;
    // The same pace up to rounding (sums in another order): then the per-step work decides.
    if (std::abs(b.time - a.time) <= 1e-9 * a.time)
        return b.work < a.work * (1 - 1e-9);
    return b.time < a.time;
}

std::vector<int> lockedBlockStages(const Plan& plan, const RepeatedBlocks& blocks) {
    if (!plan.pipeline.active())
        return {};
    std::vector<int> stage(std::size_t(blocks.count()), -1);
    bool any = false;
    for (std::size_t o = 0; o < plan.ops.size() && o < blocks.blockOf.size(); ++o)
        if (plan.ops[o].locked && blocks.blockOf[o] >= 0) {
            stage[std::size_t(blocks.blockOf[o])] = plan.pipeline.stageOf(OpId(o));
            any = true;
        }
    return any ? stage : std::vector<int>{};
}

} // namespace shardscope

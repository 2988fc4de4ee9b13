#include "engine/search/first_block.h"

#include <algorithm>

namespace shardscope {

double pairCost(const SearchProblem& problem, const PairTable& p, int v, int kv, int kw) {
    const std::size_t kb = std::size_t(problem.choices(p.b));
    return v == p.a ? p.table()[std::size_t(kv) * kb + std::size_t(kw)] : p.table()[std::size_t(kw) * kb + std::size_t(kv)];
}

namespace {

/// True when pair `p` with op `v` at one end costs what pair `q` with op `w` at that end costs, for
/// every pair of candidates (both pairs' ops have the same candidates).
bool sameCosts(const SearchProblem& problem, const PairTable& p, int v, const PairTable& q, int w) {
    if (p.values == q.values)
        return true;
    if ((v == p.a) == (w == q.a))
        return p.table() == q.table(); // laid out alike: one comparison of the entries
    const int other = v == p.a ? p.b : p.a;
    for (int x = 0; x < problem.choices(v); ++x)
        for (int y = 0; y < problem.choices(other); ++y)
            if (pairCost(problem, p, v, x, y) != pairCost(problem, q, w, x, y))
                return false;
    return true;
}

} // namespace

std::optional<FirstBlockGhost> firstBlockAsGhost(const SearchProblem& problem, const RepeatedBlocks& rb) {
    const int P = rb.period(), exit0 = rb.exit(0).value;
    auto block = [&](int op) { return rb.blockOf[std::size_t(op)]; };
    auto position = [&](int op) { return rb.positionOf[std::size_t(op)]; };
    for (int q = 0; q < P; ++q) {
        const int u0 = rb.blocks[0][std::size_t(q)].value, u1 = rb.blocks[1][std::size_t(q)].value;
        if (problem.candidates(u0) != problem.candidates(u1))
            return std::nullopt;
        for (int k = 0; k < problem.choices(u0); ++k)
            if (problem.time(u0, k) != problem.time(u1, k) || problem.memory(u0, k) != problem.memory(u1, k))
                return std::nullopt;
    }
    // Only pairs touching blocks 0 and 1 matter; the inner pairs of block 1 are looked up by ops.
    std::vector<const PairTable*> near;
    std::map<std::pair<int, int>, const PairTable*> byOps;
    for (const PairTable& p : problem.pairs()) {
        const int ba = block(p.a), bb = block(p.b);
        if (ba == 0 || bb == 0 || ba == 1 || bb == 1)
            near.push_back(&p);
        if (ba == 1 && bb == 1)
            byOps[{p.a, p.b}] = &p;
    }
    auto find = [&](int x, int y) -> const PairTable* {
        const auto it = byOps.find({std::min(x, y), std::max(x, y)});
        return it == byOps.end() ? nullptr : it->second;
    };
    FirstBlockGhost out;
    std::map<int, const PairTable*>& entryPairs = out.entryPairs;
    std::map<int, const PairTable*> ghostPairs; // by consumer position
    for (const PairTable* pp : near) {
        const PairTable& p = *pp;
        const bool a0 = block(p.a) == 0, b0 = block(p.b) == 0;
        if (block(p.a) == 1 && p.b == exit0)
            ghostPairs[position(p.a)] = &p;
        if (block(p.b) == 1 && p.a == exit0)
            ghostPairs[position(p.b)] = &p;
        if (!a0 && !b0)
            continue;
        const int inner = a0 ? p.a : p.b, other = a0 ? p.b : p.a;
        if (block(other) == 0) {
            // An inner pair: block 1's twin must cost the same for every pair of candidates.
            const int t0 = rb.blocks[1][std::size_t(position(inner))].value;
            const int t1 = rb.blocks[1][std::size_t(position(other))].value;
            const PairTable* twin = find(t0, t1);
            if (!twin || !sameCosts(problem, p, inner, *twin, t0))
                return std::nullopt;
        } else if (block(other) == 1) {
            if (inner != exit0)
                return std::nullopt;
        } else if (block(other) == -1 && (out.entry == -1 || out.entry == other) && other < inner) {
            out.entry = other;
            entryPairs[position(inner)] = &p;
        } else {
            return std::nullopt;
        }
    }
    if (out.entry < 0 || entryPairs.size() != ghostPairs.size())
        return std::nullopt;
    for (auto e = entryPairs.begin(), g = ghostPairs.begin(); e != entryPairs.end(); ++e, ++g)
        if (e->first != g->first)
            return std::nullopt;
    // Each candidate's costs to the consumers, as a key; the exit candidates' keys index them.
    auto row = [&](const std::map<int, const PairTable*>& pairs, int from, int block1, int k) {
        std::vector<double> r;
        for (const auto& [q, p] : pairs) {
            const int consumer = rb.blocks[std::size_t(block1)][std::size_t(q)].value;
            for (int y = 0; y < problem.choices(consumer); ++y)
                r.push_back(pairCost(problem, *p, from, k, y));
        }
        return r;
    };
    std::map<std::vector<double>, int> ghostByRow;
    const int exitK = problem.choices(exit0);
    for (int g = exitK - 1; g >= 0; --g)
        ghostByRow[row(ghostPairs, exit0, 1, g)] = g;
    for (int e = 0; e < problem.choices(out.entry); ++e) {
        const auto [it, fresh] = ghostByRow.emplace(row(entryPairs, out.entry, 0, e), exitK + int(out.extra.size()));
        if (fresh)
            out.extra.push_back(e);
        out.ghostOf.push_back(it->second);
    }
    return out;
}

} // namespace shardscope

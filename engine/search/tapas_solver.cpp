#include "engine/search/solver.h"

#include "engine/search/first_block.h"
#include "engine/search/min_plus_chain.h"
#include "engine/search/problem_factors.h"

#include <map>
#include <optional>

namespace shardscope {

namespace {

/// Adds pair table `p` to `elim` on local variables `la` (for p.a) and `lb` (for p.b).
void addPair(Elimination& elim, const PairTable& p, int la, int lb, int ka, int kb) {
    if (la < lb) {
        elim.addFactor(CostTable{{la, lb}, p.table()});
        return;
    }
    std::vector<double> t(p.table().size());
    for (int x = 0; x < ka; ++x)
        for (int y = 0; y < kb; ++y)
            t[std::size_t(y) * std::size_t(ka) + std::size_t(x)] = p.table()[std::size_t(x) * std::size_t(kb) + std::size_t(y)];
    elim.addFactor(CostTable{{lb, la}, std::move(t)});
}

void addUnary(Elimination& elim, const SearchProblem& problem, int v, int local, double lambda) {
    CostTable f{{local}, {}};
    for (int k = 0; k < problem.choices(v); ++k)
        f.table.push_back(problem.time(v, k) + lambda * problem.memory(v, k));
    elim.addFactor(std::move(f));
}

} // namespace

Solution TapasSolver::solve(const SearchProblem& problem, double lambda, const SolveControl& control) const {
    const RepeatedBlocks* rb = problem.folded();
    if (!rb || rb->count() < 2) {
        Solution s = PaseSolver().solve(problem, lambda, control);
        s.note = "no repeated blocks: solved unfolded";
        return s;
    }
    const int L = rb->count(), P = rb->period();
    const int exitOp0 = rb->exit(0).value;
    const int exitK = problem.choices(exitOp0);
    Solution out;
    out.foldedBlocks = L;
    out.opsPerBlock = P;

    // 1. One block (the second) with a ghost copy of the previous exit: eliminate all but the ghost and
    //    the exit, leaving the transfer matrix T[ghost][exit].
    //    When the first block chains too, the ghost also takes the entry op's values no exit value
    //    matches (FirstBlockGhost), with their costs to the block's consumers.
    const std::optional<FirstBlockGhost> first = firstBlockAsGhost(problem, *rb);
    const int ghostK = exitK + (first ? int(first->extra.size()) : 0);
    std::vector<int> domains;
    for (int q = 0; q < P; ++q)
        domains.push_back(problem.choices(rb->blocks[1][std::size_t(q)].value));
    domains.push_back(ghostK);
    const int ghost = P;
    Elimination block(domains);
    for (int q = 0; q < P; ++q)
        addUnary(block, problem, rb->blocks[1][std::size_t(q)].value, q, lambda);
    auto localInBlock1 = [&](int op) { return rb->blockOf[std::size_t(op)] == 1 ? rb->positionOf[std::size_t(op)] : -1; };
    for (const PairTable& p : problem.pairs()) {
        const int la = localInBlock1(p.a), lb = localInBlock1(p.b);
        const int ka = problem.choices(p.a), kb = problem.choices(p.b);
        if (la >= 0 && lb >= 0) {
            addPair(block, p, la, lb, ka, kb);
        } else if ((la >= 0 && p.b == exitOp0) || (lb >= 0 && p.a == exitOp0)) {
            // Ghost (last variable) x consumer, laid out [consumer][ghost].
            const int consumer = la >= 0 ? p.a : p.b, local = la >= 0 ? la : lb, kc = problem.choices(consumer);
            CostTable f{{local, ghost}, std::vector<double>(std::size_t(kc) * std::size_t(ghostK))};
            for (int y = 0; y < kc; ++y) {
                double* row = f.table.data() + std::size_t(y) * std::size_t(ghostK);
                for (int g = 0; g < exitK; ++g)
                    row[g] = pairCost(problem, p, exitOp0, g, y);
                for (std::size_t i = 0; first && i < first->extra.size(); ++i)
                    row[std::size_t(exitK) + i] =
                        pairCost(problem, *first->entryPairs.at(local), first->entry, first->extra[i], y);
            }
            block.addFactor(std::move(f));
        }
    }
    std::vector<bool> keep(domains.size(), false);
    keep[std::size_t(ghost)] = keep[std::size_t(rb->exitPosition)] = true;
    block.pruneDominated(keep);
    if (!block.run(boundedOrder(block, keep, "tapas"), [&] { return control.stop.stop_requested(); })) {
        out.complete = false;
        return out;
    }
    const CostTable rest = block.remaining(); // vars {exitPosition, ghost}: table[x * ghostK + g]
    auto restAt = [&](int g, int x) { return rest.table[std::size_t(x) * std::size_t(ghostK) + std::size_t(g)]; };
    Eigen::MatrixXd transfer(exitK, exitK);
    for (int g = 0; g < exitK; ++g)
        for (int x = 0; x < exitK; ++x)
            transfer(g, x) = restAt(g, x);
    // The first block's transfer: the ghost rows of the entry's candidates.
    Eigen::MatrixXd entryTransfer;
    if (first) {
        entryTransfer.resize(Eigen::Index(first->ghostOf.size()), exitK);
        for (std::size_t e = 0; e < first->ghostOf.size(); ++e)
            for (int x = 0; x < exitK; ++x)
                entryTransfer(Eigen::Index(e), x) = restAt(first->ghostOf[e], x);
    }
    if (control.progress)
        control.progress(0.4);

    // 2. Blocks 2..L chained: T^(L-1) by min-plus repeated squaring.
    MinPlusChain chain(std::move(transfer));
    const int power = chain.power(L - 1);
    const Eigen::MatrixXd& through = chain.matrix(power);
    if (control.progress)
        control.progress(0.6);

    // 3. Head (with the first block unless it is chained) and tail solved exactly, with the chain as
    //    one factor between the first block's exit (or the entry op) and the last block's exit.
    const int lastExit = rb->exit(L - 1).value;
    std::vector<int> reduced;                 // reduced index -> op
    std::map<int, int> localOf;               // op -> reduced index
    for (int v = 0; v < problem.size(); ++v)
        if (rb->blockOf[std::size_t(v)] < 0 || (rb->blockOf[std::size_t(v)] == 0 && !first) || v == lastExit) {
            localOf[v] = int(reduced.size());
            reduced.push_back(v);
        }
    std::vector<int> rdomains;
    for (int v : reduced)
        rdomains.push_back(problem.choices(v));
    Elimination head(rdomains);
    for (int v : reduced)
        if (v != lastExit)
            addUnary(head, problem, v, localOf[v], lambda);
    for (const PairTable& p : problem.pairs()) {
        const auto ia = localOf.find(p.a), ib = localOf.find(p.b);
        if (ia == localOf.end() || ib == localOf.end())
            continue;
        // Pairs inside the chained blocks are in T; only those leaving the last exit stay.
        const bool lastA = p.a == lastExit, lastB = p.b == lastExit;
        if ((lastA && rb->blockOf[std::size_t(p.b)] >= 0) || (lastB && rb->blockOf[std::size_t(p.a)] >= 0))
            continue;
        addPair(head, p, ia->second, ib->second, problem.choices(p.a), problem.choices(p.b));
    }
    if (first) {
        // Entry op -> last exit through every block: min over the first exit of T0 + T^(L-1).
        const int entryK = int(first->ghostOf.size());
        auto chained = std::make_shared<std::vector<double>>(std::size_t(entryK) * std::size_t(exitK),
                                                             Elimination::kInfinity);
        for (int e = 0; e < entryK; ++e)
            for (int x = 0; x < exitK; ++x) {
                const double t0 = entryTransfer(e, x);
                double* row = chained->data() + std::size_t(e) * std::size_t(exitK);
                for (int y = 0; y < exitK; ++y)
                    row[y] = std::min(row[y], t0 + through(x, y));
            }
        addPair(head, PairTable{first->entry, lastExit, std::move(chained)}, localOf[first->entry], localOf[lastExit],
                entryK, exitK);
    } else {
        auto chained = std::make_shared<std::vector<double>>(std::size_t(exitK) * std::size_t(exitK));
        for (int g = 0; g < exitK; ++g)
            for (int x = 0; x < exitK; ++x)
                (*chained)[std::size_t(g) * std::size_t(exitK) + std::size_t(x)] = through(g, x);
        addPair(head, PairTable{exitOp0, lastExit, std::move(chained)}, localOf[exitOp0], localOf[lastExit], exitK, exitK);
    }
    const std::vector<bool> none(reduced.size(), false);
    head.pruneDominated(none);
    if (!head.run(boundedOrder(head, none, "tapas"), [&] { return control.stop.stop_requested(); })) {
        out.complete = false;
        return out;
    }
    std::vector<int> rchoice(reduced.size(), 0);
    head.backSubstitute(rchoice);

    // 4. Expand: the boundary states through the chain, then each block's ops from its two boundaries.
    out.choice.assign(std::size_t(problem.size()), 0);
    for (std::size_t i = 0; i < reduced.size(); ++i)
        out.choice[std::size_t(reduced[i])] = rchoice[i];
    if (first) {
        // The first exit: the best midpoint between the entry's choice and the last exit's.
        const int e = out.choice[std::size_t(first->entry)], last = out.choice[std::size_t(lastExit)];
        int best = 0;
        for (int x = 1; x < exitK; ++x)
            if (entryTransfer(e, x) + through(x, last) < entryTransfer(e, best) + through(best, last))
                best = x;
        std::vector<int> local(domains.size(), 0);
        local[std::size_t(ghost)] = first->ghostOf[std::size_t(e)];
        local[std::size_t(rb->exitPosition)] = best;
        block.backSubstitute(local);
        for (int q = 0; q < P; ++q)
            out.choice[rb->blocks[0][std::size_t(q)].index()] = local[std::size_t(q)];
    }
    std::vector<int> boundary{out.choice[std::size_t(exitOp0)]};
    for (int x : chain.path(power, boundary.front(), out.choice[std::size_t(lastExit)]))
        boundary.push_back(x);
    // Blocks with the same two boundaries take the same choices (most of a stack repeats one pair).
    std::map<std::pair<int, int>, std::vector<int>> byBoundaries;
    for (int b = 1; b < L; ++b) {
        const auto key = std::make_pair(boundary[std::size_t(b - 1)], boundary[std::size_t(b)]);
        std::vector<int>& local = byBoundaries[key];
        if (local.empty()) {
            local.assign(domains.size(), 0);
            local[std::size_t(ghost)] = key.first;
            local[std::size_t(rb->exitPosition)] = key.second;
            block.backSubstitute(local);
        }
        for (int q = 0; q < P; ++q)
            out.choice[rb->blocks[std::size_t(b)][std::size_t(q)].index()] = local[std::size_t(q)];
    }
    out.objective = problem.objective(out.choice, lambda);
    out.statesExplored = block.stats().states + chain.states() + head.stats().states;
    if (control.progress)
        control.progress(1.0);
    return out;
}

} // namespace shardscope

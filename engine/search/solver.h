#pragma once
// The algorithms behind one small interface (docs/DESIGN.md, Extending): each minimises a SearchProblem's
// objective, given a memory weight, and says what it explored.

#include "engine/search/search_algorithm.h"
#include "engine/search/search_problem.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace shardscope {

/// Cancellation and progress for one solve.
struct SolveControl {
    std::stop_token stop;                       ///< solve returns early (incomplete) when requested
    std::function<void(double)> progress;       ///< fraction of this solve done, 0..1
};

/// One solve's answer.
struct Solution {
    std::vector<int> choice;       ///< candidate index per op
    double objective = 0;          ///< step time + lambda x memory of `choice`
    double statesExplored = 0;
    bool complete = true;          ///< false when stopped early (choice is then empty)
    std::string note;              ///< e.g. the bound a fallback kept
    int foldedBlocks = 0;          ///< repeated blocks folded (tapas)
    int opsPerBlock = 0;
};

/// A search algorithm over a SearchProblem.
class Solver {
public:
    virtual ~Solver() = default;
    /// Minimises problem.objective(choice, lambda) over all choices.
    virtual Solution solve(const SearchProblem& problem, double lambda, const SolveControl& control) const = 0;
};

/// The solver behind `a` (auto: tapas, which solves unfolded problems as pase does).
std::unique_ptr<Solver> makeSolver(SearchAlgorithm a);

/// Brute force: the oracle for tests.
class BruteSolver final : public Solver {
public:
    /// Largest space it enumerates.
    static constexpr double kLimit = 1e7;
    /// Enumerates every assignment; throws InputError when the space exceeds kLimit.
    Solution solve(const SearchProblem& problem, double lambda, const SolveControl& control) const override;
};

/// PaSE's exact dynamic programming (variable elimination in the greedy dependent-set order).
class PaseSolver final : public Solver {
public:
    /// Largest DP table it builds before giving up (auto then falls back to a bounded search).
    static constexpr double kTableLimit = 2e8;
    /// Solves exactly; throws InputError when a dependent set makes a table over kTableLimit.
    Solution solve(const SearchProblem& problem, double lambda, const SolveControl& control) const override;
};

/// TAPAS: solve one repeated block once for every pair of boundary shardings (a min-plus transfer
/// matrix), chain the blocks by min-plus repeated squaring, solve the head and tail exactly, expand.
/// Equals PaSE on the unfolded graph; needs a problem built with its repeated blocks.
class TapasSolver final : public Solver {
public:
    /// Solves the folded problem exactly; without repeated blocks, solves it unfolded as PaSE does.
    Solution solve(const SearchProblem& problem, double lambda, const SolveControl& control) const override;
};

} // namespace shardscope

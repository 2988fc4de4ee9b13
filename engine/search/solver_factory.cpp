#include "engine/search/solver.h"

#include "engine/util/error.h"

namespace shardscope {

std::vector<std::string> solverNames() { return {"auto", "tapas", "pase", "brute"}; }

std::unique_ptr<Solver> makeSolver(const std::string& name) {
    if (name == "brute")
        return std::make_unique<BruteSolver>();
    if (name == "pase")
        return std::make_unique<PaseSolver>();
    if (name == "tapas" || name == "auto")
        return std::make_unique<TapasSolver>();
    throw InputError("--algo " + name + ": unknown algorithm (auto, tapas, pase, brute)");
}

} // namespace shardscope

#include "engine/search/solver.h"

#include "engine/util/error.h"

namespace shardscope {

std::vector<std::string> solverNames() { return {"auto", "pase", "brute"}; }

std::unique_ptr<Solver> makeSolver(const std::string& name) {
    if (name == "brute")
        return std::make_unique<BruteSolver>();
    if (name == "pase" || name == "auto")
        return std::make_unique<PaseSolver>();
    throw InputError("--algo " + name + ": unknown algorithm (auto, pase, brute)");
}

} // namespace shardscope

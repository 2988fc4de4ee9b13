#include "engine/search/solver.h"


namespace shardscope {

std::unique_ptr<Solver> makeSolver(SearchAlgorithm a) {
    switch (a) {
    case SearchAlgorithm::Brute:
        return std::make_unique<BruteSolver>();
    case SearchAlgorithm::Pase:
        return std::make_unique<PaseSolver>();
    case SearchAlgorithm::Auto:
    case SearchAlgorithm::Tapas:
    case SearchAlgorithm::Local:
        break;
    }
    return std::make_unique<TapasSolver>();
}

} // namespace shardscope

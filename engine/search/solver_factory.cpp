#include "engine/search/solver.h"

#include "engine/util/enum_names.h"
#include "engine/util/error.h"

namespace shardscope {

namespace {
constexpr EnumNames<SearchAlgorithm, 5> kAlgorithms{{{{SearchAlgorithm::Auto, "auto"},
                                                      {SearchAlgorithm::Tapas, "tapas"},
                                                      {SearchAlgorithm::Pase, "pase"},
                                                      {SearchAlgorithm::Brute, "brute"},
                                                      {SearchAlgorithm::Local, "local"}}}};
} // namespace

std::string_view algorithmName(SearchAlgorithm a) { return kAlgorithms.name(a); }

std::vector<std::string> solverNames() { return {"auto", "tapas", "pase", "brute"}; }

SearchAlgorithm parseAlgorithm(const std::string& name, const std::string& option) {
    const auto a = kAlgorithms.parse(name);
    if (!a || *a == SearchAlgorithm::Local)
        throw InputError(option + " " + name + ": unknown algorithm (auto, tapas, pase, brute)");
    return *a;
}

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

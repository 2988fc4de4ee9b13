#include "engine/search/search_algorithm.h"

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

std::vector<SearchAlgorithm> requestableAlgorithms() {
    return {SearchAlgorithm::Auto, SearchAlgorithm::Tapas, SearchAlgorithm::Pase, SearchAlgorithm::Brute};
}

std::vector<std::string> solverNames() {
    std::vector<std::string> out;
    for (SearchAlgorithm a : requestableAlgorithms())
        out.emplace_back(algorithmName(a));
    return out;
}

std::string solverNamesText() {
    std::string known;
    for (const std::string& n : solverNames())
        known += (known.empty() ? "" : ", ") + n;
    return known;
}

std::optional<SearchAlgorithm> findAlgorithm(std::string_view name) {
    const auto a = kAlgorithms.parse(name);
    return a && *a != SearchAlgorithm::Local ? a : std::nullopt;
}

SearchAlgorithm parseAlgorithm(const std::string& name, const std::string& option) {
    if (const auto a = findAlgorithm(name))
        return *a;
    throw InputError(option + " " + name + ": unknown algorithm (" + solverNamesText() + ")");
}

} // namespace shardscope

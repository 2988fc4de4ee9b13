#pragma once
// The names of the search algorithms: what the CLI's --algo, the window's search bar, a tactic's
// `auto(axis, algorithm)` and the reports use (the solvers themselves are in solver.h).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

/// A search algorithm: auto (tapas when the model has repeated layers, else pase), tapas, pase,
/// brute; local is the bounded fallback auto takes when an exact table grows too large.
enum class SearchAlgorithm { Auto, Tapas, Pase, Brute, Local };

/// "auto", "tapas", "pase", "brute", "local".
std::string_view algorithmName(SearchAlgorithm a);
/// The algorithm a user may ask for by `name` (auto, tapas, pase, brute). Throws InputError naming
/// `option` (such as "--algo") and the known names otherwise.
SearchAlgorithm parseAlgorithm(const std::string& name, const std::string& option = "--algo");
/// The algorithm a user may ask for by `name`; nullopt when unknown (or "local").
std::optional<SearchAlgorithm> findAlgorithm(std::string_view name);
/// The algorithms a user may ask for, in menu order.
std::vector<SearchAlgorithm> requestableAlgorithms();
/// Their names, for menus.
std::vector<std::string> solverNames();
/// Their names joined for messages: "auto, tapas, pase, brute".
std::string solverNamesText();

} // namespace shardscope

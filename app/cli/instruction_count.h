#pragma once
// Instruction counts for `bench --instructions`: each row's search run once in a fresh process under
// callgrind (valgrind's instruction counter), counted between client requests around search() alone.
// This kernel exposes no hardware counters, and callgrind's counts repeat exactly from run to run,
// where this 2-core machine's wall times move by up to 1.6x.

#include <optional>
#include <string>

namespace shardscope::cli {

/// `bench --count K`: runs the search of countableScenarios()[K] once, with callgrind's collection on
/// only inside search() (a no-op outside valgrind). Returns the exit status; 2 when K is out of range.
int runCountedSearch(int index);

/// The instructions of countableScenarios()[index]'s search, from valgrind run on this executable
/// with `bench --count`; nullopt with `error` set when valgrind is missing or fails.
std::optional<double> countInstructions(int index, std::string& error);

} // namespace shardscope::cli

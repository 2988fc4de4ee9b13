#pragma once
// Command-line options of shardscope-cli.

#include "engine/io/scenario.h"
#include "engine/search/settings_space.h"

#include <string>
#include <vector>

namespace shardscope::cli {

/// A parsed command line: the command, the scenario it describes and the output flags.
struct CliOptions {
    std::string command;         ///< models, clusters, evaluate, help
    ScenarioRequest scenario;
    bool json = false;
    std::string planOut;         ///< --plan-out PATH: save the evaluated plan
    std::string algorithm = "auto";  ///< search: --algo
    OpenSettings open;           ///< search: settings left to the search (--zero/--recompute/--microbatches auto or absent)
    std::string lockPlan;        ///< search: --lock PLAN.json
    bool meshAuto = false;       ///< search: --mesh auto
    int threads = 0;             ///< search: --threads (0 = hardware)
    bool quick = false;          ///< bench: --quick
    bool check = false;          ///< bench: --check (exit 1 when a row misses its target)
    std::string benchSuite = "all"; ///< bench: --suite all|speed|quality|fidelity (--fidelity)
    std::string benchOnly;       ///< bench: --only TEXT (the rows whose name contains it)
    bool instructions = false;   ///< bench: --instructions (each row's search counted under callgrind)
    int countScenario = -1;      ///< bench: --count K (internal: one search of scenario K, for --instructions)
    std::string tracePath;       ///< simulate: --trace out.json
    std::string eventsPath;      ///< simulate: --events out.json
    std::string devices;         ///< simulate: --devices all|0-7,64 (default: node 0 and one per class)
    std::string tacticsPath;     ///< search: --tactics FILE.tactics.json
    std::string explainOp;       ///< explain: --op NAME
    std::string measurements;    ///< calibrate: --measurements M.json
    std::string out;             ///< calibrate: --out C2.cluster.json; export: --out FILE
    std::string exportFormat;    ///< export: --format megatron
    std::vector<std::string> fit; ///< calibrate: --fit device,links,NAME...; empty: every parameter
};

/// Parses `args` (without the program name). Throws InputError naming the bad option.
CliOptions parseCliOptions(const std::vector<std::string>& args);
/// The usage text.
std::string usageText();

} // namespace shardscope::cli

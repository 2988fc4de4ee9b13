// shardscope-cli: the headless client of the engine (listings, evaluation, later search and bench).

#include "cli_options.h"
#include "commands.h"

#include "engine/util/error.h"

#include <iostream>
#include <new>

int main(int argc, char** argv) {
    using namespace shardscope;
    try {
        const cli::CliOptions options = cli::parseCliOptions(std::vector<std::string>(argv + 1, argv + argc));
        if (options.command == "help") {
            std::cout << cli::usageText();
            return 0;
        }
        if (options.command == "models")
            return cli::runModels(options, std::cout);
        if (options.command == "clusters")
            return cli::runClusters(options, std::cout);
        if (options.command == "simulate")
            return cli::runSimulate(options, std::cout);
        if (options.command == "bench")
            return cli::runBench(options, std::cout);
        if (options.command == "search")
            return options.tacticsPath.empty() ? cli::runSearch(options, std::cout) : cli::runTacticSearch(options, std::cout);
        if (options.command == "calibrate")
            return cli::runCalibrate(options, std::cout);
        if (options.command == "explain")
            return cli::runExplain(options, std::cout);
        if (options.command == "export")
            return cli::runExport(options, std::cout);
        if (options.command == "import")
            return cli::runImport(options, std::cout);
        return cli::runEvaluate(options, std::cout);
    } catch (const InputError& e) {
        std::cerr << "shardscope-cli: " << e.what() << "\n";
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "shardscope-cli: out of memory: the input asks for more than this machine holds\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "shardscope-cli: internal error: " << e.what() << "\n";
        return 1;
    }
}

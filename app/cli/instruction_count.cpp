#include "instruction_count.h"

#include "engine/bench/bench_common.h"
#include "engine/bench/bench_suite.h"
#include "engine/util/error.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <vector>

extern char** environ;

namespace shardscope::cli {

namespace {

/// The total of a callgrind output file: its "totals:" line (its "summary:" line counts 0 when
/// collection started switched off), nullopt without one.
std::optional<double> callgrindTotal(const std::string& path) {
    std::ifstream in(path);
    const std::string key = "totals: ";
    std::string line;
    std::optional<double> total;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            total = std::strtod(line.c_str() + key.size(), nullptr);
    return total;
}

} // namespace

int runCountedSearch(int index) {
    const std::vector<bench::BenchScenario> all = bench::countableScenarios();
    if (index < 0 || std::size_t(index) >= all.size())
        throw InputError("--count " + std::to_string(index) + ": expected a scenario index from 0 to " +
                         std::to_string(all.size() - 1));
    const SearchRequest request = bench::requestOf(all[std::size_t(index)]);
    CALLGRIND_START_INSTRUMENTATION;
    const auto result = search(request);
    CALLGRIND_STOP_INSTRUMENTATION;
    return result ? 0 : 1;
}

std::optional<double> countInstructions(int index, std::string& error) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
        error = "cannot find this executable (/proc/self/exe): " + ec.message();
        return std::nullopt;
    }
    char pattern[] = "/tmp/shardscope-callgrind-XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd < 0) {
        error = "cannot create a temporary file for callgrind";
        return std::nullopt;
    }
    close(fd);
    const std::string out = pattern;
    std::vector<std::string> args{"valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + out,
                                  self.string(), "bench", "--count", std::to_string(index)};
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, "valgrind", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    std::optional<double> total;
    int status = 0;
    if (spawned != 0)
        error = "valgrind not found (install Debian's valgrind package)";
    else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        error = "valgrind --tool=callgrind failed on scenario " + std::to_string(index);
    else if (!(total = callgrindTotal(out)))
        error = "callgrind wrote no total for scenario " + std::to_string(index);
    std::filesystem::remove(out, ec);
    return total;
}

} // namespace shardscope::cli

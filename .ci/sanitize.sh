#!/usr/bin/env bash
# The engine, the CLI and their tests built with AddressSanitizer + UndefinedBehaviorSanitizer
# (-O1, no GUI) into build-sanitize/, and every test run: any report fails the run. The CLI tests
# and the loader fuzzer run the instrumented shardscope-cli, so every abusive input they replay is
# checked too. tst_plan_floor (full searches and baseline contests on ten published scenarios: 16 s
# optimized, past Qt Test's 5-minute limit instrumented) and tst_one_clock (those searches again and
# every baseline simulated on their meshes: about 2.5 minutes optimized) run in ./test.sh only. Run after ./test.sh
# (which installs the dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-sanitize/CMakeCache.txt ]; then
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE="-O1" \
    -DSHARDSCOPE_GUI=OFF -DSHARDSCOPE_SANITIZE=ON
fi
cmake --build build-sanitize -j2
export ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure -j2 -E "^(tst_plan_floor|tst_one_clock)$" "$@"

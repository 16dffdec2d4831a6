// libFuzzer target: fusebox-benchdnn's input handling. The input is a JSON
// case and a command line of knobs (benchdnn syntax, lists, tags, attribute
// values, numbers of every shape); the driver lists the problems (--mode=L:
// load, rewrite, build, finalize, partition). Findings are crashes: any
// exception leaving the driver, a sanitizer report, a hang.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "../../tools/benchdnn/driver.hpp"

namespace {

const char *const kKnobs[] = {
    "--in-shapes=", "--op-attrs=",  "--op-kind=", "--dt=",          "--attr-fpmath=",    "--expected-n-partitions=",
    "--mb=",        "--impl=",      "--policy=",  "--num-threads=", "--max-ms-per-prb=", "--perf-template=",
    "--engine=",    "--io-shapes=", "--reset",    "--mode=",        "--cold-cache="};

// One case file per process, removed when it exits.
const std::string &case_path() {
    static const std::string path = "/tmp/fuzz_benchdnn_case_" + std::to_string(getpid()) + ".json";
    static const int removed = std::atexit([] { std::remove(path.c_str()); }); // (runs before path's destructor)
    (void)removed;
    return path;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    if (!std::freopen("/dev/null", "w", stdout)) return 0; // the driver prints a line per problem
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzedDataProvider in(data, size);
    std::vector<std::string> args;
    for (int n = in.ConsumeIntegralInRange<int>(0, 4); n-- > 0;) {
        std::string knob = kKnobs[in.ConsumeIntegralInRange<size_t>(0, std::size(kKnobs) - 1)];
        if (knob == "--mode=")
            knob += in.ConsumeBool() ? "L" : in.ConsumeRandomLengthString(3);
        else if (knob != "--reset")
            knob += in.ConsumeRandomLengthString(48);
        args.push_back(knob);
    }
    // Listing only: cases are loaded, rewritten and partitioned, never run.
    std::vector<std::string> all{"--mode=L"};
    all.insert(all.end(), args.begin(), args.end());
    for (std::string &a : all)
        if (a.rfind("--mode=", 0) == 0) a = "--mode=L";
    std::ofstream(case_path()) << in.ConsumeRemainingBytesAsString();
    all.push_back("--case=" + case_path());
    fbbench::driver d;
    if (d.run(all) == 0) d.finish();
    return 0;
}

// fusebox-benchdnn's command line: benchdnn's graph-driver knobs, each a
// comma-separated list whose cartesian product a --case line runs, in
// benchdnn's order.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../common/roof.hpp"
#include "graph_case.hpp"

namespace fbbench {

enum class outcome { passed, failed, skipped, mistrusted, unimplemented, invalid_arguments, listed };

/// The knob lists in force (until --reset): each --case runs their product.
struct knob_lists {
    std::vector<std::string> in_shapes{""}, op_attrs{""}, op_kind{""}, dt{""}, fpmath{""};
    std::vector<int64_t> expected_partitions{1}, mb{0};
    std::vector<std::string> impl{"auto"}, policy{"fusion"};
    std::vector<int> threads{0}; // 0: the whole default arena
    std::string in_values;       // ID:VALUE[+...]: inputs set to one value instead of drawn (not a list)
    /// Problems a --case runs: the product of the lists' sizes (saturating).
    size_t problems() const;
};

/// More problems than this from one --case is an argument error (lists
/// multiply: four knobs of 100 entries would be 10^8 problems).
constexpr size_t kMaxProblemsPerCase = 10000;

/// One problem: a case with one alternative of every knob.
struct problem {
    std::string path;
    case_knobs knobs;
    int64_t expected_partitions = 1;
    std::string impl = "auto", policy = "fusion";
    int threads = 0;
    std::string in_values; // ID:VALUE[+...]
    /// benchdnn's reproducer: the knobs that differ from their defaults, then the case.
    std::string repro(const std::string &mode) const;
};

/// Best and mean time of a case's runs.
struct timing {
    double min_ms = 0, avg_ms = 0;
    int runs = 0;
};

class driver {
public:
    /// Runs benchdnn-style arguments. Returns 0, or 2 after printing why an
    /// argument is malformed (nothing after it runs).
    int run(const std::vector<std::string> &args, const std::string &base_dir = "");
    /// Prints the performance table and the summary line; returns the exit
    /// status: 1 when a problem FAILED or had INVALID_ARGUMENTS, else 0.
    int finish();

private:
    void run_case(const std::string &path);
    void run_problem(const problem &p);
    /// Prints a performance row: `bytes` moved in `t`, against `roof` (null: none measured).
    void report_perf(const problem &p, const std::string &impl, size_t bytes, const timing &t,
                     const fbtools::memory_roof *roof, int threads, double compile_ms, double cache_hit_us);
    /// Times `run` for the case's budget and gives the roof of `t` in `roof`:
    /// one from --roof=FILE, or measured for this case in slices that
    /// alternate with the case's own (null with --roof=skip).
    timing time_case(const std::function<void()> &run, const fbtools::traffic &t, int threads,
                     const std::function<void(const std::function<void()> &)> &in_context,
                     const fbtools::memory_roof *&roof);
    std::string roof_key(const fbtools::traffic &t, int threads) const;
    void keep_roof(const std::string &key, const fbtools::memory_roof &r, int threads, size_t bytes);

    std::string mode_ = "C";
    knob_lists lists_;
    double max_ms_ = 1000;
    bool csv_ = false, csv_header_done_ = false;
    std::string roof_ = "measure"; // measure, skip, or a file of measured roofs to reuse
    std::map<std::string, fbtools::memory_roof> roofs_;
    std::map<outcome, int> counts_;
    int tests_ = 0;
    std::vector<std::string> table_; // one markdown row per performance problem
    int roof_defects_ = 0;           // cases faster than their roof by more than kRoofSlack
};

} // namespace fbbench

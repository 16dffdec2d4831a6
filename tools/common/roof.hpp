// The memory roof of a case: the fastest a trivial kernel moves the same
// bytes (the same read streams and the same write stream, each of its own
// size), measured in the same process the way STREAM measures: pages touched,
// warmed, best of many passes. The kernel is the best of many simple ones:
// every vector width the CPU has (capped by FUSEBOX_MAX_ISA like fusebox's
// own), ordinary and non-temporal stores, streams in lockstep, in bursts or
// in a straight loop, with and without software prefetch, on 1, 2, 4, ... up
// to the run's thread count. The working set's size decides which memory
// level (L1, L2, LLC, DRAM) the roof is a roof of.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace fbtools {

/// Bytes each stream of a case moves per execution.
struct traffic {
    std::vector<size_t> reads; // one entry per input read
    size_t write = 0;          // the output written
    // Where the streams live, when given (else the roof allocates its own):
    // the case's own buffers, 64-byte aligned, each with a cache line of
    // slack past its bytes. On a virtual machine the speed of memory depends
    // on the pages (how the host backs them): the roof of a case is then
    // measured on the very pages the case uses.
    std::vector<unsigned char *> read_at;
    unsigned char *write_at = nullptr;
    size_t total() const;
};

struct memory_roof {
    double gbps = 0;       // the roof: the best of the two below
    double plain_gbps = 0; // ordinary stores
    double nt_gbps = 0;    // non-temporal stores
    int threads = 1;       // thread count the best figure used
    std::string kernel;    // the simple kernel that reached it, e.g. "AVX2 nt straight prefetch"
    std::string level;     // "L1", "L2", "LLC" or "DRAM": where the working set lives
};

/// The roof of `t` on up to `threads` threads, measured in slices: every
/// variant is screened with a pass when the session starts, then each run()
/// times the best few. A case's own runs can alternate with the slices, so
/// that both see the same machine (a shared machine's bandwidth drifts by a
/// third within seconds).
class roof_session {
public:
    roof_session(const traffic &t, int threads);
    ~roof_session();
    roof_session(const roof_session &) = delete;
    roof_session &operator=(const roof_session &) = delete;
    /// The finalists share `budget_ms` (at least a few passes each).
    void run(double budget_ms);
    /// Every variant another pass, and the finalists chosen again from their
    /// best: two passes each can miss the fastest on a noisy machine.
    void rescreen();
    /// The best of every run so far.
    memory_roof result() const;

private:
    void choose_finalists();
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// Measures the roof of `t` in one go: a session run for `budget_ms` (give it
/// the budget of the case it is a roof for: a best of fewer runs is lower by chance).
memory_roof measure_roof(const traffic &t, int threads, double budget_ms = 1000);

/// "L1", "L2", "LLC" or "DRAM" for a working set of `bytes` on this CPU.
std::string memory_level(size_t bytes);

} // namespace fbtools

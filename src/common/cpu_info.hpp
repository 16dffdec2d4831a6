// What fusebox's tuning reads from the CPU it runs on: the data cache sizes it
// reports, read once. Every size-dependent constant of the kernels derives
// from these, never from one machine's measurements.
#pragma once

#include <cstdint>

namespace fusebox::detail {

struct cpu_caches {
    int64_t l1d; // bytes of L1 data cache per core
    int64_t l2;  // bytes of L2 per core
    int64_t llc; // bytes of the last-level cache (L3, or L2 without one)
};

/// The caches as the OS reports them; a size the OS does not report takes a
/// conservative default (32 KiB L1d, 512 KiB L2, an LLC of 4x the L2).
const cpu_caches &caches();

} // namespace fusebox::detail

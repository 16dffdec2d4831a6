// The memory-bandwidth roof: a STREAM-style add (c = a + b) over buffers far
// larger than the last-level cache, on a given number of TBB threads.
#pragma once

#include <cstddef>

namespace fbtools {

struct memory_roof {
    double plain_gbps = 0; // ordinary stores
    double nt_gbps = 0;    // non-temporal (streaming) stores
    double best() const { return plain_gbps > nt_gbps ? plain_gbps : nt_gbps; }
};

/// Counts 3 arrays of `elems` floats per pass (two read, one written), best
/// of `reps` passes, for each store kind. The default, 3 x 512 MiB, is several
/// times the largest last-level caches of the machines this runs on.
memory_roof measure_memory_roof(int threads, size_t elems = size_t{1} << 27, int reps = 8);

} // namespace fbtools

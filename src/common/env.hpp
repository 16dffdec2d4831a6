// The environment variables fusebox reads, each parsed in one place. A
// malformed value is never ignored: every call that needs it throws
// invalid_arguments naming the variable, the value and what it accepts.
#pragma once

#include <string>

namespace fusebox::detail {

/// FUSEBOX_VERBOSE: 0 (unset), 1 or 2. Read once.
int env_verbose();

/// FUSEBOX_NUM_THREADS: a positive thread cap, or 0 when unset. Read once.
int env_num_threads();

/// FUSEBOX_KERNEL: which kernel compile uses. Read at every compile, so a
/// tool may switch it between compiles.
enum class kernel_choice { automatic, onednn, native };
kernel_choice env_kernel();

/// FUSEBOX_MAX_ISA: the highest instruction set fusebox's own kernels may
/// use, as a Highway target name ("AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR"),
/// or empty when unset (the best the CPU has). Read once.
const std::string &env_max_isa();

/// FUSEBOX_GRAPH_DUMP: bits of fusebox_dump_mode_t. Read once.
unsigned env_graph_dump();

/// FUSEBOX_GRAPH_DUMP_DIR: where dumps go ("." when unset). Read at every dump.
std::string env_graph_dump_dir();

} // namespace fusebox::detail

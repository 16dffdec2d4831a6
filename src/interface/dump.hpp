// Graph dumps: finalized graphs and compiled partitions written as oneDNN
// Graph JSON (the format of benchdnn_cases/), which fusebox-benchdnn replays.
#pragma once

#include <string>
#include <vector>

#include "interface/graph_impl.hpp"

namespace fusebox::detail {

/// "strict", "bf16", ... as oneDNN Graph's JSON spells fpmath modes.
const char *fpmath_name(fpmath_mode m);
/// "undef", "any", "strided", "opaque", as oneDNN Graph's JSON spells layout types.
const char *layout_name(logical_tensor::layout_type l);

/// The dump bits in force: set_dump_mode's, else FUSEBOX_GRAPH_DUMP's.
unsigned dump_mode();

/// Writes `g` to fusebox-graph-<id>.json when the graph bit is set.
void dump_graph(const graph_impl &g);

/// Writes a compiled partition, `ops` carrying the concrete logical tensors of
/// the compile, to fusebox-graph-<graph id>-partition-<id>-<key hash>.json
/// when the subgraph bit is set.
void dump_partition(const partition_impl &p, const std::vector<op> &ops, const std::vector<logical_tensor> &inputs,
                    const std::vector<logical_tensor> &outputs, const std::string &key);

/// The JSON text of a graph of `ops` with the given ports.
std::string graph_json(engine::kind k, fpmath_mode math, bool math_applies_to_int, const std::vector<op> &ops,
                       const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs);

} // namespace fusebox::detail

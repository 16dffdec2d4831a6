// The canonical form of a partition compiled for concrete shapes: a list of
// nodes of up to kMaxArgs inputs over operands that are all indexed in one
// iteration space.
#pragma once

#include <string>

#include "fusebox/fusebox.hpp"
#include "ops/elementwise.hpp"

namespace fusebox::detail {

using dims = logical_tensor::dims;

/// One use of a partition input, with strides over the iteration space
/// (0 where the input is broadcast).
struct operand {
    size_t port; // index into fused_expr::inputs, then into fused_expr::constants
    dims strides;
};

/// A scalar a partition computes with that is no input (Mean's count, Pow's
/// `beta`): the element's bytes in the low bytes of `bits`.
struct constant {
    data_type dt;
    uint64_t bits;
};

constexpr int kMaxArgs = 3;

/// One op of the partition: its catalogue function over args[0, n_args). An
/// arg >= 0 is an operand index; arg < 0 is the result of node ~arg
/// (computed earlier, over the whole iteration space).
struct expr_node {
    op::kind kind; // as the graph spelled it (logs)
    ew_fn fn;
    int n_args;
    data_type in_dt[kMaxArgs];
    data_type out_dt;
    int arg[kMaxArgs];
};

/// An output besides the last node's (a tensor the partition computes on the
/// way that is also read outside it): node `node`'s result, of the
/// iteration space's shape, written with `strides` over it.
struct side_output {
    logical_tensor port; // compiled output port
    int node;
    dims strides;
};

struct fused_expr {
    std::vector<logical_tensor> inputs; // compiled input ports, in partition port order
    logical_tensor output;              // compiled output port of the last node
    std::vector<side_output> sides;     // the other output ports, in partition port order after `output`
    std::vector<expr_node> nodes;       // evaluation order; the last node produces `output`
    std::vector<operand> operands;
    std::vector<constant> constants; // operand port inputs.size() + k is constants[k] (strides all 0)
    // Iteration space: the output shape with size-1 dims dropped and adjacent
    // dims merged wherever every operand and the output allow it.
    dims shape;
    dims out_strides;

    int64_t numel() const;
    /// The element type of an operand (an input's or a constant's).
    data_type operand_type(const operand &o) const;
    bool is_constant(const operand &o) const { return o.port >= inputs.size(); }
    /// The index of operand `use` in `operands`, added if new.
    int operand_index(operand use);
    /// Comma-free form for the verbose log and tests: the iteration space,
    /// the output strides, then each node with its operands as input ports
    /// and strides, e.g. "shape=64x4096 out=4096s1 n0=Add(f32 in0:4096s1 f32 in1:0s1)->f32".
    std::string to_string() const;
    /// Makes `shape`, `out_strides` and the operands' strides canonical:
    /// size-1 dims dropped, the rest ordered by the output's strides and
    /// merged wherever every operand and the output allow it, the unit-stride
    /// dim of an operand read across the inner dim moved next to it.
    void merge_dims();
};

} // namespace fusebox::detail

#include "compile/canonicalize.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <sstream>

#include "common/checked.hpp"
#include "common/errors.hpp"
#include "interface/dtype.hpp"
#include "interface/handles.hpp"
#include "kernels/native/half.hpp"
#include "ops/elementwise.hpp"

namespace fusebox::detail {
namespace {

const logical_tensor &given_for(const std::vector<logical_tensor> &given, const logical_tensor &port, const char *what,
                                size_t partition_id) {
    for (const auto &lt : given)
        if (lt.get_id() == port.get_id()) return lt;
    fail(status::invalid_arguments, "compile: partition ", partition_id, ": no logical tensor given for ", what,
         " tensor id ", port.get_id());
}

// Strides that give every element its own address (checked conservatively:
// sorted by stride, each stride reaches past the previous dim's extent).
bool non_overlapping(const dims &shape, const dims &strides) {
    std::vector<size_t> order;
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] > 1) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
    int64_t reach = 1;
    for (size_t i : order) {
        if (strides[i] < reach) return false;
        auto next = checked_mul(strides[i], shape[i]);
        if (!next) return false;
        reach = *next;
    }
    return true;
}

// Where `given` contradicts `expected` (unknown extents match anything), for
// messages: "rank 3, not 4" or "dim 1 is 5, not 6"; empty when they agree.
std::string mismatch(const dims &given, const dims &expected) {
    if (given.size() != expected.size())
        return "rank " + std::to_string(given.size()) + ", not " + std::to_string(expected.size());
    for (size_t i = 0; i < given.size(); ++i)
        if (given[i] >= 0 && expected[i] >= 0 && given[i] != expected[i])
            return "dim " + std::to_string(i) + " is " + std::to_string(given[i]) + ", not " +
                   std::to_string(expected[i]);
    return {};
}

bool has_zero_dim(const dims &d) { return std::find(d.begin(), d.end(), 0) != d.end(); }

// Every element's offset and the byte span must be representable: a byte
// count that fits size_t but not a signed 64-bit offset is too large too.
void check_addressable(const logical_tensor &lt, const char *what, size_t pid) {
    const size_t bytes = lt.get_mem_size();
    if ((bytes == 0 && !has_zero_dim(dims_of(lt))) || bytes > static_cast<size_t>(INT64_MAX))
        fail(status::invalid_shape, "compile: partition ", pid, ": ", what, " tensor ", lt.get_id(), " of shape ",
             shape_str(lt), " is too large to address");
}

logical_tensor check_input(const logical_tensor &port, const logical_tensor &lt, size_t pid) {
    const size_t id = lt.get_id();
    if (lt.get_data_type() == data_type::undef)
        fail(status::invalid_data_type, "compile: partition ", pid, ": input tensor ", id, " has no data type");
    if (port.get_data_type() != data_type::undef && lt.get_data_type() != port.get_data_type())
        fail(status::invalid_data_type, "compile: partition ", pid, ": input tensor ", id, " has type ",
             data_type_name(lt.get_data_type()), ", the partition expects ", data_type_name(port.get_data_type()));
    if (!lt.has_known_shape())
        fail(status::invalid_shape, "compile: partition ", pid, ": input tensor ", id, " has unknown shape ",
             shape_str(lt));
    if (lt.get_layout_type() == logical_tensor::layout_type::undef)
        fail(status::invalid_arguments, "compile: partition ", pid, ": input tensor ", id, " has an undefined layout");
    if (lt.get_layout_type() == logical_tensor::layout_type::opaque)
        fail(status::invalid_arguments, "compile: partition ", pid, ": input tensor ", id,
             " has an opaque layout; fusebox reads strided layouts only (and never produces opaque ones)");
    if (port.get_ndims() >= 0)
        if (std::string m = mismatch(dims_of(lt), dims_of(port)); !m.empty())
            fail(status::invalid_shape, "compile: partition ", pid, ": input tensor ", id, " has shape ", shape_str(lt),
                 ", the partition expects ", shape_str(port), " (", m, ")");
    for (int64_t s : strides_of(lt))
        if (s < 0)
            fail(status::invalid_shape, "compile: partition ", pid, ": input tensor ", id, " has stride ",
                 s == FUSEBOX_UNKNOWN_DIM || s == -1 ? "unknown" : "negative", " in ", shape_str(strides_of(lt)));
    check_addressable(lt, "input", pid);
    if (lt.get_layout_type() == logical_tensor::layout_type::any) // an input left to us is dense
        return logical_tensor(id, lt.get_data_type(), dims_of(lt), logical_tensor::layout_type::strided,
                              lt.get_property_type());
    return lt;
}

// Dense strides for `shape` with its dims laid out in the order of `like`'s
// strides (outermost first; size-1 dims and ties keep their logical order).
dims dense_strides_like(const dims &shape, const dims &like) {
    std::vector<size_t> order(shape.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const bool ba = shape[a] > 1, bb = shape[b] > 1;
        return ba && bb && like[a] > like[b];
    });
    dims strides(shape.size());
    int64_t next = 1;
    for (size_t i = order.size(); i-- > 0;) {
        strides[order[i]] = next;
        next = saturating_mul(next, std::max<int64_t>(shape[order[i]], 1));
    }
    return strides;
}

// The output as compiled. An output whose layout is left to fusebox (any, or
// unknown strides) is dense, in the dim order of `like` when given: the
// first input covering the whole output, so that a channels-last graph stays
// channels-last and may run in place.
logical_tensor resolve_output(const logical_tensor &lt, data_type dt, const dims &shape, const logical_tensor *like,
                              size_t pid) {
    const size_t id = lt.get_id();
    if (lt.get_data_type() != data_type::undef && lt.get_data_type() != dt)
        fail(status::invalid_data_type, "compile: partition ", pid, ": output tensor ", id, " has type ",
             data_type_name(lt.get_data_type()), ", the partition produces ", data_type_name(dt));
    if (lt.get_ndims() >= 0)
        if (std::string m = mismatch(dims_of(lt), shape); !m.empty())
            fail(status::invalid_shape, "compile: partition ", pid, ": output tensor ", id, " has shape ",
                 shape_str(lt), ", the partition produces ", shape_str(shape), " (", m, ")");
    if (lt.get_layout_type() == logical_tensor::layout_type::opaque)
        fail(status::invalid_arguments, "compile: partition ", pid, ": output tensor ", id,
             " asks for an opaque layout; fusebox produces strided layouts (ask for any or strided)");
    // Strides that are all known are the caller's layout; with any unknown the output is dense.
    const auto &given = strides_of(lt);
    for (int64_t s : given)
        if (s < 0 && s != -1 && s != FUSEBOX_UNKNOWN_DIM)
            fail(status::invalid_shape, "compile: partition ", pid, ": output tensor ", id,
                 " has a negative stride in ", shape_str(given));
    const bool explicit_strides = lt.get_layout_type() == logical_tensor::layout_type::strided &&
                                  lt.has_known_shape() && given.size() == shape.size() &&
                                  std::all_of(given.begin(), given.end(), [](int64_t s) { return s >= 0; });
    if (!explicit_strides) {
        logical_tensor dense =
            like ? logical_tensor(id, dt, shape, dense_strides_like(shape, strides_of(*like)), lt.get_property_type())
                 : logical_tensor(id, dt, shape, logical_tensor::layout_type::strided, lt.get_property_type());
        check_addressable(dense, "output", pid);
        return dense;
    }
    if (!non_overlapping(shape, strides_of(lt)))
        fail(status::invalid_arguments, "compile: partition ", pid, ": output tensor ", id, " has strides ",
             shape_str(strides_of(lt)), " for shape ", shape_str(shape),
             " under which elements overlap (or dims interleave), so one element would be written twice");
    logical_tensor strided(id, dt, shape, strides_of(lt), lt.get_property_type());
    check_addressable(strided, "output", pid);
    return strided;
}

// The bytes of `v` as an element of `dt` (a float type: rounded to nearest
// even; an integer type: `v` is one of its values).
uint64_t constant_bits(data_type dt, long double v) {
    uint64_t bits = 0;
    const double d = static_cast<double>(v);
    const float f = static_cast<float>(v);
    switch (dt) {
    case data_type::f64: std::memcpy(&bits, &d, 8); break;
    case data_type::f32: std::memcpy(&bits, &f, 4); break;
    case data_type::f16: bits = f32_to_f16(f); break;
    case data_type::bf16: bits = f32_to_bf16(f); break;
    case data_type::u64: bits = static_cast<uint64_t>(v); break;
    default:
        if (!is_integer(dt)) fail(status::unimplemented, "compile: no constant of type ", data_type_name(dt));
        bits = static_cast<uint64_t>(static_cast<int64_t>(v)); // the low bytes are the element
    }
    return bits;
}

} // namespace

fused_expr build_fused_expr(const partition_impl &part, const std::vector<logical_tensor> &inputs,
                            const std::vector<logical_tensor> &outputs, std::vector<op> *concrete_ops) {
    const size_t pid = part.id;
    if (inputs.size() != part.inputs.size() || outputs.size() != part.outputs.size())
        fail(status::invalid_arguments, "compile: partition ", pid, " has ", part.inputs.size(), " inputs and ",
             part.outputs.size(), " outputs, got ", inputs.size(), " and ", outputs.size());
    fused_expr e;
    std::map<size_t, dims> shape_of;     // tensor id -> concrete shape
    std::map<size_t, data_type> type_of; // tensor id -> concrete type
    std::map<size_t, size_t> port_of;    // tensor id -> input port
    std::map<size_t, int> node_of;       // tensor id -> producing node
    for (size_t k = 0; k < part.inputs.size(); ++k) {
        e.inputs.push_back(check_input(part.inputs[k], given_for(inputs, part.inputs[k], "input", pid), pid));
        shape_of[e.inputs[k].get_id()] = dims_of(e.inputs[k]);
        type_of[e.inputs[k].get_id()] = e.inputs[k].get_data_type();
        port_of[e.inputs[k].get_id()] = k;
    }

    // Types and shapes through the ops, from the given inputs (types left
    // unknown at finalize, behind ops fusebox does not run, are known now).
    // Each op becomes one or more nodes (its row's lowering); a node's arg
    // names an input of its op (>= 0), a node before it (~n) or a constant
    // (kConstant - k) until the walk below resolves the inputs to operands.
    constexpr int kConstant = -(1 << 20);
    std::vector<size_t> first_node(part.ops.size()); // the first node of each op; its last is the next op's first - 1
    for (size_t i = 0; i < part.ops.size(); ++i) {
        const op &o = part.ops[i];
        const auto &in = o.get_inputs();
        std::vector<data_type> types;
        std::vector<dims> shapes;
        for (const auto &lt : in) types.push_back(type_of.at(lt.get_id())), shapes.push_back(shape_of.at(lt.get_id()));
        shape_of[o.get_outputs()[0].get_id()] = infer_output_shape(o, shapes);
        const data_type out = infer_output_type(o, types), declared = o.get_outputs()[0].get_data_type();
        if (declared != data_type::undef && declared != out) {
            std::string names;
            for (size_t k = 0; k < types.size(); ++k) names += (k ? ", " : "") + std::string(data_type_name(types[k]));
            fail(status::invalid_data_type, "compile: partition ", pid, ": ", op_ref(o), ": output type ",
                 data_type_name(declared), " does not match ", data_type_name(out), " for inputs (", names, ")");
        }
        type_of[o.get_outputs()[0].get_id()] = out;
        first_node[i] = e.nodes.size();
        auto add_node = [&](ew_fn fn, std::initializer_list<int> args, std::initializer_list<data_type> in_dt) {
            expr_node n{o.get_kind(), fn, static_cast<int>(args.size()), {}, out, {}};
            std::copy(args.begin(), args.end(), n.arg);
            std::copy(in_dt.begin(), in_dt.end(), n.in_dt);
            e.nodes.push_back(n);
            return ~static_cast<int>(e.nodes.size() - 1);
        };
        auto add_constant = [&](data_type dt, long double v) {
            e.constants.push_back({dt, constant_bits(dt, v)});
            return kConstant - static_cast<int>(e.constants.size() - 1);
        };
        const elementwise_def &def = *find_elementwise(o.get_kind());
        const int n_in = static_cast<int>(in.size());
        switch (def.lower) {
        case lowering::one_node:
            if (n_in == 1 && def.has_attr(op::attr::beta)) { // oneDNN's Pow: the exponent is `beta`
                add_node(kernel_fn(o), {0, add_constant(data_type::f32, pow_beta(o))}, {types[0], data_type::f32});
            } else {
                expr_node n{o.get_kind(), kernel_fn(o), n_in, {}, out, {}};
                for (int k = 0; k < n_in; ++k) n.arg[k] = k, n.in_dt[k] = types[k];
                e.nodes.push_back(n);
            }
            break;
        case lowering::fold:
        case lowering::mean: {
            int acc = n_in == 1 ? add_node(ew_fn::identity, {0}, {types[0]}) : add_node(def.fn, {0, 1}, {out, out});
            for (int k = 2; k < n_in; ++k) acc = add_node(def.fn, {acc, k}, {out, out});
            if (def.lower == lowering::mean && n_in > 1)
                add_node(ew_fn::divide, {acc, add_constant(out, n_in)}, {out, out});
            break;
        }
        case lowering::with_params: {
            const node_params p = op_params(o, types[0]);
            expr_node n{o.get_kind(), kernel_fn(o), n_in + static_cast<int>(p.values.size()), {}, out, {}};
            for (int k = 0; k < n_in; ++k) n.arg[k] = k, n.in_dt[k] = types[k];
            for (size_t k = 0; k < p.values.size(); ++k)
                n.arg[n_in + k] = add_constant(p.dt, p.values[k]), n.in_dt[n_in + k] = p.dt;
            e.nodes.push_back(n);
            break;
        }
        }
        node_of[o.get_outputs()[0].get_id()] = static_cast<int>(e.nodes.size() - 1);
    }
    const auto &root = part.ops.back().get_outputs()[0];
    const dims &out_shape = shape_of.at(root.get_id());
    const logical_tensor *like = nullptr;
    for (const auto &in : e.inputs)
        if (!like && dims_of(in) == out_shape) like = &in;
    e.output = resolve_output(given_for(outputs, root, "output", pid), type_of.at(root.get_id()), out_shape, like, pid);
    e.shape = dims_of(e.output);
    e.out_strides = strides_of(e.output);
    // The other outputs (the partitioner gives them the root's shape), laid
    // out like it where left to fusebox; their strides come with the walk below.
    for (size_t k = 0; k < part.outputs.size(); ++k) {
        const logical_tensor &port = part.outputs[k];
        if (port.get_id() == root.get_id()) continue;
        const size_t id = port.get_id();
        if (shape_of.at(id) != out_shape)
            fail(status::unimplemented, "compile: partition ", pid, ": output tensor ", id, " has shape ",
                 shape_str(shape_of.at(id)), ", not the shape of output ", root.get_id(), " ", shape_str(out_shape),
                 ": one pass writes outputs of one shape");
        e.sides.push_back(
            {resolve_output(given_for(outputs, port, "output", pid), type_of.at(id), out_shape, &e.output, pid),
             node_of.at(id),
             {}});
    }

    // Walk from the root to the leaves, lining every operand's dims up with the
    // output's (pos: output dim of each dim of an op's result, -1 for none),
    // and resolve the nodes' args to operands and nodes.
    const size_t rank = e.shape.size();
    const size_t n_ops = part.ops.size();
    std::vector<std::vector<int>> pos(n_ops);
    std::map<size_t, size_t> op_of; // tensor id -> producing op
    for (size_t i = 0; i < n_ops; ++i) op_of[part.ops[i].get_outputs()[0].get_id()] = i;
    pos.back().resize(rank);
    std::iota(pos.back().begin(), pos.back().end(), 0);
    for (size_t i = n_ops; i-- > 0;) {
        const op &o = part.ops[i];
        const size_t op_rank = shape_of.at(o.get_outputs()[0].get_id()).size();
        if (pos[i].empty()) { // read by no later op: an output of the root's shape (a side output)
            pos[i].resize(rank);
            std::iota(pos[i].begin(), pos[i].end(), 0);
        }
        std::vector<int> resolved(o.get_inputs().size());
        for (size_t k = 0; k < o.get_inputs().size(); ++k) {
            const size_t id = o.get_inputs()[k].get_id();
            const dims &shape = shape_of.at(id);
            std::vector<int> map = input_dim_map(o, k, shape, op_rank), p(shape.size(), -1);
            for (size_t d = 0; d < shape.size(); ++d)
                if (map[d] >= 0) p[d] = pos[i][map[d]];
            if (auto it = op_of.find(id); it != op_of.end()) {
                pos[it->second] = p;
                resolved[k] = ~node_of.at(id);
                continue;
            }
            operand use{port_of.at(id), dims(rank, 0)};
            const dims &strides = strides_of(e.inputs[use.port]);
            for (size_t d = 0; d < shape.size(); ++d)
                if (shape[d] != 1) use.strides[p[d]] = strides[d];
            resolved[k] = e.operand_index(std::move(use));
        }
        for (side_output &side : e.sides)
            if (side.port.get_id() == o.get_outputs()[0].get_id()) {
                side.strides.assign(rank, 0);
                const dims &strides = strides_of(side.port);
                for (size_t d = 0; d < rank; ++d)
                    if (e.shape[d] != 1) side.strides.at(static_cast<size_t>(pos[i].at(d))) = strides[d];
            }
        const size_t end = i + 1 < n_ops ? first_node[i + 1] : e.nodes.size();
        for (size_t n = first_node[i]; n < end; ++n)
            for (int k = 0; k < e.nodes[n].n_args; ++k) {
                int &a = e.nodes[n].arg[k];
                if (a >= 0)
                    a = resolved[a];
                else if (a <= kConstant)
                    a = e.operand_index({e.inputs.size() + static_cast<size_t>(kConstant - a), dims(rank, 0)});
            }
    }
    if (concrete_ops) {
        for (const op &o : part.ops) {
            op c = access::clone(o);
            auto concrete = [&](logical_tensor &lt) {
                const size_t id = lt.get_id();
                if (auto it = port_of.find(id); it != port_of.end())
                    lt = e.inputs[it->second];
                else if (id == e.output.get_id())
                    lt = e.output;
                else if (auto side = std::find_if(e.sides.begin(), e.sides.end(),
                                                  [&](const side_output &x) { return x.port.get_id() == id; });
                         side != e.sides.end())
                    lt = side->port;
                else
                    lt = logical_tensor(id, type_of.at(id), shape_of.at(id));
            };
            for (auto &lt : access::inputs(c)) concrete(lt);
            for (auto &lt : access::outputs(c)) concrete(lt);
            concrete_ops->push_back(std::move(c));
        }
    }
    e.merge_dims();
    return e;
}

} // namespace fusebox::detail

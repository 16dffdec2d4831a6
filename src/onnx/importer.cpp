// ONNX ModelProto -> fusebox graph (include/fusebox/onnx.hpp).
//
// One pass over the nodes in dependency order: each ai.onnx node fusebox
// runs is checked against the version of its op that the model's opset puts
// in force (onnx_schemas.inc: attributes, input counts, type constraints) and
// becomes the fusebox op with that version's semantics; Constant nodes and
// initializers become constant tensors; every other node a Wildcard.
#include "fusebox/onnx.hpp"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "onnx/onnx_internal.hpp"

namespace fusebox {
namespace onnx {
namespace {

using ::onnx::AttributeProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

struct schema_row {
    const char *op;
    int since;
    const char *attrs; // space separated
    int min_inputs, max_inputs;
    int input_param[3];
    int output_param;
    uint32_t types[3];
};

const schema_row kSchemas[] = {
#include "onnx/onnx_schemas.inc"
};

// ONNX op types and the fusebox kinds they become (ELEMENTWISE.md).
const std::map<std::string, op::kind> &onnx_kinds() {
    static const std::map<std::string, op::kind> kinds = {
        {"Add", op::kind::Add},
        {"Sub", op::kind::Subtract},
        {"Mul", op::kind::Multiply},
        {"Div", op::kind::Divide},
        {"Max", op::kind::Maximum},
        {"Min", op::kind::Minimum},
        {"Equal", op::kind::Equal},
        {"Greater", op::kind::Greater},
        {"GreaterOrEqual", op::kind::GreaterEqual},
        {"Less", op::kind::Less},
        {"LessOrEqual", op::kind::LessEqual},
        {"And", op::kind::LogicalAnd},
        {"Or", op::kind::LogicalOr},
        {"Xor", op::kind::LogicalXor},
        {"Not", op::kind::LogicalNot},
        {"BitwiseAnd", op::kind::BitwiseAnd},
        {"BitwiseOr", op::kind::BitwiseOr},
        {"BitwiseXor", op::kind::BitwiseXor},
        {"BitwiseNot", op::kind::BitwiseNot},
        {"BitShift", op::kind::BitShift},
        {"Where", op::kind::Where},
        {"Mod", op::kind::Mod},
        {"Sum", op::kind::Sum},
        {"Mean", op::kind::Mean},
        {"Pow", op::kind::Pow},
        {"PRelu", op::kind::PReLU},
        {"Abs", op::kind::Abs},
        {"Neg", op::kind::Neg},
        {"Sign", op::kind::Sign},
        {"Floor", op::kind::Floor},
        {"Ceil", op::kind::Ceil},
        {"Round", op::kind::Round},
        {"Sqrt", op::kind::Sqrt},
        {"Reciprocal", op::kind::Reciprocal},
        {"Relu", op::kind::ReLU},
        {"LeakyRelu", op::kind::LeakyReLU},
        {"HardSigmoid", op::kind::HardSigmoid},
        {"HardSwish", op::kind::HardSwish},
        {"Softsign", op::kind::Softsign},
        {"Clip", op::kind::Clip},
        {"IsNaN", op::kind::IsNaN},
        {"IsInf", op::kind::IsInf},
        {"Exp", op::kind::Exp},
        {"Log", op::kind::Log},
        {"Tanh", op::kind::Tanh},
        {"Sigmoid", op::kind::Sigmoid},
        {"Erf", op::kind::Erf},
        {"Elu", op::kind::Elu},
        {"Selu", op::kind::Selu},
        {"Softplus", op::kind::SoftPlus},
        {"Mish", op::kind::Mish},
        {"Gelu", op::kind::GELU},
        {"Cast", op::kind::Cast},
    };
    return kinds;
}

const char *onnx_type_name(int t) {
    static const char *names[] = {"undefined",      "float",    "uint8",        "int8",           "uint16",
                                  "int16",          "int32",    "int64",        "string",         "bool",
                                  "float16",        "double",   "uint32",       "uint64",         "complex64",
                                  "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
                                  "float8e5m2fnuz", "uint4",    "int4"};
    return t >= 0 && t < static_cast<int>(sizeof names / sizeof *names) ? names[t] : "unknown";
}

[[noreturn]] void fail(status s, const std::string &what) { throw error(s, "onnx import: " + what); }

std::string node_ref(const node &n) { return "node '" + n.name + "' (" + n.op_type + ")"; }

// The version of `op` in force at `opset`, or null when the op is newer.
const schema_row *version_in_force(const std::string &op, int64_t opset) {
    const schema_row *best = nullptr;
    for (const schema_row &r : kSchemas)
        if (op == r.op && r.since <= opset && (!best || r.since > best->since)) best = &r;
    return best;
}

// True when type set `m` holds TensorProto data type `t`.
bool allows(uint32_t m, int t) { return t > 0 && t < 32 && (m >> t & 1u); }

bool has_attr(const schema_row &r, const std::string &name) {
    std::istringstream in(r.attrs);
    for (std::string a; in >> a;)
        if (a == name) return true;
    return false;
}

// The newest opset the schema table describes.
int64_t newest_known_opset() {
    int64_t v = 0;
    for (const schema_row &r : kSchemas) v = std::max<int64_t>(v, r.since);
    return v;
}

template <typename T> void put(std::vector<unsigned char> &out, size_t i, T v) {
    std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

} // namespace

data_type to_fusebox_type(int onnx_type) {
    switch (onnx_type) {
    case TensorProto::FLOAT: return data_type::f32;
    case TensorProto::UINT8: return data_type::u8;
    case TensorProto::INT8: return data_type::s8;
    case TensorProto::UINT16: return data_type::u16;
    case TensorProto::INT16: return data_type::s16;
    case TensorProto::INT32: return data_type::s32;
    case TensorProto::INT64: return data_type::s64;
    case TensorProto::STRING: return data_type::string;
    case TensorProto::BOOL: return data_type::boolean;
    case TensorProto::FLOAT16: return data_type::f16;
    case TensorProto::DOUBLE: return data_type::f64;
    case TensorProto::UINT32: return data_type::u32;
    case TensorProto::UINT64: return data_type::u64;
    case TensorProto::BFLOAT16: return data_type::bf16;
    case 17: return data_type::f8_e4m3; // FLOAT8E4M3FN
    case 19: return data_type::f8_e5m2; // FLOAT8E5M2
    case 21: return data_type::u4;
    case 22: return data_type::s4;
    default: return data_type::undef; // complex, the fnuz float8 types
    }
}

const char *onnx_type_label(int onnx_type) { return onnx_type_name(onnx_type); }

bool is_onnx_elementwise(const std::string &op_type) { return onnx_kinds().count(op_type) != 0; }

// A TensorProto's elements, dense, as fusebox lays them out.
owned_tensor read_tensor_proto(const TensorProto &t, size_t id, data_type read_as) {
    if (t.data_location() == TensorProto::EXTERNAL)
        fail(status::unimplemented, "tensor '" + t.name() + "' keeps its data in an external file");
    data_type type = to_fusebox_type(t.data_type());
    if (read_as == data_type::bf16 && t.data_type() == TensorProto::UINT16) type = data_type::bf16;
    if (type == data_type::undef || type == data_type::u4 || type == data_type::s4 || type == data_type::f8_e4m3 ||
        type == data_type::f8_e5m2)
        fail(status::unimplemented, std::string("tensor '") + t.name() + "' of ONNX type " +
                                        onnx_type_name(t.data_type()) + ": fusebox reads no data of this type");
    logical_tensor::dims shape(t.dims().begin(), t.dims().end());
    size_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) fail(status::invalid_shape, "tensor '" + t.name() + "' has a negative dim");
        if (d > 0 && n > (size_t{1} << 48) / static_cast<size_t>(d))
            fail(status::invalid_shape, "tensor '" + t.name() + "' is too large");
        n *= static_cast<size_t>(d);
    }
    owned_tensor out;
    out.lt =
        logical_tensor(id, type, shape, logical_tensor::layout_type::strided, logical_tensor::property_type::constant);
    const size_t es = data_type_size(type);
    // The elements the proto holds must match its dims before anything is allocated for them.
    const auto held = [&]() -> size_t {
        if (type == data_type::string) return static_cast<size_t>(t.string_data_size());
        if (t.has_raw_data()) return t.raw_data().size() / es;
        switch (type) {
        case data_type::f32: return static_cast<size_t>(t.float_data_size());
        case data_type::f64: return static_cast<size_t>(t.double_data_size());
        case data_type::s64: return static_cast<size_t>(t.int64_data_size());
        case data_type::u64:
        case data_type::u32: return static_cast<size_t>(t.uint64_data_size());
        default: return static_cast<size_t>(t.int32_data_size());
        }
    }();
    if (type != data_type::string && t.has_raw_data() && t.raw_data().size() != n * es)
        fail(status::invalid_shape, "tensor '" + t.name() + "' has " + std::to_string(t.raw_data().size()) +
                                        " bytes of raw data for its " + std::to_string(n * es));
    if (held != n)
        fail(status::invalid_shape,
             "tensor '" + t.name() + "' holds " + std::to_string(held) + " elements for its " + std::to_string(n));
    out.bytes.resize(std::max<size_t>(n * es, 1));
    if (type == data_type::string) {
        out.strings = std::make_shared<std::vector<std::string>>(t.string_data().begin(), t.string_data().end());
        for (size_t i = 0; i < n; ++i)
            put(out.bytes, i, string_view_t{(*out.strings)[i].data(), (*out.strings)[i].size()});
    } else if (t.has_raw_data()) {
        std::memcpy(out.bytes.data(), t.raw_data().data(), n * es);
    } else if (type == data_type::f32) {
        for (size_t i = 0; i < n; ++i) put(out.bytes, i, t.float_data(static_cast<int>(i)));
    } else if (type == data_type::f64) {
        for (size_t i = 0; i < n; ++i) put(out.bytes, i, t.double_data(static_cast<int>(i)));
    } else if (type == data_type::s64) {
        for (size_t i = 0; i < n; ++i) put(out.bytes, i, t.int64_data(static_cast<int>(i)));
    } else if (type == data_type::u64 || type == data_type::u32) {
        for (size_t i = 0; i < n; ++i) {
            const uint64_t v = t.uint64_data(static_cast<int>(i));
            std::memcpy(out.bytes.data() + i * es, &v, es); // little-endian: the low bytes
        }
    } else { // 8/16-bit integers, bool, f16, bf16, s32: int32_data holds each element's bits
        for (size_t i = 0; i < n; ++i) {
            const uint32_t v = static_cast<uint32_t>(t.int32_data(static_cast<int>(i)));
            std::memcpy(out.bytes.data() + i * es, &v, es);
        }
    }
    return out;
}

namespace {

logical_tensor value_lt(size_t id, const ::onnx::ValueInfoProto &v, int &onnx_type) {
    onnx_type = 0;
    if (!v.type().has_tensor_type()) return logical_tensor(id, data_type::undef, logical_tensor::layout_type::any);
    const auto &tt = v.type().tensor_type();
    onnx_type = tt.elem_type();
    const data_type type = to_fusebox_type(tt.elem_type());
    if (!tt.has_shape()) return logical_tensor(id, type, logical_tensor::layout_type::any);
    logical_tensor::dims dims;
    for (const auto &d : tt.shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return logical_tensor(id, type, dims, logical_tensor::layout_type::any);
}

class importer {
public:
    importer(::onnx::ModelProto &m, const import_options &o, model::impl &out) : m_(m), opts_(o), out_(out) {}

    void run() {
        find_opset();
        apply_shapes();
        try { // types and shapes of the values between nodes (framework ops' outputs too)
            ::onnx::shape_inference::InferShapes(m_);
        } catch (const std::exception &) {
            // A model ONNX's own inference cannot follow: the checks below name what is wrong.
        }
        const auto &g = m_.graph();
        for (const auto &t : g.initializer()) add_initializer(t);
        for (const auto &in : g.input()) {
            if (out_.ids.count(in.name())) continue; // an initializer: a constant (its default value)
            const size_t id = declare(in.name(), in);
            out_.inputs.push_back(out_.values[id]);
        }
        for (const auto &vi : g.value_info()) info_[vi.name()] = &vi;
        for (const auto &o : g.output()) info_[o.name()] = &o;
        by_index_.resize(static_cast<size_t>(g.node_size()));
        for (int i : dependency_order()) import_node(g.node(i), i);
        for (node &n : by_index_) out_.nodes.push_back(std::move(n)); // in model order
        for (const auto &o : g.output()) {
            auto it = out_.ids.find(o.name());
            if (it == out_.ids.end()) fail(status::invalid_graph, "graph output '" + o.name() + "' is never produced");
            out_.outputs.push_back(out_.values[it->second]);
        }
        out_.g.finalize();
    }

private:
    void find_opset() {
        bool found = false;
        for (const auto &imp : m_.opset_import())
            if (imp.domain().empty() || imp.domain() == "ai.onnx") out_.opset = imp.version(), found = true;
        bool uses_onnx = false;
        for (const auto &n : m_.graph().node()) uses_onnx = uses_onnx || n.domain().empty() || n.domain() == "ai.onnx";
        if (!found && uses_onnx)
            fail(status::invalid_graph, "the model has ai.onnx nodes but imports no ai.onnx opset");
        if (found && out_.opset < 1) fail(status::invalid_graph, "ai.onnx opset " + std::to_string(out_.opset));
    }

    void apply_shapes() {
        std::set<std::string> names;
        for (auto &in : *m_.mutable_graph()->mutable_input()) {
            names.insert(in.name());
            auto it = opts_.shapes.find(in.name());
            if (it == opts_.shapes.end()) continue;
            const bool declared = in.type().tensor_type().has_shape(); // a declared rank 0 is a rank too
            auto *shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
            if (declared && shape->dim_size() != static_cast<int>(it->second.size()))
                fail(status::invalid_shape, "input '" + in.name() + "' has rank " + std::to_string(shape->dim_size()) +
                                                "; the shape given has rank " + std::to_string(it->second.size()));
            shape->clear_dim();
            for (int64_t d : it->second) {
                if (d < 0)
                    fail(status::invalid_shape, "the shape given for input '" + in.name() + "' has a negative dim");
                shape->add_dim()->set_dim_value(d);
            }
        }
        if (!opts_.shapes.empty()) // the shapes the model states for other values held for its own inputs
            for (auto *list : {m_.mutable_graph()->mutable_output(), m_.mutable_graph()->mutable_value_info()})
                for (auto &v : *list)
                    if (v.type().has_tensor_type()) v.mutable_type()->mutable_tensor_type()->clear_shape();
        for (const auto &s : opts_.shapes)
            if (!names.count(s.first))
                fail(status::invalid_arguments, "a shape is given for '" + s.first + "', which is not a graph input");
    }

    size_t declare(const std::string &name, const ::onnx::ValueInfoProto &vi) {
        const size_t id = out_.values.size();
        int t = 0;
        out_.values.push_back({name, value_lt(id, vi, t)});
        onnx_types_.push_back(t);
        out_.ids[name] = id;
        return id;
    }

    size_t declare(const std::string &name, const logical_tensor &lt, int onnx_type) {
        if (out_.ids.count(name)) fail(status::invalid_graph, "value '" + name + "' is defined twice");
        const size_t id = out_.values.size();
        out_.values.push_back({name, lt});
        onnx_types_.push_back(onnx_type);
        out_.ids[name] = id;
        return id;
    }

    size_t add_constant(const std::string &name, const TensorProto &t) {
        const size_t id = out_.values.size();
        owned_tensor c = read_tensor_proto(t, id, data_type::undef);
        declare(name, c.lt, t.data_type());
        out_.constant_data.push_back(std::move(c));
        return id;
    }

    void add_initializer(const TensorProto &t) {
        if (out_.ids.count(t.name())) fail(status::invalid_graph, "initializer '" + t.name() + "' is defined twice");
        add_constant(t.name(), t);
    }

    // The nodes ordered so that each comes after the producers of its inputs
    // (ONNX requires the model's order to be one; a model out of order is
    // read in this order); dangling names and cycles are errors.
    std::vector<int> dependency_order() {
        const auto &g = m_.graph();
        std::map<std::string, int> producer;
        for (int i = 0; i < g.node_size(); ++i)
            for (const auto &o : g.node(i).output()) {
                if (o.empty()) continue;
                if (out_.ids.count(o) || !producer.emplace(o, i).second)
                    fail(status::invalid_graph,
                         "value '" + o + "' of node '" + name_of(g.node(i), i) + "' is defined twice");
            }
        std::vector<int> order, state(static_cast<size_t>(g.node_size()), 0); // 0 new, 1 on the path, 2 done
        std::vector<std::pair<int, int>> stack;                               // node, next input
        for (int root = 0; root < g.node_size(); ++root) {
            if (state[root]) continue;
            stack.push_back({root, 0});
            state[root] = 1;
            while (!stack.empty()) {
                auto &[n, k] = stack.back();
                const NodeProto &nd = g.node(n);
                if (k == nd.input_size()) {
                    state[n] = 2, order.push_back(n), stack.pop_back();
                    continue;
                }
                const std::string &in = nd.input(k++);
                if (in.empty() || out_.ids.count(in)) continue;
                auto p = producer.find(in);
                if (p == producer.end())
                    fail(status::invalid_graph, "input '" + in + "' of node '" + name_of(nd, n) +
                                                    "' is no graph input, initializer or node output");
                if (state[p->second] == 1)
                    fail(status::invalid_graph, "node '" + name_of(nd, n) + "' depends on its own output (a cycle)");
                if (state[p->second] == 0) state[p->second] = 1, stack.push_back({p->second, 0});
            }
        }
        return order;
    }

    static std::string name_of(const NodeProto &n, int i) {
        return n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
    }

    // The value's ONNX type (0 when unknown) and fusebox logical tensor, by name.
    int onnx_type_of(const std::string &name) const { return onnx_types_[out_.ids.at(name)]; }

    void import_node(const NodeProto &nd, int index) {
        node n;
        n.name = name_of(nd, index);
        n.domain = nd.domain();
        n.op_type = nd.op_type();
        n.op_id = static_cast<size_t>(index);
        n.inputs.assign(nd.input().begin(), nd.input().end());
        n.outputs.assign(nd.output().begin(), nd.output().end());
        const bool onnx_domain = nd.domain().empty() || nd.domain() == "ai.onnx";
        if (onnx_domain && nd.op_type() == "Constant") return import_constant(nd, n);
        const schema_row *row = nullptr;
        if (onnx_domain && is_onnx_elementwise(nd.op_type())) {
            row = version_in_force(nd.op_type(), out_.opset);
            if (!row)
                fail(status::invalid_graph,
                     node_ref(n) + ": " + n.op_type + " is not in ai.onnx opset " + std::to_string(out_.opset));
            n.version = row->since;
        }
        std::vector<int> out_types = row ? check(n, nd, *row) : std::vector<int>(nd.output_size(), 0);
        if (!row)
            n.unsupported_reason = onnx_domain ? n.op_type + " is not an elementwise op fusebox runs"
                                               : "domain '" + nd.domain() + "' is not ai.onnx";
        // The outputs: their ONNX type from the version's rule or ONNX's inference.
        std::vector<logical_tensor> outs;
        for (int k = 0; k < nd.output_size(); ++k) {
            const std::string &name = nd.output(k);
            if (name.empty()) continue;
            logical_tensor lt(out_.values.size(), data_type::undef, logical_tensor::layout_type::any);
            int t = out_types[static_cast<size_t>(k)];
            auto vi = info_.find(name);
            if (vi != info_.end()) {
                int inferred = 0;
                lt = value_lt(out_.values.size(), *vi->second, inferred);
                if (!t) t = inferred;
            }
            lt = t ? with_type(lt, to_fusebox_type(t)) : lt;
            declare(name, lt, t);
            outs.push_back(lt);
        }
        if (row && n.unsupported_reason.empty()) {
            try {
                op o = make_op(n, nd, *row, outs);
                out_.g.add_op(o);
                n.kind = o.get_kind();
            } catch (const error &e) { // valid ONNX that fusebox does not run (a cast to string)
                if (e.get_status() != status::invalid_data_type && e.get_status() != status::unimplemented) throw;
                n.unsupported_reason = e.what();
                if (n.unsupported_reason.rfind("fusebox: ", 0) == 0) n.unsupported_reason.erase(0, 9);
            }
        }
        if (!n.unsupported_reason.empty()) add_wildcard(n, outs);
        by_index_[static_cast<size_t>(index)] = std::move(n);
    }

    static logical_tensor with_type(const logical_tensor &lt, data_type t) {
        if (lt.get_ndims() < 0) return logical_tensor(lt.get_id(), t, logical_tensor::layout_type::any);
        return logical_tensor(lt.get_id(), t, lt.get_dims(), logical_tensor::layout_type::any);
    }

    // Checks the node against its version; returns the ONNX type of each
    // output (0 where the inputs' types are not known).
    std::vector<int> check(node &n, const NodeProto &nd, const schema_row &r) {
        const std::string version = n.op_type + "-" + std::to_string(r.since);
        for (const auto &a : nd.attribute()) {
            if (has_attr(r, a.name())) {
                check_attribute(n, version, a);
            } else if (out_.opset > newest_known_opset()) { // a version newer than the table may have it
                n.unsupported_reason = version + " (the newest this importer knows) has no attribute '" + a.name() +
                                       "'; opset " + std::to_string(out_.opset) + " may";
            } else {
                fail(status::invalid_graph, node_ref(n) + ": " + version + " has no attribute '" + a.name() + "'");
            }
        }
        for (const char *required : {"to", "direction"})
            if (has_attr(r, required) && std::none_of(nd.attribute().begin(), nd.attribute().end(),
                                                      [&](const AttributeProto &a) { return a.name() == required; }))
                fail(status::invalid_graph, node_ref(n) + ": " + version + " requires attribute '" + required + "'");
        const int count = nd.input_size();
        if (count < r.min_inputs || (r.max_inputs >= 0 && count > r.max_inputs))
            fail(status::invalid_graph, node_ref(n) + ": " + std::to_string(count) + " inputs; " + n.op_type + "-" +
                                            std::to_string(r.since) + " takes " + std::to_string(r.min_inputs) +
                                            (r.max_inputs < 0 ? " or more" : ".." + std::to_string(r.max_inputs)));
        if (nd.output_size() != 1)
            fail(status::invalid_graph, node_ref(n) + ": " + std::to_string(nd.output_size()) + " outputs; it has one");
        const bool past_known = out_.opset > newest_known_opset();
        int bound[3] = {0, 0, 0};
        for (int k = 0; k < count; ++k) {
            if (nd.input(k).empty()) {
                if (k < r.min_inputs)
                    fail(status::invalid_graph, node_ref(n) + ": input " + std::to_string(k) + " is required");
                continue;
            }
            const int p = r.input_param[std::min(k, 2)], t = onnx_type_of(nd.input(k));
            if (!t) continue;
            if (!allows(r.types[p], t)) {
                const std::string what = node_ref(n) + ": input " + std::to_string(k) + " is " + onnx_type_name(t) +
                                         ", which " + n.op_type + "-" + std::to_string(r.since) + " does not take";
                if (past_known) { // a version newer than the table may take it: the framework's
                    n.unsupported_reason = what;
                    continue;
                }
                fail(status::invalid_data_type, what);
            }
            if (bound[p] && bound[p] != t)
                fail(status::invalid_data_type,
                     node_ref(n) + ": input " + std::to_string(k) + " is " + onnx_type_name(t) +
                         ", another input of the same type parameter is " + onnx_type_name(bound[p]));
            bound[p] = t;
        }
        int out = bound[r.output_param];
        const uint32_t m = r.types[r.output_param];
        if (!out && m && !(m & (m - 1))) // a parameter of one type (bool)
            for (int t = 0; t < 32; ++t)
                if (m >> t & 1u) out = t;
        for (const auto &a : nd.attribute())
            if (a.name() == "to") {
                out = cast_target(a, r.since);
                if (!allows(m, out))
                    fail(status::invalid_data_type, node_ref(n) + ": Cast-" + std::to_string(r.since) +
                                                        " has no target type " + onnx_type_name(out));
            }
        return {out};
    }

    // The TensorProto data type a Cast's `to` names (Cast-1: by name, "FLOAT"), 0 for none.
    static int cast_target(const AttributeProto &a, int since) {
        if (since == 1) {
            TensorProto::DataType t;
            return TensorProto::DataType_Parse(a.s(), &t) ? static_cast<int>(t) : 0;
        }
        return a.i() > 0 && a.i() < 32 ? static_cast<int>(a.i()) : 0;
    }

    // An attribute the version has: its type, and its value where the spec
    // restricts it. Errors here are the model's; they never become Wildcards.
    static void check_attribute(const node &n, const std::string &version, const AttributeProto &a) {
        using T = AttributeProto;
        const std::string &name = a.name();
        T::AttributeType want = T::FLOAT;
        if (name == "broadcast" || name == "axis" || name == "fmod" || name == "detect_positive" ||
            name == "detect_negative" || name == "saturate" || (name == "to" && version != "Cast-1"))
            want = T::INT;
        else if (name == "direction" || name == "approximate" || name == "to")
            want = T::STRING;
        else if (name == "consumed_inputs")
            want = T::INTS;
        const bool present =
            a.type() == want ||
            (a.type() == T::UNDEFINED && ((want == T::INT && a.has_i()) || (want == T::FLOAT && a.has_f()) ||
                                          (want == T::STRING && a.has_s()) || (want == T::INTS && a.ints_size() > 0)));
        if (!present)
            fail(status::invalid_graph, node_ref(n) + ": attribute '" + name + "' of " + version + " is a" +
                                            (want == T::INT      ? "n int"
                                             : want == T::STRING ? " string"
                                             : want == T::INTS   ? " list of ints"
                                                                 : " float") +
                                            " (the model gives " + T::AttributeType_Name(a.type()) + ")");
        auto expect = [&](bool ok, const std::string &allowed) {
            if (!ok)
                fail(status::invalid_graph, node_ref(n) + ": attribute '" + name + "' of " + version + " is " +
                                                (want == T::STRING ? "'" + a.s() + "'" : std::to_string(a.i())) + " (" +
                                                allowed + ")");
        };
        if (name == "broadcast" || name == "fmod" || name == "detect_positive" || name == "detect_negative" ||
            name == "saturate")
            expect(a.i() == 0 || a.i() == 1, "0 or 1");
        if (name == "direction") expect(a.s() == "LEFT" || a.s() == "RIGHT", "LEFT or RIGHT");
        if (name == "approximate") expect(a.s() == "none" || a.s() == "tanh", "none or tanh");
        if (name == "to" && !cast_target(a, version == "Cast-1" ? 1 : 6)) expect(false, "a TensorProto data type");
    }

    op make_op(node &n, const NodeProto &nd, const schema_row &r, const std::vector<logical_tensor> &outs) {
        const op::kind kind = onnx_kinds().at(nd.op_type());
        std::vector<logical_tensor> ins;
        for (int k = 0; k < nd.input_size(); ++k) {
            const std::string &name = nd.input(k);
            if (name.empty()) { // Clip-11+'s absent min (a max follows: the lowest value of the type) or max
                if (kind != op::kind::Clip)
                    fail(status::invalid_graph, node_ref(n) + ": input " + std::to_string(k) + " is empty");
                if (k + 1 < nd.input_size() && !nd.input(k + 1).empty()) ins.push_back(lowest_of(n, nd.input(0)));
                continue;
            }
            const value &v = out_.values[out_.ids.at(name)];
            if (v.lt.get_data_type() == data_type::undef)
                throw error(status::invalid_data_type, "the type of input '" + name + "' is not known (no value_info)");
            ins.push_back(v.lt);
        }
        op o(n.op_id, kind, ins, outs, n.name);
        const bool legacy = has_attr(r, "broadcast"); // opset-1/6 broadcasting: none unless broadcast=1
        if (legacy) o.set_attr(op::attr::broadcast, int64_t{0});
        // Max/Min/Sum/Mean before opset 8 take inputs of one shape.
        if ((kind == op::kind::Maximum || kind == op::kind::Minimum || kind == op::kind::Sum ||
             kind == op::kind::Mean) &&
            r.since < 8)
            o.set_attr(op::attr::auto_broadcast, std::string("none"));
        bool broadcast = false;
        for (const AttributeProto &a : nd.attribute()) broadcast = broadcast || (a.name() == "broadcast" && a.i() == 1);
        if (kind == op::kind::Clip && has_attr(r, "min")) { // Clip-1/6: the float range unless given
            o.set_attr(op::attr::min, -std::numeric_limits<float>::max());
            o.set_attr(op::attr::max, std::numeric_limits<float>::max());
        }
        for (const AttributeProto &a : nd.attribute()) {
            const std::string &name = a.name();
            if (name == "broadcast") o.set_attr(op::attr::broadcast, static_cast<int64_t>(a.i()));
            if (name == "axis" && broadcast) o.set_attr(op::attr::axis, static_cast<int64_t>(a.i())); // else unused
            if (name == "direction") o.set_attr(op::attr::direction, a.s());
            if (name == "fmod") o.set_attr(op::attr::fmod, static_cast<int64_t>(a.i()));
            if (name == "detect_positive") o.set_attr(op::attr::detect_positive, static_cast<int64_t>(a.i()));
            if (name == "detect_negative") o.set_attr(op::attr::detect_negative, static_cast<int64_t>(a.i()));
            if (name == "approximate")
                o.set_attr(op::attr::mode, std::string(a.s() == "tanh" ? "gelu_tanh" : "gelu_erf"));
            for (auto [attr_name, attr] : {std::pair{"alpha", op::attr::alpha}, std::pair{"beta", op::attr::beta},
                                           std::pair{"gamma", op::attr::gamma}, std::pair{"min", op::attr::min},
                                           std::pair{"max", op::attr::max}})
                if (name == attr_name) o.set_attr(attr, a.f());
        }
        return o;
    }

    // A constant holding the lowest value of the type of `like` (-inf for floats).
    logical_tensor lowest_of(const node &n, const std::string &like) {
        const data_type t = out_.values[out_.ids.at(like)].lt.get_data_type();
        if (t == data_type::undef)
            throw error(status::invalid_data_type,
                        "Clip's absent min needs the type of '" + like + "', which is not known");
        owned_tensor c;
        const size_t id = out_.values.size();
        c.lt = logical_tensor(id, t, logical_tensor::dims{}, logical_tensor::layout_type::strided,
                              logical_tensor::property_type::constant);
        const size_t es = data_type_size(t);
        c.bytes.assign(es, 0);
        uint64_t bits = 0;
        if (t == data_type::f32) {
            const float f = -INFINITY;
            std::memcpy(&bits, &f, 4);
        } else if (t == data_type::f64) {
            const double d = -INFINITY;
            std::memcpy(&bits, &d, 8);
        } else if (t == data_type::f16) {
            bits = 0xfc00;
        } else if (t == data_type::bf16) {
            bits = 0xff80;
        } else if (t == data_type::s8 || t == data_type::s16 || t == data_type::s32 || t == data_type::s64) {
            bits = uint64_t{1} << (8 * es - 1);
        } // unsigned: 0
        std::memcpy(c.bytes.data(), &bits, es);
        declare("(" + n.name + ": no min, value " + std::to_string(id) + ")", c.lt, 0);
        out_.constant_data.push_back(std::move(c));
        return out_.values[id].lt;
    }

    void import_constant(const NodeProto &nd, node &n) {
        const schema_row *row = version_in_force("Constant", out_.opset);
        if (!row) fail(status::invalid_graph, node_ref(n) + ": Constant is not in opset " + std::to_string(out_.opset));
        n.version = row->since;
        if (nd.attribute_size() != 1 || nd.output_size() != 1)
            fail(status::invalid_graph, node_ref(n) + ": a Constant has exactly one value attribute and one output");
        const AttributeProto &a = nd.attribute(0);
        if (!has_attr(*row, a.name()))
            fail(status::invalid_graph,
                 node_ref(n) + ": Constant-" + std::to_string(row->since) + " has no attribute '" + a.name() + "'");
        TensorProto t;
        if (a.name() == "value") {
            t = a.t();
        } else if (a.name() == "value_float" || a.name() == "value_floats") {
            t.set_data_type(TensorProto::FLOAT);
            if (a.name() == "value_float") t.add_float_data(a.f());
            for (float f : a.floats()) t.add_float_data(f);
            if (a.name() == "value_floats") t.add_dims(a.floats_size());
        } else if (a.name() == "value_int" || a.name() == "value_ints") {
            t.set_data_type(TensorProto::INT64);
            if (a.name() == "value_int") t.add_int64_data(a.i());
            for (int64_t i : a.ints()) t.add_int64_data(i);
            if (a.name() == "value_ints") t.add_dims(a.ints_size());
        } else if (a.name() == "value_string" || a.name() == "value_strings") {
            t.set_data_type(TensorProto::STRING);
            if (a.name() == "value_string") t.add_string_data(a.s());
            for (const auto &s : a.strings()) t.add_string_data(s);
            if (a.name() == "value_strings") t.add_dims(a.strings_size());
        } else {
            fail(status::unimplemented, node_ref(n) + ": a sparse constant");
        }
        t.set_name(nd.output(0));
        if (out_.ids.count(nd.output(0))) fail(status::invalid_graph, "value '" + nd.output(0) + "' is defined twice");
        add_constant(nd.output(0), t);
        n.kind = op::kind::Wildcard;
        const size_t index = n.op_id;
        n.op_id = SIZE_MAX; // no op: a constant
        by_index_[index] = std::move(n);
    }

    void add_wildcard(const node &n, const std::vector<logical_tensor> &outs) {
        std::vector<logical_tensor> ins;
        std::set<size_t> seen;
        for (const auto &name : n.inputs)
            if (!name.empty() && seen.insert(out_.ids.at(name)).second)
                ins.push_back(out_.values[out_.ids.at(name)].lt);
        out_.g.add_op(op(n.op_id, op::kind::Wildcard, ins, outs, n.name));
    }

    ::onnx::ModelProto &m_;
    const import_options &opts_;
    model::impl &out_;
    std::vector<int> onnx_types_; // per value id: its ONNX type, 0 when unknown
    std::map<std::string, const ::onnx::ValueInfoProto *> info_;
    std::vector<node> by_index_; // the nodes by their index in the model
};

} // namespace

model model::load_bytes(const void *data, size_t size, const import_options &options) {
    ::onnx::ModelProto m;
    if (!data || size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !m.ParseFromArray(data, static_cast<int>(size)))
        fail(status::invalid_arguments, "the bytes are not a serialized ModelProto");
    auto p = std::make_shared<impl>();
    p->g = graph(engine::kind::cpu, options.fpmath);
    importer(m, options, *p).run();
    for (auto &c : p->constant_data) p->constants.emplace_back(c.lt, p->eng, c.bytes.data());
    return model(p);
}

model model::load(const std::string &path, const import_options &options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(status::invalid_arguments, "cannot open '" + path + "'");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        return load_bytes(bytes.data(), bytes.size(), options);
    } catch (const error &e) {
        std::string what = e.what();
        if (what.rfind("fusebox: ", 0) == 0) what.erase(0, 9); // the error adds it again
        throw error(e.get_status(), what + " (" + path + ")");
    }
}

const model::impl &model::self() const {
    if (!impl_) fail(status::invalid_arguments, "the model was moved from");
    return *impl_;
}

int64_t model::get_opset_version() const { return self().opset; }
graph model::get_graph() const { return self().g; }
std::vector<partition> model::get_partitions(partition::policy p) const {
    graph g = self().g;
    return g.get_partitions(p);
}
const std::vector<value> &model::get_inputs() const { return self().inputs; }
const std::vector<value> &model::get_outputs() const { return self().outputs; }
const std::vector<node> &model::get_nodes() const { return self().nodes; }
const std::vector<tensor> &model::get_constants() const { return self().constants; }

const value &model::get_value(const std::string &name) const {
    auto it = self().ids.find(name);
    if (it == self().ids.end()) fail(status::invalid_arguments, "no value named '" + name + "'");
    return self().values[it->second];
}

const value &model::get_value(size_t id) const {
    if (id >= self().values.size()) fail(status::invalid_arguments, "no value of id " + std::to_string(id));
    return self().values[id];
}

const node &model::get_node(size_t op_id) const {
    for (const node &n : self().nodes)
        if (n.op_id == op_id) return n;
    fail(status::invalid_arguments, "no node of op id " + std::to_string(op_id));
}

} // namespace onnx
} // namespace fusebox

#include "graph_case.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../../src/common/checked.hpp"

namespace fbbench {
namespace {

using json = nlohmann::json;
using fusebox::logical_tensor;

// Beyond what fusebox accepts (logical tensors hold at most 64 dims).
constexpr size_t kMaxRank = 64;

[[noreturn]] void bad(const std::string &where, const std::string &why) { throw case_error(where + ": " + why); }

const json &member(const json &j, const char *key, const std::string &where) {
    if (!j.is_object() || !j.contains(key)) bad(where, std::string("missing \"") + key + "\"");
    return j.at(key);
}

std::string text_of(const json &j, const std::string &where) {
    if (!j.is_string()) bad(where, "expected a string, got " + j.dump());
    return j.get<std::string>();
}

// An integer in [lo, hi]: JSON reals (1.9, 1e30) are refused, never truncated.
int64_t integer_of(const json &j, int64_t lo, int64_t hi, const std::string &where) {
    int64_t v;
    if (j.is_number_unsigned()) {
        const uint64_t u = j.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) bad(where, j.dump() + " is out of range");
        v = static_cast<int64_t>(u);
    } else if (j.is_number_integer()) {
        v = j.get<int64_t>();
    } else {
        bad(where, "expected an integer, got " + j.dump());
    }
    if (v < lo || v > hi)
        bad(where, std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
}

size_t id_of(const json &j, const std::string &where) {
    return static_cast<size_t>(integer_of(j, 0, std::numeric_limits<int64_t>::max(), where));
}

std::vector<int64_t> integers_of(const json &j, int64_t lo, int64_t hi, const std::string &where) {
    if (!j.is_array()) bad(where, "expected a list of integers, got " + j.dump());
    std::vector<int64_t> out;
    for (size_t i = 0; i < j.size(); ++i)
        out.push_back(integer_of(j[i], lo, hi, where + "[" + std::to_string(i) + "]"));
    return out;
}

// A finite f32, or a non-finite one spelled as fusebox's graph dumps write it.
float f32_of(const json &v, const std::string &where) {
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<float>::infinity();
        if (s == "-inf") return -std::numeric_limits<float>::infinity();
    }
    if (!v.is_number()) bad(where, "expected a number, got " + v.dump());
    const double d = v.get<double>();
    if (!(std::fabs(d) <= std::numeric_limits<float>::max())) bad(where, v.dump() + " does not fit in f32");
    return static_cast<float>(d);
}

// Type names of oneDNN Graph that fusebox has no type for.
bool onednn_only_type(const std::string &name) {
    static const std::set<std::string> names = {"f8_e5m2", "f8_e4m3", "s4", "u4", "e8m0", "f4_e2m1", "f4_e3m0"};
    return names.count(name) > 0;
}

data_type parse_dt(const std::string &name, const std::string &where) {
    if (name == "undef") return data_type::undef;
    for (data_type t : {data_type::f16, data_type::bf16, data_type::f32, data_type::f64, data_type::s8, data_type::u8,
                        data_type::s16, data_type::u16, data_type::s32, data_type::u32, data_type::s64, data_type::u64,
                        data_type::boolean, data_type::string})
        if (name == fusebox::data_type_name(t)) return t;
    if (onednn_only_type(name)) throw case_unimplemented(where + ": fusebox has no data type " + name);
    bad(where, "unknown data type \"" + name + "\"");
}

tensor_desc parse_tensor(const json &j, const std::string &where) {
    tensor_desc t;
    t.id = id_of(member(j, "id", where), where + ".id");
    t.dt = parse_dt(text_of(member(j, "dtype", where), where + ".dtype"), where + ".dtype");
    const int64_t max = std::numeric_limits<int64_t>::max();
    if (j.contains("shape")) { // dims: -1 or INT64_MIN for unknown
        t.shape = integers_of(j.at("shape"), std::numeric_limits<int64_t>::min(), max, where + ".shape");
        for (int64_t &d : t.shape)
            if (d < 0 && d != -1 && d != FUSEBOX_UNKNOWN_DIM)
                bad(where + ".shape", "negative dim " + std::to_string(d));
        if (t.shape.size() > kMaxRank) bad(where + ".shape", "rank " + std::to_string(t.shape.size()) + " exceeds 64");
        t.known_rank = true;
    }
    if (j.contains("stride"))
        t.strides = integers_of(j.at("stride"), std::numeric_limits<int64_t>::min(), max, where + ".stride");
    const std::string layout =
        j.contains("layout_type") ? text_of(j.at("layout_type"), where + ".layout_type") : "strided";
    if (layout == "strided")
        t.layout = logical_tensor::layout_type::strided;
    else if (layout == "any")
        t.layout = logical_tensor::layout_type::any;
    else if (layout == "undef")
        t.layout = logical_tensor::layout_type::undef;
    else if (layout == "opaque")
        throw case_unimplemented(where + ".layout_type: fusebox has no opaque layouts");
    else
        bad(where + ".layout_type", "unknown layout \"" + layout + "\"");
    const std::string prop =
        j.contains("property_type") ? text_of(j.at("property_type"), where + ".property_type") : "undef";
    if (prop == "constant")
        t.property = logical_tensor::property_type::constant;
    else if (prop == "variable")
        t.property = logical_tensor::property_type::variable;
    else if (prop == "host_scalar")
        t.property = logical_tensor::property_type::host_scalar;
    else if (prop != "undef")
        bad(where + ".property_type", "unknown property \"" + prop + "\"");
    if (t.layout != logical_tensor::layout_type::strided) t.strides.clear(); // "any" may carry a placeholder
    if (!t.strides.empty() && t.strides.size() != t.shape.size())
        bad(where + ".stride",
            std::to_string(t.strides.size()) + " strides for " + std::to_string(t.shape.size()) + " dims");
    if (std::any_of(t.strides.begin(), t.strides.end(), [](int64_t s) { return s < 0; }))
        t.strides.clear(); // not fixed yet
    return t;
}

fusebox::op::attr_value parse_attr(const json &j, const std::string &where) {
    const std::string type = text_of(member(j, "type", where), where + ".type");
    const json &v = member(j, "value", where);
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    if (type == "string") return text_of(v, where + ".value");
    if (type == "s64") return integer_of(v, lo, hi, where + ".value");
    if (type == "bool") return v.is_boolean() ? v.get<bool>() : integer_of(v, 0, 1, where + ".value") != 0;
    if (type == "s64[]") return integers_of(v, lo, hi, where + ".value");
    if (type == "f32") return f32_of(v, where + ".value");
    if (type == "f32[]") {
        if (!v.is_array()) bad(where + ".value", "expected a list of numbers");
        std::vector<float> out;
        for (size_t i = 0; i < v.size(); ++i) out.push_back(f32_of(v[i], where + ".value[" + std::to_string(i) + "]"));
        return out;
    }
    bad(where + ".type", "unknown attribute type \"" + type + "\"");
}

// The value type of an attribute, from the range of its oneDNN Graph value
// (0x01.. f32, 0x20 f32[], 0x30 s64, 0x40 s64[], 0x60 bool, 0x80 string) and
// fusebox's own (broadcast s64, consumed_inputs s64[]).
enum class attr_kind { f32, f32s, s64, s64s, boolean, string };
attr_kind kind_of(fusebox::op::attr a) {
    const int v = static_cast<int>(a);
    using fa = fusebox::op::attr;
    // fusebox's own attributes (after oneDNN's ranges), then oneDNN's by range.
    if (a == fa::broadcast || a == fa::fmod || a == fa::detect_positive || a == fa::detect_negative)
        return attr_kind::s64;
    if (a == fa::consumed_inputs) return attr_kind::s64s;
    if (a == fa::direction) return attr_kind::string;
    if (a == fa::gamma) return attr_kind::f32;
    return v < 0x20   ? attr_kind::f32
           : v < 0x30 ? attr_kind::f32s
           : v < 0x40 ? attr_kind::s64
           : v < 0x60 ? attr_kind::s64s
           : v < 0x80 ? attr_kind::boolean
                      : attr_kind::string;
}

// A knob's attribute value (benchdnn spelling: lists as AxB, bools as true/false or 1/0).
fusebox::op::attr_value attr_from_text(const std::string &name, const std::string &value, const std::string &where) {
    fusebox::op::attr a;
    try {
        a = fusebox::attr_from_name(name);
    } catch (const fusebox::error &) {
        bad(where, "unknown attribute \"" + name + "\"");
    }
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    const float fmax = std::numeric_limits<float>::max();
    switch (kind_of(a)) {
    case attr_kind::string: return value;
    case attr_kind::s64: return parse_int(value, lo, hi, where);
    case attr_kind::f32: return static_cast<float>(parse_real(value, -fmax, fmax, where));
    case attr_kind::boolean:
        if (value == "true" || value == "1") return true;
        if (value == "false" || value == "0") return false;
        bad(where, "expected true, false, 1 or 0, got \"" + value + "\"");
    case attr_kind::s64s: {
        std::vector<int64_t> out;
        for (const auto &part : split(value, 'x')) out.push_back(parse_int(part, lo, hi, where));
        return out;
    }
    case attr_kind::f32s: {
        std::vector<float> out;
        for (const auto &part : split(value, 'x'))
            out.push_back(static_cast<float>(parse_real(part, -fmax, fmax, where)));
        return out;
    }
    }
    bad(where, "unknown attribute type");
}

std::vector<op_desc *> ops_with_id(graph_case &c, size_t id, const std::string &where) {
    std::vector<op_desc *> r;
    for (auto &o : c.ops)
        if (o.id == id) r.push_back(&o);
    if (r.empty()) bad(where, "no op with id " + std::to_string(id));
    return r;
}

size_t parse_id(const std::string &s, const std::string &where) {
    return static_cast<size_t>(parse_int(s, 0, std::numeric_limits<int64_t>::max(), where));
}

// ID:VALUE entries of a knob alternative ("0:a+1:b", split at each '+'), in
// order; ids may not repeat.
std::vector<std::pair<size_t, std::string>> id_entries(const std::vector<std::string> &items, const std::string &knob) {
    std::vector<std::pair<size_t, std::string>> out;
    std::set<size_t> seen;
    for (const auto &item : items) {
        const std::string where = knob + "=" + item;
        const auto colon = item.find(':');
        if (colon == std::string::npos) bad(where, "expected ID:VALUE");
        const size_t id = parse_id(item.substr(0, colon), where);
        if (!seen.insert(id).second) bad(where, "id " + std::to_string(id) + " is given twice");
        out.emplace_back(id, item.substr(colon + 1));
    }
    return out;
}
std::vector<std::pair<size_t, std::string>> id_entries(const std::string &text, const std::string &knob) {
    return id_entries(split(text, '+'), knob);
}

} // namespace

std::vector<std::pair<size_t, std::string>> parse_in_values(const std::string &text) {
    if (text.empty()) return {};
    std::vector<std::string> items;
    for (const auto &part : split(text, '+'))
        if (!items.empty() && part.find(':') == std::string::npos)
            items.back() += "+" + part; // an exponent's sign
        else
            items.push_back(part);
    const auto out = id_entries(items, "--in-values");
    for (const auto &[id, value] : out) // (numbers; each input's type checks its own later)
        parse_real(value, -HUGE_VAL, HUGE_VAL, "--in-values=" + std::to_string(id) + ":" + value);
    return out;
}

dims parse_dims(const std::string &text, const std::string &what) {
    if (text == "-") return {};
    dims d;
    for (const auto &part : split(text, 'x'))
        d.push_back(parse_int(part, 0, std::numeric_limits<int64_t>::max(), what));
    if (d.size() > kMaxRank) throw case_error(what + ": rank " + std::to_string(d.size()) + " exceeds 64");
    return d;
}

dims strides_from_tag(const dims &shape, const std::string &tag, const std::string &what) {
    if (tag.size() != shape.size())
        throw case_error(what + ": tag \"" + tag + "\" does not match rank " + std::to_string(shape.size()));
    std::vector<size_t> order;
    std::set<int> seen;
    for (char letter : tag) {
        const int d = letter - 'a';
        if (d < 0 || d >= static_cast<int>(shape.size()) || !seen.insert(d).second)
            throw case_error(what + ": \"" + tag + "\" is not a plain tag (a permutation of the first " +
                             std::to_string(shape.size()) + " letters)");
        order.push_back(static_cast<size_t>(d));
    }
    return dense_strides(shape, order, what);
}

std::vector<size_t> dim_order(const dims &strides) {
    std::vector<size_t> order(strides.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] > strides[b]; });
    return order;
}

dims dense_strides(const dims &shape, const std::vector<size_t> &order, const std::string &what) {
    dims strides(shape.size(), 0);
    int64_t s = 1;
    for (size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = s;
        auto next = fusebox::detail::checked_mul(s, std::max<int64_t>(shape[order[k]], 1));
        if (!next) throw case_error(what + ": shape is too large to address");
        s = *next;
    }
    return strides;
}

logical_tensor tensor_desc::to_logical() const {
    if (!known_rank) return logical_tensor(id, dt, logical_tensor::layout_type::any);
    if (layout == logical_tensor::layout_type::strided && !strides.empty())
        return logical_tensor(id, dt, shape, strides, property);
    return logical_tensor(id, dt, shape, layout, property);
}

const tensor_desc *graph_case::output_desc(size_t id) const {
    for (const auto &o : ops)
        for (const auto &t : o.outputs)
            if (t.id == id) return &t;
    return nullptr;
}

std::vector<size_t> graph_case::graph_inputs() const {
    std::set<size_t> produced;
    for (const auto &o : ops)
        for (const auto &t : o.outputs) produced.insert(t.id);
    std::vector<size_t> ids;
    for (const auto &o : ops)
        for (const auto &t : o.inputs)
            if (!produced.count(t.id) && std::find(ids.begin(), ids.end(), t.id) == ids.end()) ids.push_back(t.id);
    return ids;
}

std::vector<fusebox::op> graph_case::to_ops() const {
    std::vector<fusebox::op> result;
    for (size_t i = 0; i < ops.size(); ++i) {
        const op_desc &o = ops[i];
        const std::string where = path + ": graph[" + std::to_string(i) + "]";
        fusebox::op::kind kind;
        try {
            kind = fusebox::op_kind_from_name(o.kind);
        } catch (const fusebox::error &) {
            bad(where + ".kind", "unknown op kind \"" + o.kind + "\"");
        }
        std::vector<logical_tensor> ins, outs;
        for (const auto &t : o.inputs) ins.push_back(t.to_logical());
        for (const auto &t : o.outputs) outs.push_back(t.to_logical());
        fusebox::op op(o.id, kind, ins, outs, o.name);
        for (const auto &[name, value] : o.attrs) {
            fusebox::op::attr a;
            try {
                a = fusebox::attr_from_name(name);
            } catch (const fusebox::error &) {
                bad(where + ".attrs." + name, "unknown attribute");
            }
            std::visit([&](const auto &v) { op.set_attr(a, v); }, value);
        }
        result.push_back(std::move(op));
    }
    return result;
}

fusebox::fpmath_mode graph_case::math_mode() const {
    static const std::map<std::string, fusebox::fpmath_mode> modes = {{"strict", fusebox::fpmath_mode::strict},
                                                                      {"bf16", fusebox::fpmath_mode::bf16},
                                                                      {"f16", fusebox::fpmath_mode::f16},
                                                                      {"any", fusebox::fpmath_mode::any},
                                                                      {"tf32", fusebox::fpmath_mode::tf32}};
    auto it = modes.find(fpmath_mode);
    if (it == modes.end()) bad(path + ": fpmath_mode", "unknown fpmath mode \"" + fpmath_mode + "\"");
    return it->second;
}

fusebox::graph graph_case::build() const {
    fusebox::graph g(fusebox::engine::kind::cpu, math_mode());
    g.set_fpmath_mode(math_mode(), fpmath_applies_to_int);
    for (const fusebox::op &o : to_ops()) g.add_op(o);
    return g;
}

graph_case load_case_text(const std::string &text, const std::string &path) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception &e) {
        bad(path, std::string("malformed JSON: ") + e.what());
    }
    if (!j.is_object()) bad(path, "expected a JSON object");
    graph_case c;
    c.path = path;
    if (j.contains("engine_kind")) c.engine_kind = text_of(j.at("engine_kind"), path + ": engine_kind");
    if (c.engine_kind != "cpu") bad(path + ": engine_kind", "only \"cpu\" is supported, got \"" + c.engine_kind + "\"");
    if (j.contains("fpmath_mode")) c.fpmath_mode = text_of(j.at("fpmath_mode"), path + ": fpmath_mode");
    c.math_mode();                                // validates
    if (j.contains("fpmath_mode_apply_to_int")) { // oneDNN writes "true"/"false" as strings
        const json &v = j.at("fpmath_mode_apply_to_int");
        c.fpmath_applies_to_int =
            v.is_boolean() ? v.get<bool>() : text_of(v, path + ": fpmath_mode_apply_to_int") == "true";
    }
    const json &ops = member(j, "graph", path);
    if (!ops.is_array()) bad(path + ": graph", "expected a list of ops");
    for (size_t i = 0; i < ops.size(); ++i) {
        const std::string where = path + ": graph[" + std::to_string(i) + "]";
        const json &jo = ops[i];
        op_desc o;
        o.id = id_of(member(jo, "id", where), where + ".id");
        o.name = jo.contains("name") ? text_of(jo.at("name"), where + ".name") : "";
        o.kind = text_of(member(jo, "kind", where), where + ".kind");
        if (jo.contains("attrs")) {
            if (!jo.at("attrs").is_object()) bad(where + ".attrs", "expected an object");
            for (const auto &[name, value] : jo.at("attrs").items())
                o.attrs[name] = parse_attr(value, where + ".attrs." + name);
        }
        for (const char *side : {"inputs", "outputs"}) {
            const json &list = member(jo, side, where);
            if (!list.is_array()) bad(where + "." + side, "expected a list");
            for (size_t k = 0; k < list.size(); ++k)
                (side[0] == 'i' ? o.inputs : o.outputs)
                    .push_back(parse_tensor(list[k], where + "." + side + "[" + std::to_string(k) + "]"));
        }
        c.ops.push_back(std::move(o));
    }
    return c;
}

graph_case load_case(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw case_error(path + ": cannot open");
    std::stringstream text;
    text << in.rdbuf();
    return load_case_text(text.str(), path);
}

void case_knobs::apply(graph_case &c) const {
    bool reinfer = false;
    const std::vector<size_t> input_list = c.graph_inputs();
    const std::set<size_t> inputs(input_list.begin(), input_list.end());
    auto for_tensor = [&](size_t id, const std::function<void(tensor_desc &)> &f) {
        bool found = false;
        for (auto &o : c.ops)
            for (auto *list : {&o.inputs, &o.outputs})
                for (auto &t : *list)
                    if (t.id == id) f(t), found = true;
        return found;
    };
    auto input_desc = [&](size_t id) -> tensor_desc & {
        for (auto &o : c.ops)
            for (auto &t : o.inputs)
                if (t.id == id) return t;
        bad("graph input " + std::to_string(id), "not found");
    };
    if (!in_shapes.empty()) {
        for (const auto &[id, spec] : id_entries(in_shapes, "--in-shapes")) {
            const std::string where = "--in-shapes=" + std::to_string(id) + ":" + spec;
            if (!inputs.count(id)) bad(where, "tensor " + std::to_string(id) + " is not a graph input");
            std::string shape_text = spec, layout_text;
            if (auto star = spec.find('*'); star != std::string::npos)
                layout_text = spec.substr(star + 1), shape_text = spec.substr(0, star);
            dims shape;
            if (shape_text.empty()) { // ID:*TAG keeps the case's shape
                const tensor_desc &t = input_desc(id);
                if (!t.known_rank) bad(where, "the case gives tensor " + std::to_string(id) + " no shape to keep");
                shape = t.shape;
            } else {
                shape = parse_dims(shape_text, where);
            }
            dims strides;
            if (!layout_text.empty())
                strides = std::isdigit(static_cast<unsigned char>(layout_text[0]))
                              ? parse_dims(layout_text, where)
                              : strides_from_tag(shape, layout_text, where);
            if (!strides.empty() && strides.size() != shape.size()) bad(where, "strides and shape differ in rank");
            for_tensor(id, [&](tensor_desc &t) {
                t.shape = shape, t.strides = strides, t.known_rank = true;
                t.layout = logical_tensor::layout_type::strided;
            });
        }
        reinfer = true;
    }
    if (mb > 0) { // the batch: dim 0 of the largest-rank inputs whose dim 0 is the largest
        size_t rank = 0;
        int64_t batch = 0;
        for (size_t id : input_list) rank = std::max(rank, input_desc(id).shape.size());
        for (size_t id : input_list)
            if (input_desc(id).shape.size() == rank && rank) batch = std::max(batch, input_desc(id).shape[0]);
        for (size_t id : input_list) {
            const tensor_desc &t = input_desc(id);
            if (t.shape.size() != rank || !rank || t.shape[0] != batch) continue;
            dims shape = t.shape;
            shape[0] = mb;
            // Dense again, in the dim order the tensor had (as benchdnn keeps a memory tag).
            const dims strides =
                t.strides.empty() ? dims{} : dense_strides(shape, dim_order(t.strides), "--mb=" + std::to_string(mb));
            for_tensor(id, [&](tensor_desc &d) { d.shape = shape, d.strides = strides; });
        }
        reinfer = true;
    }
    if (!dt.empty()) {
        if (dt.find(':') == std::string::npos) {
            const data_type all = parse_dt(dt, "--dt=" + dt);
            for (size_t id : inputs) for_tensor(id, [&](tensor_desc &t) { t.dt = all; });
        } else {
            for (const auto &[id, name] : id_entries(dt, "--dt")) {
                const std::string where = "--dt=" + std::to_string(id) + ":" + name;
                const data_type t = parse_dt(name, where);
                if (!for_tensor(id, [&](tensor_desc &d) { d.dt = t; }))
                    bad(where, "no tensor with id " + std::to_string(id));
            }
        }
        reinfer = true;
    }
    if (!op_kind.empty()) {
        for (const auto &[id, kind] : id_entries(op_kind, "--op-kind")) {
            const std::string where = "--op-kind=" + std::to_string(id) + ":" + kind;
            try {
                fusebox::op_kind_from_name(kind);
            } catch (const fusebox::error &) {
                bad(where, "unknown op kind \"" + kind + "\"");
            }
            for (op_desc *o : ops_with_id(c, id, where)) o->kind = kind;
        }
        reinfer = true;
    }
    if (!op_attrs.empty()) {
        for (const auto &[id, list] : id_entries(op_attrs, "--op-attrs")) {
            const std::string where = "--op-attrs=" + std::to_string(id) + ":" + list;
            auto targets = ops_with_id(c, id, where);
            for (const auto &nv : split(list, '*')) {
                const auto colon = nv.find(':');
                if (colon == std::string::npos || colon + 1 == nv.size())
                    bad(where, "expected NAME:VALUE, got \"" + nv + "\"");
                const std::string name = nv.substr(0, colon);
                const auto value = attr_from_text(name, nv.substr(colon + 1), where + ": " + name);
                for (op_desc *o : targets) o->attrs[name] = value;
            }
        }
        reinfer = true;
    }
    if (!fpmath.empty()) {
        const auto parts = split(fpmath, ':');
        if (parts.size() > 2 || (parts.size() == 2 && parts[1] != "true" && parts[1] != "false"))
            bad("--attr-fpmath=" + fpmath, "expected MODE[:true|false]");
        c.fpmath_mode = parts[0];
        c.fpmath_applies_to_int = parts.size() == 2 && parts[1] == "true";
        c.math_mode(); // validates
    }
    // Everything downstream of a rewritten input is inferred anew, but for the
    // type a cast produces: its target, which nothing infers.
    std::set<size_t> cast_outputs;
    for (const auto &o : c.ops)
        if (o.kind == "TypeCast" || o.kind == "Cast")
            for (const auto &t : o.outputs) cast_outputs.insert(t.id);
    if (reinfer)
        for (auto &o : c.ops)
            for (auto *list : {&o.inputs, &o.outputs})
                for (auto &t : *list)
                    if (!inputs.count(t.id)) {
                        // --mb keeps every tensor's dim order; --in-shapes sets the inputs'
                        // layouts, and the outputs follow them (fusebox's any).
                        if (in_shapes.empty() && t.known_rank && t.layout == logical_tensor::layout_type::strided &&
                            !t.strides.empty())
                            t.order = dim_order(t.strides);
                        t.known_rank = false, t.shape.clear(), t.strides.clear();
                        t.layout = logical_tensor::layout_type::any;
                        if ((&o.outputs == list || !dt.empty()) && !cast_outputs.count(t.id)) t.dt = data_type::undef;
                    }
}

} // namespace fbbench

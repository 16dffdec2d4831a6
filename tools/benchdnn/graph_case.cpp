#include "graph_case.hpp"

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fbbench {
namespace {

using json = nlohmann::json;
using fusebox::logical_tensor;

[[noreturn]] void bad(const std::string &where, const std::string &why) { throw case_error(where + ": " + why); }

const json &member(const json &j, const char *key, const std::string &where) {
    if (!j.is_object() || !j.contains(key)) bad(where, std::string("missing \"") + key + "\"");
    return j.at(key);
}

template <typename T> T get(const json &j, const std::string &where, const char *expected) {
    try {
        return j.get<T>();
    } catch (const json::exception &) {
        bad(where, std::string("expected ") + expected + ", got " + j.dump());
    }
}

data_type parse_dt(const std::string &name, const std::string &where) {
    static const std::map<std::string, data_type> names = {
        {"f16", data_type::f16},         {"bf16", data_type::bf16},     {"f32", data_type::f32},
        {"f64", data_type::f64},         {"s8", data_type::s8},         {"u8", data_type::u8},
        {"s16", data_type::s16},         {"u16", data_type::u16},       {"s32", data_type::s32},
        {"u32", data_type::u32},         {"s64", data_type::s64},       {"u64", data_type::u64},
        {"boolean", data_type::boolean}, {"string", data_type::string}, {"undef", data_type::undef}};
    auto it = names.find(name);
    if (it == names.end()) bad(where, "unknown data type \"" + name + "\"");
    return it->second;
}

tensor_desc parse_tensor(const json &j, const std::string &where) {
    tensor_desc t;
    t.id = get<size_t>(member(j, "id", where), where + ".id", "an unsigned integer");
    t.dt = parse_dt(get<std::string>(member(j, "dtype", where), where + ".dtype", "a string"), where + ".dtype");
    if (j.contains("shape")) {
        t.shape = get<dims>(j.at("shape"), where + ".shape", "a list of integers");
        t.known_rank = true;
        // oneDNN writes unknown rank as shape [-1] with a layout of any.
    }
    if (j.contains("stride")) t.strides = get<dims>(j.at("stride"), where + ".stride", "a list of integers");
    std::string layout = j.contains("layout_type")
                             ? get<std::string>(j.at("layout_type"), where + ".layout_type", "a string")
                             : "strided";
    if (layout == "strided")
        t.layout = logical_tensor::layout_type::strided;
    else if (layout == "any")
        t.layout = logical_tensor::layout_type::any;
    else if (layout == "undef")
        t.layout = logical_tensor::layout_type::undef;
    else
        bad(where + ".layout_type", "unsupported layout \"" + layout + "\"");
    std::string prop = j.contains("property_type")
                           ? get<std::string>(j.at("property_type"), where + ".property_type", "a string")
                           : "undef";
    if (prop == "constant")
        t.property = logical_tensor::property_type::constant;
    else if (prop == "variable")
        t.property = logical_tensor::property_type::variable;
    if (t.layout != logical_tensor::layout_type::strided) t.strides.clear();
    if (!t.strides.empty() && t.strides.size() != t.shape.size())
        bad(where + ".stride",
            std::to_string(t.strides.size()) + " strides for " + std::to_string(t.shape.size()) + " dims");
    for (int64_t d : t.strides)
        if (d < 0) t.strides.clear(); // -1 strides: not fixed yet
    return t;
}

float parse_f32(const json &v, const std::string &where) {
    if (v.is_string()) { // non-finite values, as fusebox's graph dumps write them
        const std::string s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<float>::infinity();
        if (s == "-inf") return -std::numeric_limits<float>::infinity();
    }
    return get<float>(v, where, "a number");
}

fusebox::op::attr_value parse_attr(const json &j, const std::string &where) {
    const std::string type = get<std::string>(member(j, "type", where), where + ".type", "a string");
    const json &v = member(j, "value", where);
    if (type == "string") return get<std::string>(v, where + ".value", "a string");
    if (type == "s64") return get<int64_t>(v, where + ".value", "an integer");
    if (type == "bool") return v.is_boolean() ? v.get<bool>() : get<int64_t>(v, where + ".value", "a bool") != 0;
    if (type == "s64[]") return get<std::vector<int64_t>>(v, where + ".value", "a list of integers");
    if (type == "f32") return parse_f32(v, where + ".value");
    if (type == "f32[]") {
        if (!v.is_array()) bad(where + ".value", "expected a list of numbers");
        std::vector<float> out;
        for (size_t i = 0; i < v.size(); ++i) out.push_back(parse_f32(v[i], where + ".value[" + std::to_string(i) + "]"));
        return out;
    }
    bad(where + ".type", "unsupported attribute type \"" + type + "\"");
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream is(s);
    while (std::getline(is, cur, sep)) out.push_back(cur);
    return out;
}

// A knob's attribute value, typed like the attribute the case already has,
// else by its spelling (true/false, integer, real, AxB list, text).
fusebox::op::attr_value attr_from_text(const std::string &value, const fusebox::op::attr_value *existing,
                                       const std::string &where) {
    auto integer = [&](const std::string &t) {
        size_t pos = 0;
        long long v = 0;
        try {
            v = std::stoll(t, &pos);
        } catch (const std::exception &) {
            pos = std::string::npos;
        }
        if (t.empty() || pos != t.size()) bad(where, "bad integer \"" + t + "\"");
        return static_cast<int64_t>(v);
    };
    auto real = [&](const std::string &t) {
        size_t pos = 0;
        float v = 0;
        try {
            v = std::stof(t, &pos);
        } catch (const std::exception &) {
            pos = std::string::npos;
        }
        if (t.empty() || pos != t.size()) bad(where, "bad number \"" + t + "\"");
        return v;
    };
    auto list = [&](auto each) {
        std::vector<decltype(each(std::string()))> out;
        for (const auto &part : split(value, 'x')) out.push_back(each(part));
        return out;
    };
    if (existing) {
        switch (existing->index()) {
        case 0: return value;
        case 1: return integer(value);
        case 2: return list(integer);
        case 3: return real(value);
        case 4: return list(real);
        default:
            if (value != "true" && value != "false") bad(where, "expected true or false, got \"" + value + "\"");
            return value == "true";
        }
    }
    if (value == "true" || value == "false") return value == "true";
    if (!value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '-')) {
        if (value.find('x') != std::string::npos) return list(integer);
        if (value.find_first_of(".eE") != std::string::npos) return real(value);
        return integer(value);
    }
    return value;
}

std::vector<op_desc *> ops_with_id(graph_case &c, size_t id, const std::string &where) {
    std::vector<op_desc *> r;
    for (auto &o : c.ops)
        if (o.id == id) r.push_back(&o);
    if (r.empty()) bad(where, "no op with id " + std::to_string(id));
    return r;
}

size_t parse_id(const std::string &s, const std::string &where) {
    try {
        size_t pos;
        unsigned long long v = std::stoull(s, &pos);
        if (pos == s.size()) return v;
    } catch (const std::exception &) {
    }
    bad(where, "\"" + s + "\" is not an id");
}

// Strides for a permutation tag such as "acdb": letters name dims from the
// outermost to the innermost in memory.
dims strides_from_tag(const dims &shape, const std::string &tag, const std::string &where) {
    if (tag.size() != shape.size())
        bad(where, "tag \"" + tag + "\" does not match rank " + std::to_string(shape.size()));
    dims strides(shape.size(), 0);
    int64_t s = 1;
    std::set<int> seen;
    for (size_t k = tag.size(); k-- > 0;) {
        int d = tag[k] - 'a';
        if (d < 0 || d >= static_cast<int>(shape.size()) || !seen.insert(d).second)
            bad(where, "bad tag \"" + tag + "\"");
        strides[d] = s;
        s *= std::max<int64_t>(shape[d], 1);
    }
    return strides;
}

} // namespace

dims parse_dims(const std::string &text, const std::string &what) {
    if (text == "-") return {};
    dims d;
    for (const auto &part : split(text, 'x')) {
        size_t pos = 0;
        long long v = -1;
        try {
            v = std::stoll(part, &pos);
        } catch (const std::exception &) {
            pos = 0;
        }
        if (part.empty() || pos != part.size() || v < 0) throw case_error(what + ": bad dims \"" + text + "\"");
        d.push_back(v);
    }
    return d;
}

logical_tensor tensor_desc::to_logical() const {
    if (!known_rank || (shape.size() == 1 && shape[0] == -1 && layout != logical_tensor::layout_type::strided))
        return logical_tensor(id, dt, logical_tensor::layout_type::any);
    if (layout == logical_tensor::layout_type::strided && !strides.empty())
        return logical_tensor(id, dt, shape, strides, property);
    return logical_tensor(id, dt, shape, layout, property);
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
            bad(where + ".kind", "unsupported op kind \"" + o.kind + "\"");
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
                bad(where + ".attrs." + name, "unsupported attribute");
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
    for (const fusebox::op &o : to_ops()) g.add_op(o);
    return g;
}

graph_case load_case(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw case_error(path + ": cannot open");
    json j;
    try {
        j = json::parse(in);
    } catch (const json::parse_error &e) {
        bad(path, std::string("malformed JSON: ") + e.what());
    }
    graph_case c;
    c.path = path;
    if (j.contains("engine_kind"))
        c.engine_kind = get<std::string>(j.at("engine_kind"), path + ": engine_kind", "a string");
    if (c.engine_kind != "cpu") bad(path + ": engine_kind", "only \"cpu\" is supported, got \"" + c.engine_kind + "\"");
    if (j.contains("fpmath_mode"))
        c.fpmath_mode = get<std::string>(j.at("fpmath_mode"), path + ": fpmath_mode", "a string");
    const json &ops = member(j, "graph", path);
    if (!ops.is_array()) bad(path + ": graph", "expected a list of ops");
    for (size_t i = 0; i < ops.size(); ++i) {
        const std::string where = path + ": graph[" + std::to_string(i) + "]";
        const json &jo = ops[i];
        op_desc o;
        o.id = get<size_t>(member(jo, "id", where), where + ".id", "an unsigned integer");
        o.name = jo.contains("name") ? get<std::string>(jo.at("name"), where + ".name", "a string") : "";
        o.kind = get<std::string>(member(jo, "kind", where), where + ".kind", "a string");
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

void case_knobs::apply(graph_case &c) const {
    bool reinfer = false;
    std::set<size_t> inputs;
    for (size_t id : c.graph_inputs()) inputs.insert(id);
    auto for_tensor = [&](size_t id, const std::function<void(tensor_desc &)> &f) {
        bool found = false;
        for (auto &o : c.ops)
            for (auto *list : {&o.inputs, &o.outputs})
                for (auto &t : *list)
                    if (t.id == id) f(t), found = true;
        return found;
    };
    if (!in_shapes.empty()) {
        for (const auto &item : split(in_shapes, '+')) {
            const std::string where = "--in-shapes=" + item;
            auto colon = item.find(':');
            if (colon == std::string::npos) bad(where, "expected ID:SHAPE[*STRIDES|*TAG]");
            const size_t id = parse_id(item.substr(0, colon), where);
            if (!inputs.count(id)) bad(where, "tensor " + std::to_string(id) + " is not a graph input");
            std::string shape_text = item.substr(colon + 1), layout_text;
            if (auto star = shape_text.find('*'); star != std::string::npos)
                layout_text = shape_text.substr(star + 1), shape_text = shape_text.substr(0, star);
            dims shape = parse_dims(shape_text, where), strides;
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
    if (!dt.empty()) {
        if (dt.find(':') == std::string::npos) {
            const data_type all = parse_dt(dt, "--dt");
            for (size_t id : inputs) for_tensor(id, [&](tensor_desc &t) { t.dt = all; });
        } else {
            for (const auto &item : split(dt, '+')) {
                const std::string where = "--dt=" + item;
                auto colon = item.find(':');
                if (colon == std::string::npos) bad(where, "expected ID:DT");
                const size_t id = parse_id(item.substr(0, colon), where);
                const data_type t = parse_dt(item.substr(colon + 1), where);
                if (!for_tensor(id, [&](tensor_desc &d) { d.dt = t; }))
                    bad(where, "no tensor with id " + std::to_string(id));
            }
        }
        reinfer = true;
    }
    if (!op_kind.empty()) {
        for (const auto &item : split(op_kind, '+')) {
            const std::string where = "--op-kind=" + item;
            auto colon = item.find(':');
            if (colon == std::string::npos) bad(where, "expected ID:KIND");
            for (op_desc *o : ops_with_id(c, parse_id(item.substr(0, colon), where), where))
                o->kind = item.substr(colon + 1);
        }
        reinfer = true;
    }
    if (!op_attrs.empty()) {
        for (const auto &item : split(op_attrs, '+')) {
            const std::string where = "--op-attrs=" + item;
            auto colon = item.find(':');
            if (colon == std::string::npos) bad(where, "expected ID:NAME:VALUE[*NAME:VALUE]");
            auto targets = ops_with_id(c, parse_id(item.substr(0, colon), where), where);
            for (const auto &nv : split(item.substr(colon + 1), '*')) {
                auto c2 = nv.find(':');
                if (c2 == std::string::npos) bad(where, "expected NAME:VALUE, got \"" + nv + "\"");
                const std::string name = nv.substr(0, c2);
                for (op_desc *o : targets) {
                    auto it = o->attrs.find(name);
                    o->attrs[name] = attr_from_text(nv.substr(c2 + 1), it == o->attrs.end() ? nullptr : &it->second,
                                                    where + ": " + name);
                }
            }
        }
        reinfer = true;
    }
    // Everything downstream of a rewritten input is inferred anew.
    if (reinfer)
        for (auto &o : c.ops)
            for (auto *list : {&o.inputs, &o.outputs})
                for (auto &t : *list)
                    if (!inputs.count(t.id)) {
                        t.known_rank = false, t.shape.clear(), t.strides.clear();
                        t.layout = logical_tensor::layout_type::any;
                        if (&o.outputs == list || !dt.empty()) t.dt = data_type::undef;
                    }
}

} // namespace fbbench

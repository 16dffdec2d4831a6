#include <algorithm>
#include <atomic>
#include <map>
#include <set>

#include "common/errors.hpp"
#include "interface/dtype.hpp"
#include "interface/dump.hpp"
#include "interface/graph_impl.hpp"
#include "interface/handles.hpp"
#include "interface/op_schema.hpp"
#include "ops/elementwise.hpp"

namespace fusebox {
namespace {

using detail::access;
using detail::dims_of;
using detail::fail;
using detail::layout_name;
using detail::op_ref;
using detail::strides_of;
using dims = logical_tensor::dims;

logical_tensor with_shape(const logical_tensor &lt, data_type dt, const dims &shape) {
    if (lt.get_layout_type() == logical_tensor::layout_type::strided && strides_of(lt).size() == shape.size() &&
        lt.get_ndims() == static_cast<int32_t>(shape.size()))
        return logical_tensor(lt.get_id(), dt, shape, strides_of(lt), lt.get_property_type());
    auto layout = lt.get_layout_type() == logical_tensor::layout_type::undef ? logical_tensor::layout_type::any
                                                                             : lt.get_layout_type();
    return logical_tensor(lt.get_id(), dt, shape, layout, lt.get_property_type());
}

logical_tensor with_type(const logical_tensor &lt, data_type dt) {
    if (lt.get_ndims() >= 0) return with_shape(lt, dt, dims_of(lt));
    auto layout = lt.get_layout_type() == logical_tensor::layout_type::undef ? logical_tensor::layout_type::any
                                                                             : lt.get_layout_type();
    return logical_tensor(lt.get_id(), dt, layout);
}

// Combines two descriptors of one tensor id; throws when they contradict.
// Two declarations (`declared`) of known rank must also agree on the layout
// type, as in oneDNN (a descriptor of unknown rank says nothing of a layout
// yet); an inferred descriptor only adds what is unknown.
logical_tensor merge_descriptors(const logical_tensor &known, const logical_tensor &seen, const op &o,
                                 bool declared = false) {
    auto conflict = [&](const auto &...what) {
        fail(status::invalid_graph, op_ref(o), ": tensor id ", seen.get_id(), " is used with another ", what..., " (",
             data_type_name(seen.get_data_type()), detail::shape_str(seen), " here, ",
             data_type_name(known.get_data_type()), detail::shape_str(known), " elsewhere)");
    };
    if (declared && known.get_ndims() >= 0 && seen.get_ndims() >= 0 &&
        known.get_layout_type() != seen.get_layout_type())
        conflict("layout type: ", layout_name(seen.get_layout_type()), " vs ", layout_name(known.get_layout_type()));
    data_type dt = known.get_data_type();
    if (seen.get_data_type() != data_type::undef) {
        if (dt != data_type::undef && dt != seen.get_data_type()) conflict("data type");
        dt = seen.get_data_type();
    }
    if (known.get_ndims() < 0) return with_type(seen, dt);
    if (seen.get_ndims() < 0) return with_type(known, dt);
    if (known.get_ndims() != seen.get_ndims()) conflict("rank");
    dims shape = dims_of(known);
    for (size_t i = 0; i < shape.size(); ++i) {
        int64_t s = dims_of(seen)[i];
        if (s >= 0 && shape[i] >= 0 && s != shape[i]) conflict("extent of dim ", i, ": ", s, " vs ", shape[i]);
        if (shape[i] < 0) shape[i] = s;
    }
    const bool both_strided = known.get_layout_type() == logical_tensor::layout_type::strided &&
                              seen.get_layout_type() == logical_tensor::layout_type::strided;
    if (both_strided && known.has_known_shape() && seen.has_known_shape() && strides_of(known) != strides_of(seen))
        conflict("layout: strides ", detail::shape_str(strides_of(seen)), " vs ", detail::shape_str(strides_of(known)));
    return with_shape(known.get_layout_type() == logical_tensor::layout_type::strided ? known : seen, dt, shape);
}

std::atomic<uint64_t> next_graph_id{1};

void check_engine_kind(engine::kind k) {
    if (k != engine::kind::cpu)
        fail(status::invalid_arguments, "graph: only engine::kind::cpu exists (got kind ", static_cast<int>(k), ")");
}

void check_fpmath_mode(fpmath_mode m) {
    switch (m) {
    case fpmath_mode::strict:
    case fpmath_mode::bf16:
    case fpmath_mode::f16:
    case fpmath_mode::any:
    case fpmath_mode::tf32: return;
    }
    fail(status::invalid_arguments, "graph: fpmath mode value ", static_cast<int>(m), " is not an fpmath_mode");
}

} // namespace

namespace detail {

void finalize_graph(graph_impl &g) {
    std::vector<op> &ops = g.ops;

    // One descriptor per tensor id, one producer per tensor. The descriptors
    // the ops fusebox runs (and End) see must agree; those of other ops are
    // folded in where they add what is unknown, and their contradictions left
    // to the framework that runs those ops.
    std::map<size_t, logical_tensor> tensors;
    std::map<size_t, size_t> producer; // tensor id -> op index
    auto note = [&](const logical_tensor &lt, const op &o, bool strict) {
        auto [it, inserted] = tensors.emplace(lt.get_id(), lt);
        if (inserted) return;
        try {
            it->second = merge_descriptors(it->second, lt, o, true);
        } catch (const error &) {
            if (strict) throw;
        }
    };
    for (bool strict : {true, false})
        for (size_t i = 0; i < ops.size(); ++i) {
            if ((detail::runs_op(ops[i]) || ops[i].get_kind() == op::kind::End) != strict) continue;
            for (const auto &lt : ops[i].get_inputs()) note(lt, ops[i], strict);
            for (const auto &lt : ops[i].get_outputs()) {
                note(lt, ops[i], strict);
                auto [it, inserted] = producer.emplace(lt.get_id(), i);
                if (!inserted)
                    fail(status::invalid_graph, "tensor id ", lt.get_id(), " is produced by both ",
                         op_ref(ops[it->second]), " and ", op_ref(ops[i]));
            }
        }

    // Topological order (stable: ready ops run in add order); a leftover op means a cycle.
    std::vector<size_t> order, pending(ops.size());
    std::vector<std::vector<size_t>> users(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        for (const auto &lt : ops[i].get_inputs())
            if (auto p = producer.find(lt.get_id()); p != producer.end()) {
                if (p->second == i) fail(status::invalid_graph, op_ref(ops[i]), " consumes its own output");
                users[p->second].push_back(i), ++pending[i];
            }
    std::set<size_t> ready;
    for (size_t i = 0; i < ops.size(); ++i)
        if (!pending[i]) ready.insert(i);
    while (!ready.empty()) {
        size_t i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (size_t u : users[i])
            if (--pending[u] == 0) ready.insert(u);
    }
    if (order.size() != ops.size()) fail(status::invalid_graph, "graph has a cycle");

    // Infer types and shapes in execution order through the ops fusebox runs;
    // every other op keeps the descriptors the integrator declared.
    std::vector<op> ordered;
    for (size_t i : order) {
        op o = ops[i];
        for (auto &lt : access::inputs(o)) {
            lt = tensors.at(lt.get_id());
            if (lt.get_data_type() == data_type::undef && !producer.count(lt.get_id()) && detail::runs_op(o))
                fail(status::invalid_data_type, op_ref(o), ": input tensor ", lt.get_id(),
                     " has no data type and no producer to infer it from");
        }
        for (auto &lt : access::outputs(o)) lt = tensors.at(lt.get_id());
        if (detail::runs_op(o)) {
            detail::validate_types(o); // the types known now
            std::vector<data_type> types;
            std::vector<logical_tensor::dims> shapes;
            bool shapes_known = true;
            for (const auto &in : o.get_inputs()) {
                types.push_back(in.get_data_type());
                shapes_known = shapes_known && in.get_ndims() >= 0;
                if (shapes_known) shapes.push_back(dims_of(in));
            }
            const data_type dt = detail::infer_output_type(o, types);
            logical_tensor inferred = with_type(o.get_outputs()[0], dt);
            if (shapes_known) inferred = with_shape(o.get_outputs()[0], dt, detail::infer_output_shape(o, shapes));
            logical_tensor &out = tensors.at(o.get_outputs()[0].get_id());
            out = merge_descriptors(out, inferred, o);
            access::outputs(o)[0] = out;
        }
        ordered.push_back(std::move(o));
    }
    ops = std::move(ordered);
    g.finalized = true;
}

} // namespace detail

graph::graph(engine::kind k) : graph(k, fpmath_mode::strict) {}

graph::graph(engine::kind k, fpmath_mode mode) : impl_(std::make_shared<detail::graph_impl>()) {
    check_engine_kind(k);
    check_fpmath_mode(mode);
    impl_->id = next_graph_id++;
    impl_->engine_kind = k;
    impl_->math = mode;
}

void graph::set_fpmath_mode(fpmath_mode mode, bool apply_to_int) {
    check_fpmath_mode(mode);
    if (impl_->finalized) fail(status::invalid_graph, "set_fpmath_mode: graph is already finalized");
    impl_->math = mode;
    impl_->math_applies_to_int = apply_to_int;
}

void graph::get_fpmath_mode(fpmath_mode &mode, bool &apply_to_int) const {
    mode = impl_->math;
    apply_to_int = impl_->math_applies_to_int;
}

bool graph::is_finalized() const { return impl_->finalized; }

void graph::set_deterministic(bool deterministic) {
    if (impl_->finalized) fail(status::invalid_graph, "set_deterministic: graph is already finalized");
    impl_->deterministic = deterministic;
}

bool graph::get_deterministic() const { return impl_->deterministic; }

status graph::add_op(const op &o, bool allow_exception) {
    try {
        if (impl_->finalized) fail(status::invalid_graph, op_ref(o), ": graph is already finalized");
        for (const op &existing : impl_->ops)
            if (existing.get_id() == o.get_id())
                fail(status::invalid_graph, op_ref(o), ": op id is already in the graph");
        detail::validate_op(o);
        detail::translate_exceptions("add_op", [&] { impl_->ops.push_back(access::clone(o)); });
    } catch (const error &e) {
        if (allow_exception) throw;
        return e.get_status();
    }
    return status::success;
}

void graph::finalize() {
    if (impl_->finalized) return;
    detail::translate_exceptions("finalize", [&] {
        detail::finalize_graph(*impl_);
        detail::dump_graph(*impl_);
    });
}

} // namespace fusebox

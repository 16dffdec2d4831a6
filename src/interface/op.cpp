#include "interface/errors.hpp"

namespace fusebox {

op::op(size_t id, kind k, std::vector<logical_tensor> inputs, std::vector<logical_tensor> outputs, std::string name)
    : id_(id), kind_(k), inputs_(std::move(inputs)), outputs_(std::move(outputs)), name_(std::move(name)) {}

op &op::set_attr(attr a, const std::string &value) { return attrs_[a] = value, *this; }
op &op::set_attr(attr a, int64_t value) { return attrs_[a] = value, *this; }
op &op::set_attr(attr a, const std::vector<int64_t> &value) { return attrs_[a] = value, *this; }
op &op::add_input(const logical_tensor &lt) { return inputs_.push_back(lt), *this; }
op &op::add_output(const logical_tensor &lt) { return outputs_.push_back(lt), *this; }

const char *op_kind_name(op::kind k) {
    switch (k) {
    case op::kind::Add: return "Add";
    case op::kind::Equal: return "Equal";
    case op::kind::End: return "End";
    }
    return "unknown";
}

engine::engine(kind k, size_t index) : kind_(k) {
    if (k != kind::cpu) detail::fail(status::invalid_arguments, "engine: only engine::kind::cpu exists");
    if (index != 0)
        detail::fail(status::invalid_arguments, "engine: cpu engine index ", index, " does not exist (only 0)");
}

stream::stream(const engine &e) : engine_(e) {}

tensor::tensor(const logical_tensor &lt, const engine &, void *handle) : lt_(lt), handle_(handle) {}

} // namespace fusebox

#include "common/errors.hpp"

namespace fusebox {

op::op(size_t id, kind k, const std::string &name) : id_(id), kind_(k), name_(name) {}

op::op(size_t id, kind k, std::vector<logical_tensor> inputs, std::vector<logical_tensor> outputs, std::string name)
    : id_(id), kind_(k), inputs_(std::move(inputs)), outputs_(std::move(outputs)), name_(std::move(name)) {}

op &op::set_attr_value(attr a, attr_value value) { return attrs_[a] = std::move(value), *this; }
op &op::set_attr(attr a, const std::string &value) { return set_attr_value(a, value); }
op &op::set_attr(attr a, int64_t value) { return set_attr_value(a, value); }
op &op::set_attr(attr a, const std::vector<int64_t> &value) { return set_attr_value(a, value); }
op &op::add_input(const logical_tensor &lt) { return inputs_.push_back(lt), *this; }
op &op::add_output(const logical_tensor &lt) { return outputs_.push_back(lt), *this; }
op &op::add_inputs(const std::vector<logical_tensor> &lts) {
    return inputs_.insert(inputs_.end(), lts.begin(), lts.end()), *this;
}
op &op::add_outputs(const std::vector<logical_tensor> &lts) {
    return outputs_.insert(outputs_.end(), lts.begin(), lts.end()), *this;
}

} // namespace fusebox

#include "common/access.hpp"
#include "interface/op_impl.hpp"

namespace fusebox {

op::op(size_t id, kind k, const std::string &name) : impl_(std::make_shared<fusebox_op>()) {
    impl_->id = id;
    impl_->kind = k;
    impl_->name = name;
}

op::op(size_t id, kind k, std::vector<logical_tensor> inputs, std::vector<logical_tensor> outputs, std::string name)
    : op(id, k, name) {
    impl_->inputs = std::move(inputs);
    impl_->outputs = std::move(outputs);
}

size_t op::get_id() const { return impl_->id; }
op::kind op::get_kind() const { return impl_->kind; }
const std::string &op::get_name() const { return impl_->name; }
const std::vector<logical_tensor> &op::get_inputs() const { return impl_->inputs; }
const std::vector<logical_tensor> &op::get_outputs() const { return impl_->outputs; }
const std::map<op::attr, op::attr_value> &op::get_attrs() const { return impl_->attrs; }

op &op::set_attr_value(attr a, attr_value value) { return impl_->attrs[a] = std::move(value), *this; }
op &op::set_attr(attr a, const std::string &value) { return set_attr_value(a, value); }
op &op::set_attr(attr a, int64_t value) { return set_attr_value(a, value); }
op &op::set_attr(attr a, const std::vector<int64_t> &value) { return set_attr_value(a, value); }
op &op::add_input(const logical_tensor &lt) { return impl_->inputs.push_back(lt), *this; }
op &op::add_output(const logical_tensor &lt) { return impl_->outputs.push_back(lt), *this; }
op &op::add_inputs(const std::vector<logical_tensor> &lts) {
    return impl_->inputs.insert(impl_->inputs.end(), lts.begin(), lts.end()), *this;
}
op &op::add_outputs(const std::vector<logical_tensor> &lts) {
    return impl_->outputs.insert(impl_->outputs.end(), lts.begin(), lts.end()), *this;
}

} // namespace fusebox

namespace fusebox::detail {

std::vector<logical_tensor> &access::inputs(op &o) { return o.impl_->inputs; }
std::vector<logical_tensor> &access::outputs(op &o) { return o.impl_->outputs; }
op access::clone(const op &o) { return op(std::make_shared<fusebox_op>(*o.impl_)); }

} // namespace fusebox::detail

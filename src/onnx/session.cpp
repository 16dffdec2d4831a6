// An imported model compiled for concrete shapes and run partition by
// partition (include/fusebox/onnx.hpp).
#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <map>

#include "onnx/onnx_internal.hpp"

namespace fusebox {
namespace onnx {

struct session::impl {
    model m;
    engine eng;
    struct step {
        compiled_partition cp;
        std::vector<size_t> inputs, outputs; // value ids
    };
    std::vector<step> steps;
    std::map<size_t, logical_tensor> lts;   // every value as compiled
    std::map<size_t, tensor> intermediates; // values between partitions, owned by the session
    size_t bytes = 0;
};

namespace {
[[noreturn]] void fail(status s, const std::string &what) { throw error(s, "onnx session: " + what); }

const session::impl &live(const std::shared_ptr<const session::impl> &p) {
    if (!p) fail(status::invalid_arguments, "the session was moved from");
    return *p;
}
} // namespace

session::session(const model &m, const engine &e, const std::vector<logical_tensor> &inputs, partition::policy p) {
    auto s = std::make_shared<impl>(impl{m, e, {}, {}, {}, 0});
    const model::impl &mi = m.self();
    for (const tensor &c : mi.constants) s->lts[c.get_logical_tensor().get_id()] = c.get_logical_tensor();
    for (const logical_tensor &lt : inputs) {
        bool is_input = false;
        for (const value &v : mi.inputs) is_input = is_input || v.lt.get_id() == lt.get_id();
        if (!is_input)
            fail(status::invalid_arguments, "logical tensor " + std::to_string(lt.get_id()) + " is no model input");
        s->lts[lt.get_id()] = lt;
    }
    for (const value &v : mi.inputs) {
        if (s->lts.count(v.lt.get_id())) continue;
        if (!v.lt.has_known_shape())
            fail(status::invalid_shape,
                 "input '" + v.name + "' has no concrete shape (give it to the session or the import)");
        s->lts[v.lt.get_id()] = logical_tensor(v.lt.get_id(), v.lt.get_data_type(), v.lt.get_dims());
    }
    graph g = mi.g;
    std::string framework;
    for (const partition &part : g.get_partitions(p)) {
        if (part.is_supported()) continue;
        for (size_t id : part.get_ops())
            for (const node &n : mi.nodes)
                if (n.op_id == id) framework += (framework.empty() ? "" : ", ") + n.name + " (" + n.op_type + ")";
    }
    if (!framework.empty())
        fail(status::unimplemented,
             "the framework runs " + framework + "; a session runs only models fusebox runs whole");
    for (const partition &part : g.get_partitions(p)) {
        impl::step st;
        std::vector<logical_tensor> ins, outs;
        for (const logical_tensor &port : part.get_input_ports()) {
            ins.push_back(s->lts.at(port.get_id()));
            st.inputs.push_back(port.get_id());
        }
        for (const logical_tensor &port : part.get_output_ports()) {
            outs.emplace_back(port.get_id(), port.get_data_type(), logical_tensor::layout_type::any);
            st.outputs.push_back(port.get_id());
        }
        st.cp = part.compile(ins, outs, e);
        for (size_t id : st.outputs) s->lts[id] = st.cp.query_logical_tensor(id);
        for (size_t id : st.inputs) s->bytes += s->lts.at(id).get_mem_size();
        for (size_t id : st.outputs) s->bytes += s->lts.at(id).get_mem_size();
        s->steps.push_back(std::move(st));
    }
    for (const impl::step &st : s->steps)
        for (size_t id : st.outputs) {
            bool is_output = false;
            for (const value &v : mi.outputs) is_output = is_output || v.lt.get_id() == id;
            if (!is_output) s->intermediates.emplace(id, tensor(s->lts.at(id), e));
        }
    for (const value &v : mi.outputs)
        if (!s->lts.count(v.lt.get_id()))
            fail(status::invalid_graph, "output '" + v.name + "' is produced by no partition");
    impl_ = s;
}

std::vector<logical_tensor> session::get_output_logical_tensors() const {
    const impl &self = live(impl_);
    std::vector<logical_tensor> out;
    for (const value &v : self.m.get_outputs()) out.push_back(self.lts.at(v.lt.get_id()));
    return out;
}

void session::run(stream &s, const std::vector<tensor> &inputs, const std::vector<tensor> &outputs) const {
    const impl &self = live(impl_);
    std::map<size_t, tensor> at = self.intermediates;
    for (const tensor &c : self.m.get_constants()) at[c.get_logical_tensor().get_id()] = c;
    for (const tensor &t : inputs) {
        const size_t id = t.get_logical_tensor().get_id();
        bool is_input = false;
        for (const value &v : self.m.get_inputs()) is_input = is_input || v.lt.get_id() == id;
        if (!is_input) fail(status::invalid_arguments, "tensor " + std::to_string(id) + " is no model input");
        if (t.get_logical_tensor().get_mem_size() < self.lts.at(id).get_mem_size())
            fail(status::invalid_arguments, "input tensor " + std::to_string(id) + " is smaller than its input");
        at[id] = t;
    }
    for (const value &v : self.m.get_inputs())
        if (!at.count(v.lt.get_id())) fail(status::invalid_arguments, "no tensor for input '" + v.name + "'");
    const auto &outs = self.m.get_outputs();
    if (outputs.size() != outs.size())
        fail(status::invalid_arguments,
             std::to_string(outputs.size()) + " output tensors for " + std::to_string(outs.size()) + " outputs");
    // A partition writes an output straight into the caller's tensor (the first
    // one, where a name is listed twice). Inputs and constants that are also
    // outputs keep their own tensors and are copied out after the run.
    std::map<size_t, tensor> sources = at;
    for (size_t k = 0; k < outs.size(); ++k) {
        const size_t id = outs[k].lt.get_id();
        if (outputs[k].get_logical_tensor().get_id() != id)
            fail(status::invalid_arguments, "output tensor " + std::to_string(k) + " is not logical tensor " +
                                                std::to_string(id) + " ('" + outs[k].name + "')");
        if (outputs[k].get_logical_tensor().get_mem_size() < self.lts.at(id).get_mem_size())
            fail(status::invalid_arguments, "output tensor " + std::to_string(k) + " ('" + outs[k].name +
                                                "') is smaller than the output it receives");
        if (!sources.count(id)) at[id] = sources[id] = outputs[k];
    }
    for (const impl::step &st : self.steps) {
        std::vector<tensor> in, out;
        for (size_t id : st.inputs) in.push_back(at.at(id));
        for (size_t id : st.outputs) out.push_back(at.at(id));
        st.cp.execute(s, in, out);
    }
    for (size_t k = 0; k < outs.size(); ++k) {
        const tensor &src = sources.at(outs[k].lt.get_id());
        const size_t bytes = self.lts.at(outs[k].lt.get_id()).get_mem_size();
        if (src.get_data_handle() != outputs[k].get_data_handle() && bytes)
            std::memcpy(outputs[k].get_data_handle(), src.get_data_handle(), bytes);
    }
}

size_t session::bytes_moved() const { return live(impl_).bytes; }

std::vector<std::string> session::get_impl_info() const {
    const impl &self = live(impl_);
    std::vector<std::string> out;
    for (const impl::step &st : self.steps) out.push_back(st.cp.get_impl_info());
    return out;
}

tensor_file load_tensor(const std::string &path, size_t id, const engine &e, data_type read_as) {
    std::ifstream in(path, std::ios::binary);
    ::onnx::TensorProto t;
    if (!in || !t.ParseFromIstream(&in))
        throw error(status::invalid_arguments, "cannot read a TensorProto from '" + path + "'");
    owned_tensor o = read_tensor_proto(t, id, read_as);
    const logical_tensor lt(id, o.lt.get_data_type(), o.lt.get_dims());
    tensor_file f{t.name(), tensor(lt, e), o.strings};
    if (lt.get_mem_size()) std::memcpy(f.data.get_data_handle(), o.bytes.data(), lt.get_mem_size());
    return f;
}

} // namespace onnx
} // namespace fusebox

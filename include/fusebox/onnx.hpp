// fusebox's ONNX front end: an ONNX model imported into a fusebox graph.
//
// Link fusebox::onnx (find_package(fusebox COMPONENTS onnx)). The header needs
// no ONNX or protobuf headers; the library reads the ModelProto itself.
#ifndef FUSEBOX_ONNX_HPP
#define FUSEBOX_ONNX_HPP

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fusebox/fusebox.hpp"

namespace fusebox {
namespace onnx {

/// How a model is imported.
struct import_options {
    /// Shapes of graph inputs by name. They override the model's dims, the
    /// symbolic ones ("batch") included; a rank that differs from the
    /// model's is an error. Dims the model leaves symbolic are otherwise unknown (-1).
    std::map<std::string, logical_tensor::dims> shapes;
    /// The fpmath mode of the fusebox graph.
    fpmath_mode fpmath = fpmath_mode::strict;
};

/// A named value of the model: its fusebox logical tensor (id, type, shape
/// as far as the model and the given shapes tell).
struct value {
    std::string name;
    logical_tensor lt;
};

/// A node of the model and the fusebox op it became.
struct node {
    std::string name;    ///< the node's name, or "<op_type>_<index>" when the model gives none
    std::string domain;  ///< "" for ai.onnx
    std::string op_type; ///< e.g. "Add"
    int version = 0;     ///< the version of the op in force at the model's opset (0: not an ai.onnx op fusebox knows)
    size_t op_id = 0;    ///< the fusebox op: the node's index in the model
    op::kind kind = op::kind::Wildcard;
    /// Empty when fusebox runs the node; else why it is a Wildcard the framework runs.
    std::string unsupported_reason;
    std::vector<std::string> inputs, outputs; ///< value names ("" for an absent optional input)
};

/// An imported model: a finalized fusebox graph of its nodes, Constant nodes
/// and initializers as constant tensors whose data the model keeps alive.
/// Every ai.onnx node fusebox runs maps with the semantics of the version the
/// model's opset puts in force (types, attributes, legacy broadcasting);
/// every other node becomes a Wildcard op with the same inputs and outputs.
/// A handle: copies share the model.
class model {
public:
    /// Reads a model file. Throws fusebox::error: invalid_arguments when the
    /// file cannot be read or parsed, invalid_graph / invalid_data_type /
    /// invalid_shape naming the node when the ONNX spec rejects the model.
    static model load(const std::string &path, const import_options &options = {});
    /// Reads a serialized ModelProto.
    static model load_bytes(const void *data, size_t size, const import_options &options = {});

    /// The ai.onnx opset the model imports.
    int64_t get_opset_version() const;
    /// The finalized graph.
    graph get_graph() const;
    /// The graph's partitions (graph::get_partitions).
    std::vector<partition> get_partitions(partition::policy p = partition::policy::fusion) const;
    /// The graph inputs the caller supplies (initializers excluded), in model order.
    const std::vector<value> &get_inputs() const;
    /// The graph outputs, in model order.
    const std::vector<value> &get_outputs() const;
    /// Every node, in model order (Constant nodes included: they became constants).
    const std::vector<node> &get_nodes() const;
    /// The constant tensors (initializers, Constant nodes, and the bounds
    /// standing for Clip's absent min/max): bound to data the model owns, so a
    /// copy of one is valid while the model (or a copy of it, or a session
    /// made from it) lives.
    const std::vector<tensor> &get_constants() const;
    /// The value of a name or of a logical tensor id; throws invalid_arguments for unknown ones.
    const value &get_value(const std::string &name) const;
    const value &get_value(size_t id) const;
    /// The node an op id came from; throws invalid_arguments for unknown ids.
    const node &get_node(size_t op_id) const;

    struct impl; ///< the library's

private:
    friend class session;
    explicit model(std::shared_ptr<const impl> p) : impl_(std::move(p)) {}
    const impl &self() const; // throws invalid_arguments on a moved-from model
    std::shared_ptr<const impl> impl_;
};

/// A model compiled for concrete input shapes: every partition compiled, the
/// intermediate values allocated once through the engine's allocator.
class session {
public:
    /// `inputs`: logical tensors of the model's inputs by id, concrete shapes
    /// (the model's own where omitted and fully known). Throws unimplemented
    /// naming the nodes when a partition is not one fusebox runs (the
    /// framework's ops: a session never runs them).
    session(const model &m, const engine &e, const std::vector<logical_tensor> &inputs = {},
            partition::policy p = partition::policy::fusion);
    /// The logical tensors of the model's outputs as compiled, in model order.
    std::vector<logical_tensor> get_output_logical_tensors() const;
    /// Runs every partition in order; `inputs` are matched to the model's
    /// inputs by logical tensor id, `outputs` to its outputs. One run at a
    /// time per session (the intermediates are the session's).
    void run(stream &s, const std::vector<tensor> &inputs, const std::vector<tensor> &outputs) const;
    /// Bytes one run reads and writes: every partition's input and output
    /// tensors (constants included), the traffic of the fused (or debug) run.
    size_t bytes_moved() const;
    /// The compiled partitions and their implementations, in run order.
    std::vector<std::string> get_impl_info() const;

    struct impl; ///< the library's

private:
    std::shared_ptr<const impl> impl_;
};

/// A serialized TensorProto (an ONNX backend test's input_K.pb / output_K.pb).
struct tensor_file {
    std::string name;                       ///< the TensorProto's name
    tensor data;                            ///< dense row-major, its buffer allocated through the engine
    std::shared_ptr<const void> keep_alive; ///< owns the bytes of string elements
};
/// Reads a TensorProto file as logical tensor `id`. `read_as` bf16 reads
/// uint16 data as bf16 (test data written by numpy, which has no bfloat16).
tensor_file load_tensor(const std::string &path, size_t id, const engine &e, data_type read_as = data_type::undef);

} // namespace onnx
} // namespace fusebox

#endif // FUSEBOX_ONNX_HPP

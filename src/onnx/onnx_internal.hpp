// Shared by the importer and the session (not installed).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fusebox/onnx.hpp"

namespace onnx {
class TensorProto;
}

namespace fusebox {
namespace onnx {

/// A tensor's elements owned by the library: dense bytes (string elements are
/// views into `strings`).
struct owned_tensor {
    logical_tensor lt;
    std::vector<unsigned char> bytes;
    std::shared_ptr<std::vector<std::string>> strings;
};

/// What an imported model holds.
struct model::impl {
    int64_t opset = 0;
    graph g{engine::kind::cpu};
    std::vector<value> values; // by id
    std::map<std::string, size_t> ids;
    std::vector<value> inputs, outputs;
    std::vector<node> nodes;
    std::vector<owned_tensor> constant_data;
    std::vector<tensor> constants;
    engine eng{engine::kind::cpu};
};

/// The fusebox type of an ONNX TensorProto data type (undef: fusebox has none).
data_type to_fusebox_type(int onnx_type);
/// "float", "int64", ...
const char *onnx_type_label(int onnx_type);
/// True for the ai.onnx op types the importer maps onto fusebox ops.
bool is_onnx_elementwise(const std::string &op_type);
/// The elements of `t` as logical tensor `id` (property constant).
owned_tensor read_tensor_proto(const ::onnx::TensorProto &t, size_t id, data_type read_as);

} // namespace onnx
} // namespace fusebox

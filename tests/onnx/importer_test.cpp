// The ONNX importer's semantics: versions in force, legacy broadcasting,
// constants, Wildcards, symbolic shapes and the errors of models the spec
// rejects. Models are built here as ModelProtos.
#include <gtest/gtest.h>

#include <fusebox/onnx.hpp>
#include <onnx/onnx_pb.h>

#include "test_util.hpp"

namespace {

using namespace fbt;
namespace fx = fusebox::onnx;
using ::onnx::TensorProto;

struct model_builder {
    ::onnx::ModelProto m;
    explicit model_builder(int64_t opset) {
        m.set_ir_version(8);
        auto *imp = m.add_opset_import();
        imp->set_domain("");
        imp->set_version(opset);
    }
    ::onnx::ValueInfoProto *value(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> *where,
                                  const std::string &name, int type, std::vector<std::string> dims) {
        auto *v = where->Add();
        v->set_name(name);
        auto *tt = v->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(type);
        if (dims.empty()) return v; // no shape (a rank-0 one is a shape too)
        auto *shape = tt->mutable_shape();
        for (const auto &d : dims) {
            auto *dim = shape->add_dim();
            if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
                dim->set_dim_value(std::stoll(d));
            else
                dim->set_dim_param(d);
        }
        return v;
    }
    model_builder &input(const std::string &name, int type, std::vector<std::string> dims) {
        value(m.mutable_graph()->mutable_input(), name, type, std::move(dims));
        return *this;
    }
    model_builder &output(const std::string &name, int type, std::vector<std::string> dims) {
        value(m.mutable_graph()->mutable_output(), name, type, std::move(dims));
        return *this;
    }
    ::onnx::NodeProto &node(const std::string &type, std::vector<std::string> in, std::vector<std::string> out,
                            const std::string &name = "") {
        auto *n = m.mutable_graph()->add_node();
        n->set_op_type(type);
        n->set_name(name);
        for (const auto &i : in) n->add_input(i);
        for (const auto &o : out) n->add_output(o);
        return *n;
    }
    model_builder &initializer(const std::string &name, std::vector<float> values, std::vector<int64_t> dims) {
        auto *t = m.mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(TensorProto::FLOAT);
        for (int64_t d : dims) t->add_dims(d);
        for (float v : values) t->add_float_data(v);
        return *this;
    }
    fx::model import(const fx::import_options &o = {}) const {
        const std::string bytes = m.SerializeAsString();
        return fx::model::load_bytes(bytes.data(), bytes.size(), o);
    }
};

void set_int(::onnx::NodeProto &n, const std::string &name, int64_t v) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
}

// Runs a model whose inputs are f32 and returns its first output's elements.
std::vector<float> run_f32(const fx::model &m, const std::vector<std::vector<float>> &inputs,
                           const std::vector<logical_tensor> &shapes = {}) {
    const engine eng(engine::kind::cpu);
    stream s(eng);
    fx::session run(m, eng, shapes);
    std::vector<tensor> in;
    for (size_t k = 0; k < m.get_inputs().size(); ++k) {
        const logical_tensor lt =
            shapes.empty() ? logical_tensor(m.get_inputs()[k].lt.get_id(), dt::f32, m.get_inputs()[k].lt.get_dims())
                           : shapes[k];
        in.emplace_back(lt, eng, const_cast<float *>(inputs[k].data()));
    }
    const logical_tensor out_lt = run.get_output_logical_tensors().at(0);
    std::vector<float> out(out_lt.get_mem_size() / sizeof(float), -1.f);
    run.run(s, in, {tensor(out_lt, eng, out.data())});
    return out;
}

TEST(onnx_importer, legacy_broadcasting_follows_the_version_in_force) {
    for (int64_t opset : {6, 7}) {
        model_builder b(opset);
        b.input("a", TensorProto::FLOAT, {"2", "3"}).input("b", TensorProto::FLOAT, {"3"});
        b.node("Add", {"a", "b"}, {"c"}, "add");
        b.output("c", TensorProto::FLOAT, {});
        if (opset == 6) { // Add-6 without broadcast=1: the shapes must be equal
            expect_error([&] { b.import(); }, status::invalid_shape, "add");
            set_int(b.m.mutable_graph()->mutable_node(0)[0], "broadcast", 1);
        }
        const fx::model m = b.import();
        EXPECT_EQ(m.get_nodes().at(0).version, opset == 6 ? 6 : 7);
        EXPECT_EQ(run_f32(m, {{1, 2, 3, 4, 5, 6}, {10, 20, 30}}), (std::vector<float>{11, 22, 33, 14, 25, 36}));
    }
}

TEST(onnx_importer, attributes_and_types_the_version_lacks_are_errors_naming_the_node) {
    model_builder b(13);
    b.input("a", TensorProto::FLOAT, {"3"}).input("b", TensorProto::FLOAT, {"3"});
    set_int(b.node("Add", {"a", "b"}, {"c"}, "my_add"), "broadcast", 1);
    b.output("c", TensorProto::FLOAT, {});
    expect_error([&] { b.import(); }, status::invalid_graph,
                 "node 'my_add' (Add): Add-13 has no attribute 'broadcast'");
    for (int64_t opset : {13, 14}) { // int8 Add arrived with Add-14
        model_builder i8(opset);
        i8.input("a", TensorProto::INT8, {"3"}).input("b", TensorProto::INT8, {"3"});
        i8.node("Add", {"a", "b"}, {"c"}, "add8");
        i8.output("c", TensorProto::INT8, {});
        if (opset == 13)
            expect_error([&] { i8.import(); }, status::invalid_data_type,
                         "input 0 is int8, which Add-13 does not take");
        else
            EXPECT_EQ(i8.import().get_partitions().size(), 1u);
    }
    model_builder mixed(14);
    mixed.input("a", TensorProto::FLOAT, {"3"}).input("b", TensorProto::DOUBLE, {"3"});
    mixed.node("Mul", {"a", "b"}, {"c"}, "mul");
    mixed.output("c", TensorProto::FLOAT, {});
    expect_error([&] { mixed.import(); }, status::invalid_data_type, "input 1 is double");
    model_builder newer(9); // Mish arrived with opset 18
    newer.input("a", TensorProto::FLOAT, {"3"});
    newer.node("Mish", {"a"}, {"c"}, "mish");
    newer.output("c", TensorProto::FLOAT, {});
    expect_error([&] { newer.import(); }, status::invalid_graph, "Mish is not in ai.onnx opset 9");
}

TEST(onnx_importer, dangling_names_and_cycles_are_errors_naming_the_node) {
    model_builder d(17);
    d.input("a", TensorProto::FLOAT, {"3"});
    d.node("Add", {"a", "nowhere"}, {"c"}, "add");
    d.output("c", TensorProto::FLOAT, {});
    expect_error([&] { d.import(); }, status::invalid_graph, "input 'nowhere' of node 'add'");
    model_builder c(17);
    c.input("a", TensorProto::FLOAT, {"3"});
    c.node("Add", {"a", "y"}, {"x"}, "first");
    c.node("Relu", {"x"}, {"y"}, "second");
    c.output("y", TensorProto::FLOAT, {});
    expect_error([&] { c.import(); }, status::invalid_graph, "depends on its own output (a cycle)");
    model_builder twice(17);
    twice.input("a", TensorProto::FLOAT, {"3"});
    twice.node("Relu", {"a"}, {"x"}, "r1");
    twice.node("Neg", {"a"}, {"x"}, "r2");
    twice.output("x", TensorProto::FLOAT, {});
    expect_error([&] { twice.import(); }, status::invalid_graph, "'x' of node 'r2' is defined twice");
}

TEST(onnx_importer, other_nodes_become_wildcards_and_regions_around_them_fuse) {
    // Relu(Add(x, b)) -> MatMul -> Mul(Sigmoid(.), .): two fused regions, the MatMul the framework's.
    model_builder b(17);
    b.input("x", TensorProto::FLOAT, {"batch", "4"}).initializer("bias", {1, 2, 3, 4}, {4});
    b.initializer("w", std::vector<float>(16, 0.5f), {4, 4});
    b.node("Add", {"x", "bias"}, {"t0"}, "add");
    b.node("Relu", {"t0"}, {"t1"}, "relu");
    b.node("MatMul", {"t1", "w"}, {"t2"}, "matmul");
    b.node("Sigmoid", {"t2"}, {"t3"}, "sigmoid");
    b.node("Mul", {"t2", "t3"}, {"y"}, "swish");
    b.output("y", TensorProto::FLOAT, {});
    const fx::model m = b.import();
    EXPECT_EQ(m.get_inputs().size(), 1u); // the initializers are constants
    EXPECT_EQ(m.get_constants().size(), 2u);
    EXPECT_EQ(m.get_inputs()[0].lt.get_dims(), (logical_tensor::dims{-1, 4}));
    EXPECT_EQ(m.get_node(2).kind, op::kind::Wildcard);
    EXPECT_NE(m.get_node(2).unsupported_reason.find("MatMul"), std::string::npos);
    const auto parts = m.get_partitions();
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_TRUE(parts[0].is_supported());
    EXPECT_EQ(parts[0].get_ops_num(), 2u);
    EXPECT_FALSE(parts[1].is_supported());
    EXPECT_TRUE(parts[2].is_supported());
    EXPECT_EQ(parts[2].get_ops_num(), 2u);
    // ONNX's inference gave the MatMul's output its type and rank.
    EXPECT_EQ(m.get_value("t2").lt.get_data_type(), dt::f32);
    expect_error([&] { fx::session(m, engine(engine::kind::cpu), {}); }, status::invalid_shape, "input 'x'");
    fx::import_options o;
    o.shapes["x"] = {2, 4};
    expect_error([&] { fx::session(b.import(o), engine(engine::kind::cpu)); }, status::unimplemented,
                 "matmul (MatMul)");
    o.shapes["x"] = {2, 4, 1};
    expect_error([&] { b.import(o); }, status::invalid_shape, "input 'x' has rank 2");
}

TEST(onnx_importer, constant_nodes_initializers_and_clips_absent_min_are_constants) {
    // Clip(Div(x, Constant 2), min absent, max = initializer 1.5).
    model_builder b(13);
    b.input("x", TensorProto::FLOAT, {"4"}).initializer("hi", {1.5f}, {});
    auto &c = b.node("Constant", {}, {"two"}, "two");
    auto *a = c.add_attribute();
    a->set_name("value_float");
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(2.f);
    b.node("Div", {"x", "two"}, {"h"}, "div");
    b.node("Clip", {"h", "", "hi"}, {"y"}, "clip");
    b.output("y", TensorProto::FLOAT, {});
    const fx::model m = b.import();
    EXPECT_EQ(m.get_partitions().size(), 1u);
    EXPECT_EQ(m.get_constants().size(), 3u); // hi, two, the absent min
    EXPECT_EQ(run_f32(m, {{-INFINITY, -3.f, 2.f, 5.f}}), (std::vector<float>{-INFINITY, -1.5f, 1.f, 1.5f}));
}

TEST(onnx_importer, unreadable_bytes_and_files_are_errors) {
    const char junk[] = "not a model";
    expect_error([&] { fx::model::load_bytes(junk, sizeof junk); }, status::invalid_arguments,
                 "not a serialized ModelProto");
    expect_error([&] { fx::model::load("/nonexistent/model.onnx"); }, status::invalid_arguments, "cannot open");
}

void set_attr(::onnx::NodeProto &n, const std::string &name, const std::string &v) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
}

TEST(onnx_importer, attribute_errors_are_the_models_not_wildcards) {
    auto unary = [](int64_t opset, const std::string &type, int elem = TensorProto::FLOAT) {
        auto b = std::make_unique<model_builder>(opset);
        b->input("a", elem, {"3"});
        b->node(type, {"a"}, {"y"}, "n");
        b->output("y", elem, {});
        return b;
    };
    auto gelu = unary(20, "Gelu");
    set_attr(gelu->m.mutable_graph()->mutable_node(0)[0], "approximate", "foo");
    expect_error([&] { gelu->import(); }, status::invalid_graph, "'approximate' of Gelu-20 is 'foo' (none or tanh)");
    auto leaky = unary(16, "LeakyRelu");
    set_int(leaky->m.mutable_graph()->mutable_node(0)[0], "alpha", 1);
    expect_error([&] { leaky->import(); }, status::invalid_graph, "'alpha' of LeakyRelu-16 is a float");
    auto cast = unary(13, "Cast");
    expect_error([&] { cast->import(); }, status::invalid_graph, "Cast-13 requires attribute 'to'");
    model_builder shift(11);
    shift.input("a", TensorProto::UINT32, {"3"}).input("b", TensorProto::UINT32, {"3"});
    auto &bs = shift.node("BitShift", {"a", "b"}, {"y"}, "shift");
    shift.output("y", TensorProto::UINT32, {});
    expect_error([&] { shift.import(); }, status::invalid_graph, "BitShift-11 requires attribute 'direction'");
    set_attr(bs, "direction", "UP");
    expect_error([&] { shift.import(); }, status::invalid_graph, "is 'UP' (LEFT or RIGHT)");
    model_builder add(6);
    add.input("a", TensorProto::FLOAT, {"3"}).input("b", TensorProto::FLOAT, {"3"});
    set_int(add.node("Add", {"a", "b"}, {"y"}, "add"), "broadcast", 2);
    add.output("y", TensorProto::FLOAT, {});
    expect_error([&] { add.import(); }, status::invalid_graph, "'broadcast' of Add-6 is 2 (0 or 1)");
    model_builder mod(13); // floats need fmod=1: the spec's rule, not a type fusebox lacks
    mod.input("a", TensorProto::FLOAT, {"3"}).input("b", TensorProto::FLOAT, {"3"});
    mod.node("Mod", {"a", "b"}, {"y"}, "mod");
    mod.output("y", TensorProto::FLOAT, {});
    expect_error([&] { mod.import(); }, status::invalid_arguments, "needs fmod=1");
    // Past the newest opset the table knows, an attribute it does not know makes a Wildcard.
    auto later = unary(23, "Relu");
    set_int(later->m.mutable_graph()->mutable_node(0)[0], "future", 1);
    const fx::model m = later->import();
    EXPECT_EQ(m.get_nodes().at(0).kind, op::kind::Wildcard);
    EXPECT_NE(m.get_nodes().at(0).unsupported_reason.find("no attribute 'future'"), std::string::npos)
        << m.get_nodes().at(0).unsupported_reason;
}

TEST(onnx_importer, cast_1_names_its_target_and_max_before_8_takes_one_shape) {
    model_builder c(5); // Cast-1: `to` is a string
    c.input("a", TensorProto::FLOAT, {"2"});
    set_attr(c.node("Cast", {"a"}, {"y"}, "cast"), "to", "DOUBLE");
    c.output("y", TensorProto::DOUBLE, {});
    const fx::model m = c.import();
    EXPECT_EQ(m.get_nodes().at(0).kind, op::kind::Cast);
    EXPECT_EQ(m.get_value("y").lt.get_data_type(), dt::f64);
    set_attr(c.m.mutable_graph()->mutable_node(0)[0], "to", "NOT_A_TYPE");
    c.m.mutable_graph()->mutable_node(0)[0].mutable_attribute()->DeleteSubrange(0, 1);
    expect_error([&] { c.import(); }, status::invalid_graph, "'NOT_A_TYPE' (a TensorProto data type)");
    for (int64_t opset : {6, 8}) {
        model_builder b(opset);
        b.input("a", TensorProto::FLOAT, {"2", "3"}).input("b", TensorProto::FLOAT, {"3"});
        b.node("Max", {"a", "b"}, {"y"}, "max");
        b.output("y", TensorProto::FLOAT, {});
        if (opset == 6)
            expect_error([&] { b.import(); }, status::invalid_shape, "max");
        else
            EXPECT_EQ(run_f32(b.import(), {{1, 5, 3, 7, 2, 9}, {4, 4, 4}}), (std::vector<float>{4, 5, 4, 7, 4, 9}));
    }
}

TEST(onnx_importer, tensor_data_is_checked_against_its_dims_before_it_is_allocated) {
    model_builder b(13);
    b.input("a", TensorProto::FLOAT, {"3"});
    auto *t = b.m.mutable_graph()->add_initializer();
    t->set_name("huge");
    t->set_data_type(TensorProto::FLOAT);
    t->add_dims(int64_t{1} << 40);
    b.node("Add", {"a", "huge"}, {"y"}, "add");
    b.output("y", TensorProto::FLOAT, {});
    expect_error([&] { b.import(); }, status::invalid_shape, "'huge' holds 0 elements for its 1099511627776");
    t->clear_dims();
    t->add_dims(2);
    t->set_raw_data(std::string(12, '\0'));
    expect_error([&] { b.import(); }, status::invalid_shape, "12 bytes of raw data for its 8");
    model_builder r0(13); // a declared rank 0 is a rank: a shape of rank 1 for it is an error
    r0.input("s", TensorProto::FLOAT, {});
    r0.m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    r0.node("Relu", {"s"}, {"y"}, "relu");
    r0.output("y", TensorProto::FLOAT, {});
    fx::import_options o;
    o.shapes["s"] = {2};
    expect_error([&] { r0.import(o); }, status::invalid_shape, "input 's' has rank 0");
}

TEST(onnx_importer, outputs_that_are_inputs_constants_or_listed_twice_are_all_written) {
    // Outputs: a (an input a partition also reads), k (an initializer it reads), y twice.
    model_builder b(13);
    b.input("a", TensorProto::FLOAT, {"3"}).initializer("k", {10, 20, 30}, {3});
    b.node("Add", {"a", "k"}, {"t"}, "add");
    b.node("Relu", {"t"}, {"y"}, "relu");
    for (const char *name : {"a", "k", "y", "y"}) b.output(name, TensorProto::FLOAT, {});
    fx::model m = b.import();
    const engine eng(engine::kind::cpu);
    stream s(eng);
    fx::session run(m, eng);
    std::vector<float> a = {-40, 1, 2};
    std::vector<std::vector<float>> out(4, std::vector<float>(3, -1.f));
    std::vector<tensor> outs;
    const auto lts = run.get_output_logical_tensors();
    for (size_t k = 0; k < 4; ++k) outs.emplace_back(lts[k], eng, out[k].data());
    run.run(s, {tensor(logical_tensor(m.get_inputs()[0].lt.get_id(), dt::f32, {3}), eng, a.data())}, outs);
    EXPECT_EQ(out[0], a);
    EXPECT_EQ(out[1], (std::vector<float>{10, 20, 30}));
    EXPECT_EQ(out[2], (std::vector<float>{0, 21, 32}));
    EXPECT_EQ(out[3], out[2]);
    fx::model moved = std::move(m);
    expect_error([&] { (void)m.get_nodes(); }, status::invalid_arguments, "moved from");
    EXPECT_EQ(moved.get_nodes().size(), 2u);
}

} // namespace

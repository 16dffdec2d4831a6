// The unary ops' loops (and Cast's) on every instruction set compiled in,
// against the reference of tools/common/reference.hpp, written apart from
// the kernels: the exact ops bit for bit, the transcendental ones within
// ELEMENTWISE.md's bounds. Edge values of every type (NaN, +-0, +-inf,
// subnormals, the extremes, the points where a formula changes branch) and
// random ones, contiguous and broadcast; f16 and bf16 over all 65,536 inputs.
#include <gtest/gtest.h>

#include <cfloat>
#include <set>

#include "interface/dtype.hpp"
#include "kernels/native/binary_ops.hpp"
#include "ops/elementwise.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
using fusebox::detail::element_ops;
using fusebox::detail::nary_fn;
namespace detail = fusebox::detail;

const std::vector<dt> kFloats = {dt::f16, dt::bf16, dt::f32, dt::f64};
const std::vector<dt> kAll = {dt::boolean, dt::s8,  dt::u8,  dt::s16,  dt::u16, dt::s32, dt::u32,
                              dt::s64,     dt::u64, dt::f16, dt::bf16, dt::f32, dt::f64};

// The rows of one input computed by a unary loop (not the folds' copies, not LogicalNot/BitwiseNot).
std::vector<const detail::elementwise_def *> unary_rows() {
    std::vector<const detail::elementwise_def *> rows;
    for (const auto &d : detail::elementwise_ops())
        if (fbref::ref_is_unary(d.kind)) rows.push_back(&d);
    return rows;
}

// Edge values of a float type as doubles (each exact in the type).
std::vector<double> float_edges(dt t) {
    const double max = t == dt::f16    ? 65504.0
                       : t == dt::bf16 ? 3.3895313892515355e38
                       : t == dt::f32  ? FLT_MAX
                                       : DBL_MAX;
    const double min_normal = t == dt::f16 ? 6.103515625e-05 : t == dt::f64 ? DBL_MIN : FLT_MIN;
    const double min_sub = t == dt::f16    ? 5.9604644775390625e-08
                           : t == dt::bf16 ? 9.183549615799121e-41
                           : t == dt::f32  ? 1.401298464324817e-45
                                           : 4.9406564584124654e-324;
    std::vector<double> v = {0.0, -0.0, INFINITY, -INFINITY, NAN, min_sub, -min_sub, min_normal, -min_normal, max, -max,
                             1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 0.25, 6.0, -6.0,
                             // exp's overflow and underflow, tanh/erf/sigmoid saturating, GELU/Mish tails
                             88.72283935546875, 88.7228470, -87.33654022216797, -103.97, -104.0, 709.78, -745.1, 9.0,
                             10.0, 20.0, -20.0, 3.9, 4.0, -4.0, -10.0, -13.0, -14.0, -40.0, 40.0, 30.0, 1e-5, -1e-5,
                             1e-20, -1e-20, 1e-30, 0.1, -0.1, 1.0 + 1.0 / 128, 1.0 - 1.0 / 256,
                             // where AVX-512's pieces of Sigmoid and GELU end, and between two pieces
                             15.75, -15.75, 15.750000953674316, -15.750000953674316, 7.875, -7.875, -7.875000476837158,
                             7.875000476837158, 0.125, -0.375, 15.25, -7.625,
                             // integers up to 8 and their neighbours (where pieces of width 1 would end), past 8
                             8.0, -8.0, 8.000000953674316, -8.000000953674316, 7.0, -7.0, 5.0, -5.0, 2.0, -2.0,
                             0.9999999403953552, -1.0000001192092896, 6.999999523162842, -7.000000476837158,
                             // between graded pieces: exact GELU's with AVX2 (a/2 + a^2/16 = 1, 2, 5, 7), tanh
                             // GELU's with AVX-512 (7a/8 + 25a^3/512 = 1, 2, 16, 31)
                             1.6568542494923806, -1.6568542494923806, -2.9282032302755088, 5.7979589711327115,
                             -7.313708498984761, 7.313708498984761, 1.073770191964947, -1.073770191964947,
                             -1.9018428047632836, 6.032882007399255, -7.901330529082882, 7.901330529082882,
                             // casts: near the integer limits
                             127.5, 128.0, -128.5, 255.5, 256.0, 32767.5, 65535.5, 65536.0, 2147483520.0, 2147483648.0,
                             -2147483904.0, 4294967296.0, 9.2233720368547758e18, -9.2233720368547758e18,
                             1.8446744073709552e19};
    return v;
}

// Fills `buf` (n elements of type t): the edge values first, then random ones.
void fill_unary_input(buffer &buf, std::mt19937_64 &rng) {
    const dt t = buf.lt.get_data_type();
    const size_t es = data_type_size(t);
    const int64_t n = static_cast<int64_t>(buf.lt.get_mem_size() / es);
    auto *p = static_cast<unsigned char *>(buf.data());
    std::vector<uint64_t> bits;
    if (is_float_type(t)) {
        for (double v : float_edges(t)) {
            const long double x = v;
            unsigned char one[8] = {};
            fbref::ref_store_float(t, one, 0, x); // exact values stay; others round to the type
            uint64_t b = 0;
            std::memcpy(&b, one, es);
            bits.push_back(b);
        }
    } else {
        const uint64_t all = es == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * es)) - 1;
        for (uint64_t b : {uint64_t{0}, uint64_t{1}, all, all >> 1, (all >> 1) + 1, uint64_t{2}, all - 1})
            bits.push_back(b & all);
    }
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int64_t i = 0; i < n; ++i) {
        uint64_t b = 0;
        if (i < static_cast<int64_t>(bits.size())) {
            b = bits[static_cast<size_t>(i)];
        } else if (is_float_type(t) && i % 3 != 0) { // values of ordinary magnitude
            const double scale[] = {0.5, 4.0, 30.0, 300.0};
            unsigned char one[8] = {};
            fbref::ref_store_float(t, one, 0, normal(rng) * scale[i % 4]);
            std::memcpy(&b, one, es);
        } else {
            b = rng();
            if (t == dt::boolean) b = b % 3 == 0 ? 0 : b % 3 == 1 ? 1 : 0x80;
        }
        std::memcpy(p + i * es, &b, es);
    }
}

// The op variants a loop is checked with: defaults, and other attribute values.
std::vector<op> variants(const detail::elementwise_def &d, dt t, int64_t n) {
    const logical_tensor x(0, t, dims{n});
    const logical_tensor out(9, d.rule == detail::type_rule::same_to_bool ? dt::boolean : t, dims{n});
    std::vector<op> v;
    auto make = [&](std::vector<logical_tensor> in) { return op(1, d.kind, std::move(in), {out}); };
    v.push_back(make({x}));
    switch (d.kind) {
    case op::kind::LeakyReLU:
    case op::kind::Elu: v.push_back(make({x}).set_attr(op::attr::alpha, -0.75f)); break;
    case op::kind::Selu: // (the last: alpha gamma past the floats, which f32 computes in f64 lanes)
        v.push_back(make({x}).set_attr(op::attr::alpha, 2.0f).set_attr(op::attr::gamma, 0.5f));
        v.push_back(make({x}).set_attr(op::attr::alpha, -1.3f).set_attr(op::attr::gamma, 0.7f));
        v.push_back(make({x}).set_attr(op::attr::alpha, 0.25f).set_attr(op::attr::gamma, 1.0f)); // (-0 from -tiny)
        v.push_back(make({x}).set_attr(op::attr::alpha, 1e30f).set_attr(op::attr::gamma, 1e9f));
        break;
    case op::kind::HardSigmoid:
        v.push_back(make({x}).set_attr(op::attr::alpha, 1.0f / 3).set_attr(op::attr::beta, -0.25f));
        break;
    case op::kind::SoftPlus:
        v.push_back(make({x}).set_attr(op::attr::beta, 3.0f));
        v.push_back(make({x}).set_attr(op::attr::beta, -0.5f));
        break;
    case op::kind::GELU: v.push_back(make({x}).set_attr(op::attr::mode, std::string("gelu_tanh"))); break;
    case op::kind::IsInf:
        for (int64_t p : {0, 1})
            for (int64_t q : {0, 1})
                v.push_back(make({x}).set_attr(op::attr::detect_positive, p).set_attr(op::attr::detect_negative, q));
        break;
    case op::kind::Clamp:
        v.clear();
        v.push_back(make({x}).set_attr(op::attr::min, -1.5f).set_attr(op::attr::max, 2.0f));
        v.push_back(make({x}).set_attr(op::attr::min, 0.1f).set_attr(op::attr::max, -0.3f)); // min > max
        break;
    case op::kind::Clip:
        v.push_back(make({x, logical_tensor(2, t, dims{})}));
        v.push_back(make({x, logical_tensor(2, t, dims{}), logical_tensor(3, t, dims{1})}));
        if (is_float_type(t)) v.push_back(make({x}).set_attr(op::attr::min, -0.25f).set_attr(op::attr::max, 7.0f));
        break;
    default: break;
    }
    return v;
}

// The bytes of a constant as a loop reads it.
std::vector<unsigned char> constant_bytes(dt t, long double v) {
    std::vector<unsigned char> b(8, 0);
    if (is_float_type(t)) {
        fbref::ref_store_float(t, b.data(), 0, v);
    } else {
        const uint64_t bits = v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
        std::memcpy(b.data(), &bits, 8);
    }
    return b;
}

// Clip's min/max inputs of type t, one element each: values that bite.
void set_clip_bounds(dt t, buffer &lo, buffer &hi) {
    const size_t es = data_type_size(t);
    if (is_float_type(t)) {
        fbref::ref_store_float(t, lo.data(), 0, -0.5L);
        fbref::ref_store_float(t, hi.data(), 0, 3.0L);
    } else {
        const uint64_t a = 3, b = is_signed_type(t) ? 100 : 200;
        std::memcpy(lo.data(), &a, es);
        std::memcpy(hi.data(), &b, es);
    }
}

// Runs `fn` for `o` on x (stride `sx`: 0 computes one result, repeated as
// the kernel repeats a broadcast one) into an output of type `to`.
buffer run_unary(nary_fn fn, const op &o, const buffer &x, int64_t sx, dt to) {
    const dt t = x.lt.get_data_type();
    const int64_t n = x.lt.get_dims()[0];
    buffer lo(logical_tensor(2, t, dims{1})), hi(logical_tensor(3, t, dims{1}));
    set_clip_bounds(t, lo, hi);
    const size_t given = o.get_inputs().size();
    std::vector<const void *> in = {x.data()};
    std::vector<int64_t> strides = {sx};
    if (given > 1) in.push_back(lo.data()), strides.push_back(0);
    if (given > 2) in.push_back(hi.data()), strides.push_back(0);
    const detail::node_params params = detail::find_elementwise(o.get_kind())->lower == detail::lowering::with_params
                                           ? detail::op_params(o, t)
                                           : detail::node_params{};
    std::vector<std::vector<unsigned char>> consts;
    for (long double v : params.values) consts.push_back(constant_bytes(params.dt, v));
    for (const auto &c : consts) in.push_back(c.data()), strides.push_back(0);
    buffer got(logical_tensor(9, to, dims{n}));
    fn(in.data(), strides.data(), got.data(), sx ? n : 1, false);
    if (!sx) {
        for (int64_t i = 1; i < n; ++i)
            std::memcpy(static_cast<unsigned char *>(got.data()) + i * data_type_size(to), got.data(),
                        data_type_size(to));
    }
    return got;
}

// Runs `fn` for `o` on x (stride `sx`) and compares with the reference.
void check_unary(const element_ops &ops, nary_fn fn, const op &o, const buffer &x, int64_t sx, dt to, size_t &checked) {
    const dt t = x.lt.get_data_type();
    const int64_t n = x.lt.get_dims()[0];
    const size_t es = data_type_size(t), given = o.get_inputs().size();
    buffer lo(logical_tensor(2, t, dims{1})), hi(logical_tensor(3, t, dims{1}));
    set_clip_bounds(t, lo, hi); // (as run_unary gives them)
    std::vector<const buffer *> ref_in = {&x};
    if (given > 1) ref_in.push_back(&lo);
    if (given > 2) ref_in.push_back(&hi);
    const buffer got = run_unary(fn, o, x, sx, to);
    buffer want(logical_tensor(9, to, dims{n}));
    buffer xs(logical_tensor(0, t, dims{n}));
    for (int64_t i = 0; i < n; ++i)
        std::memcpy(static_cast<unsigned char *>(xs.data()) + i * es,
                    static_cast<const unsigned char *>(x.data()) + (sx ? i : 0) * es, es);
    ref_in[0] = &xs;
    fbref::ref_unary(o, ref_in, want);
    std::string attrs;
    for (const auto &[a, v] : o.get_attrs()) attrs += std::string(" ") + attr_name(a);
    ASSERT_TRUE(same_elements(want, got, ref_max_ulp(o.get_kind(), to)))
        << ops.isa << " " << op_kind_name(o.get_kind()) << " " << data_type_name(t) << "->" << data_type_name(to)
        << " inputs " << given << attrs << " stride " << sx;
    ++checked;
}

TEST(unary_ops, every_loop_of_every_instruction_set_matches_reference_on_edge_and_random_values) {
    std::mt19937_64 rng(21);
    size_t checked = 0, expected = 0;
    const auto targets = detail::element_ops_for_every_target();
    for (const element_ops *ops : targets)
        for (const auto *d : unary_rows()) {
            if (d->rule == detail::type_rule::cast) continue; // below
            for (dt t : kAll) {
                if (!(d->types & detail::type_bit(t))) continue;
                const int64_t n = 333;
                buffer x(logical_tensor(0, t, dims{n}));
                fill_unary_input(x, rng);
                for (const op &o : variants(*d, t, n)) {
                    const dt to = d->rule == detail::type_rule::same_to_bool ? dt::boolean : t;
                    const detail::ew_fn f = detail::kernel_fn(o);
                    if (d->fn == detail::ew_fn::prelu) continue; // LeakyReLU runs PReLU's loops (element_ops_test)
                    const nary_fn g = ops->nary[static_cast<int>(f)][detail::dtype_index(t)];
                    ASSERT_NE(g, nullptr) << ops->isa << " " << op_kind_name(d->kind) << " " << data_type_name(t);
                    for (int64_t sx : {1, 0}) {
                        ++expected;
                        check_unary(*ops, g, o, x, sx, to, checked);
                    }
                }
            }
        }
    EXPECT_EQ(checked, expected);
    EXPECT_GT(checked, targets.size() * 300);
}

// A result depends on its element alone, never on the other lanes of its
// vector (a fused and an unfused run may group elements differently, and
// the kernels branch per vector past their pieces): the input reversed, and
// rotated by 3 elements, gives every element the same bits, for every float
// op on every instruction set.
TEST(unary_ops, a_result_does_not_depend_on_its_neighbours) {
    std::mt19937_64 rng(23);
    size_t checked = 0;
    const auto targets = detail::element_ops_for_every_target();
    for (const element_ops *ops : targets)
        for (const auto *d : unary_rows()) {
            if (d->rule == detail::type_rule::cast || d->fn == detail::ew_fn::prelu) continue;
            for (dt t : {dt::f32, dt::f64, dt::f16, dt::bf16}) {
                if (!(d->types & detail::type_bit(t))) continue;
                const int64_t n = 333;
                const size_t es = data_type_size(t);
                buffer x(logical_tensor(0, t, dims{n}));
                fill_unary_input(x, rng);
                // Where element i goes: reversed, rotated by 3.
                const std::pair<const char *, int64_t (*)(int64_t, int64_t)> moves[] = {
                    {"reversed", [](int64_t i, int64_t n) { return n - 1 - i; }},
                    {"rotated", [](int64_t i, int64_t n) { return (i + 3) % n; }}};
                for (const auto &[name, to_index] : moves) {
                    buffer moved(logical_tensor(0, t, dims{n}));
                    for (int64_t i = 0; i < n; ++i)
                        std::memcpy(static_cast<unsigned char *>(moved.data()) + to_index(i, n) * es,
                                    static_cast<const unsigned char *>(x.data()) + i * es, es);
                    for (const op &o : variants(*d, t, n)) {
                        const dt to = d->rule == detail::type_rule::same_to_bool ? dt::boolean : t;
                        const size_t os = data_type_size(to);
                        const nary_fn g = ops->nary[static_cast<int>(detail::kernel_fn(o))][detail::dtype_index(t)];
                        ASSERT_NE(g, nullptr);
                        const buffer y = run_unary(g, o, x, 1, to), ym = run_unary(g, o, moved, 1, to);
                        for (int64_t i = 0; i < n; ++i)
                            ASSERT_EQ(std::memcmp(static_cast<const unsigned char *>(y.data()) + i * os,
                                                  static_cast<const unsigned char *>(ym.data()) + to_index(i, n) * os,
                                                  os),
                                      0)
                                << ops->isa << " " << op_kind_name(o.get_kind()) << " " << data_type_name(t)
                                << ": element " << i << " " << name;
                        ++checked;
                    }
                }
            }
        }
    EXPECT_GT(checked, targets.size() * 80);
}

TEST(unary_ops, casts_between_every_pair_of_types_match_reference) {
    std::mt19937_64 rng(22);
    size_t checked = 0;
    const auto targets = detail::element_ops_for_every_target();
    const auto &cast = *detail::find_elementwise(op::kind::Cast);
    for (const element_ops *ops : targets)
        for (dt from : kAll)
            for (dt to : kAll) {
                const nary_fn fn = ops->cast[detail::dtype_index(from)][detail::dtype_index(to)];
                ASSERT_NE(fn, nullptr) << ops->isa << " " << data_type_name(from) << "->" << data_type_name(to);
                ASSERT_TRUE((cast.types & detail::type_bit(from)) && (cast.types & detail::type_bit(to)));
                const int64_t n = 301;
                buffer x(logical_tensor(0, from, dims{n}));
                fill_unary_input(x, rng);
                const op o(1, op::kind::Cast, {logical_tensor(0, from, dims{n})}, {logical_tensor(9, to, dims{n})});
                for (int64_t sx : {1, 0}) check_unary(*ops, fn, o, x, sx, to, checked);
            }
    EXPECT_EQ(checked, targets.size() * kAll.size() * kAll.size() * 2);
}

// Casts over whole input ranges (the vector casts of unary_ops-inl.h and the
// scalar loops alike): the 16-bit types in all 65,536 bit patterns, the 8-bit
// ones in all 256, f32 and f64 in 65,536 patterns whose upper 16 bits take
// every value (every sign, exponent and high significand bit pattern) plus
// the floats around the integer limits, s32, u32 and s64 around their limits
// and 2^53 and at random (s64: also where f64 holds every value), u64 alike.
// Into every
// type, on every instruction set, with ordinary and streaming stores and an
// output one element off its alignment; not a byte outside the output changes.
TEST(unary_ops, casts_over_whole_input_ranges_with_streaming_stores) {
    std::mt19937_64 rng(31);
    const auto targets = detail::element_ops_for_every_target();
    size_t checked = 0;
    const dt sources[] = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s64, dt::u64,    dt::s32,
                          dt::u32, dt::s16,  dt::u16, dt::s8,  dt::u8,  dt::boolean};
    for (dt from : sources) {
        const size_t es = data_type_size(from);
        std::vector<uint64_t> bits;
        if (es == 2)
            for (uint64_t b = 0; b < 65536; ++b) bits.push_back(b);
        if (es == 1)
            for (uint64_t b = 0; b < 256; ++b) bits.push_back(b);
        if (from == dt::f32) {
            for (uint32_t hi = 0; hi < 65536; ++hi) bits.push_back(hi << 16 | (rng() & 0xFFFF));
            for (float edge :
                 {2147483648.0f, -2147483648.0f, 4294967296.0f, 65536.0f, 32768.0f, 256.0f, 128.0f, 1.0f, 0.5f})
                for (int k = -64; k <= 64; ++k) {
                    uint32_t b;
                    std::memcpy(&b, &edge, 4);
                    bits.push_back(b + static_cast<uint32_t>(k)); // neighbours within 64 ulps (k < 0 below)
                }
        }
        if (from == dt::f64) {
            for (uint64_t hi = 0; hi < 65536; ++hi) bits.push_back(hi << 48 | (rng() >> 16));
            for (double edge : {0x1p63, -0x1p63, 0x1p53, -0x1p53, 0x1p31, -0x1p31, 0x1p32, 0x1p24, 1.0, 0.5,
                                3.4028234663852886e38, 1.1754943508222875e-38})
                for (int k = -64; k <= 64; ++k) {
                    uint64_t b;
                    std::memcpy(&b, &edge, 8);
                    bits.push_back(b + static_cast<uint64_t>(k)); // neighbours within 64 ulps
                }
        }
        if (from == dt::s32 || from == dt::u32 || from == dt::s64) {
            const int64_t lo = from == dt::s64 ? INT64_MIN : from == dt::s32 ? INT32_MIN : 0;
            const int64_t hi = from == dt::s64 ? INT64_MAX : from == dt::s32 ? INT32_MAX : int64_t{UINT32_MAX};
            for (int64_t k = -300; k <= 300; ++k)
                for (int64_t edge : {int64_t{0}, hi, lo, int64_t{1} << 24, int64_t{1} << 53, -(int64_t{1} << 53)})
                    if ((k >= 0 || edge >= lo - k) && (k <= 0 || edge <= hi - k))
                        bits.push_back(static_cast<uint64_t>(edge + k));
            for (int k = 0; k < 20000; ++k) { // at random; for s64 also small, where f64 holds every value
                const uint64_t r = rng();
                bits.push_back(from == dt::s64 && k % 2 ? static_cast<uint64_t>(static_cast<int64_t>(r) >> 20) : r);
            }
        }
        if (from == dt::u64) {
            for (uint64_t k = 0; k < 300; ++k)
                for (uint64_t edge : {uint64_t{0}, uint64_t{1} << 63, uint64_t{1} << 53, uint64_t{1} << 32})
                    bits.push_back(edge + k), bits.push_back(edge - k);
            for (int k = 0; k < 20000; ++k) bits.push_back(k % 2 ? rng() : rng() >> 40);
        }
        const int64_t n = static_cast<int64_t>(bits.size());
        std::vector<unsigned char> x(static_cast<size_t>(n) * es);
        for (int64_t i = 0; i < n; ++i) std::memcpy(x.data() + i * es, &bits[static_cast<size_t>(i)], es);
        for (dt to : kAll) {
            const size_t os = data_type_size(to), bytes = static_cast<size_t>(n) * os;
            std::vector<unsigned char> want(bytes);
            for (int64_t i = 0; i < n; ++i) fbref::ref_cast(from, x.data(), i, to, want.data(), i);
            for (const element_ops *ops : targets) {
                const nary_fn fn = ops->cast[detail::dtype_index(from)][detail::dtype_index(to)];
                ASSERT_NE(fn, nullptr);
                for (bool stream : {false, true})
                    for (size_t misalign : {size_t{0}, os}) {
                        std::vector<unsigned char> out(bytes + misalign + 64 + 64, 0xA5);
                        // 64-byte aligned start inside the vector, then misaligned by one element.
                        const size_t skew = (64 - reinterpret_cast<uintptr_t>(out.data()) % 64) % 64;
                        unsigned char *dst = out.data() + skew + misalign;
                        const void *in[] = {x.data()};
                        const int64_t stride[] = {1};
                        fn(in, stride, dst, n, stream);
                        for (unsigned char *p = out.data(); p < dst; ++p) ASSERT_EQ(*p, 0xA5) << "wrote before";
                        for (unsigned char *p = dst + bytes; p < out.data() + out.size(); ++p)
                            ASSERT_EQ(*p, 0xA5) << ops->isa << " " << data_type_name(from) << "->" << data_type_name(to)
                                                << " wrote past the output";
                        for (int64_t i = 0; i < n; ++i)
                            ASSERT_TRUE(std::memcmp(dst + i * os, want.data() + i * os, os) == 0 ||
                                        (is_float_type(to) && std::isnan(fbref::as_double(to, dst, i)) &&
                                         std::isnan(fbref::as_double(to, want.data(), i)))) // any NaN for a NaN
                                << ops->isa << " " << data_type_name(from) << "->" << data_type_name(to)
                                << " input bits 0x" << std::hex << bits[static_cast<size_t>(i)] << std::dec
                                << " stream " << stream << " misalign " << misalign;
                        ++checked;
                    }
            }
        }
    }
    EXPECT_EQ(checked, targets.size() * kAll.size() * std::size(sources) * 4);
}

// ELEMENTWISE.md: f16/bf16 within 1 ulp (the exact ops: bit for bit) for
// all 65,536 inputs, on every instruction set.
TEST(unary_ops, half_types_over_all_65536_inputs_on_every_instruction_set) {
    size_t checked = 0;
    for (const element_ops *ops : detail::element_ops_for_every_target())
        for (const auto *d : unary_rows()) {
            if (d->rule == detail::type_rule::cast || d->fn == detail::ew_fn::prelu) continue;
            for (dt t : {dt::f16, dt::bf16}) {
                if (!(d->types & detail::type_bit(t))) continue;
                const int64_t n = 65536;
                buffer x(logical_tensor(0, t, dims{n}));
                for (int64_t i = 0; i < n; ++i) static_cast<uint16_t *>(x.data())[i] = static_cast<uint16_t>(i);
                for (const op &o : variants(*d, t, n)) {
                    const dt to = d->rule == detail::type_rule::same_to_bool ? dt::boolean : t;
                    const nary_fn fn = ops->nary[static_cast<int>(detail::kernel_fn(o))][detail::dtype_index(t)];
                    ASSERT_NE(fn, nullptr);
                    check_unary(*ops, fn, o, x, 1, to, checked);
                }
            }
        }
    EXPECT_GT(checked, 50u);
}

// The attributes a unary op takes, with clear errors for bad ones.
TEST(unary_ops, attributes_are_checked_with_clear_errors) {
    auto add = [](op o) {
        graph g(engine::kind::cpu);
        g.add_op(o);
        g.finalize();
    };
    const logical_tensor x(0, dt::f32, dims{4}), y(1, dt::undef, logical_tensor::layout_type::any);
    auto expect_error = [&](op o, const char *fragment) {
        try {
            add(std::move(o));
            ADD_FAILURE() << "accepted, expected: " << fragment;
        } catch (const error &e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    expect_error(op(1, op::kind::Clamp, {x}, {y}).set_attr(op::attr::min, 0.0f), "Clamp needs both min and max");
    expect_error(op(1, op::kind::GELU, {x}, {y}).set_attr(op::attr::mode, std::string("erf")),
                 "mode must be \"gelu_erf\" or \"gelu_tanh\"");
    expect_error(op(1, op::kind::IsInf, {x}, {y}).set_attr(op::attr::detect_positive, int64_t{2}),
                 "detect_positive must be 0 or 1");
    expect_error(op(1, op::kind::Elu, {x}, {y}).set_attr(op::attr::alpha, int64_t{1}),
                 "attribute alpha must be a float");
    expect_error(op(1, op::kind::Exp, {x}, {y}).set_attr(op::attr::alpha, 1.0f), "unknown attribute alpha for Exp");
    expect_error(op(1, op::kind::Clip, {x, logical_tensor(2, dt::f32, dims{})}, {y}).set_attr(op::attr::min, 0.0f),
                 "cannot be set as an attribute when min/max are inputs");
    expect_error(op(1, op::kind::Clip, {x, logical_tensor(2, dt::f32, dims{2})}, {y}),
                 "min must hold one element, its shape is [2]");
    // (Whatever the broadcast rule: a min of x's own shape is no bound.)
    expect_error(op(1, op::kind::Clip, {logical_tensor(0, dt::s32, dims{3}), logical_tensor(2, dt::s32, dims{3})},
                    {logical_tensor(1, dt::s32, dims{3})})
                     .set_attr(op::attr::auto_broadcast, std::string("none")),
                 "min must hold one element, its shape is [3]");
    expect_error(op(1, op::kind::Clamp, {x}, {y}).set_attr(op::attr::min, NAN).set_attr(op::attr::max, 1.0f),
                 "min is NaN");
    expect_error(op(1, op::kind::Exp, {logical_tensor(0, dt::s32, dims{4})}, {y}),
                 "input types (s32) are not supported");
    expect_error(op(1, op::kind::Cast, {x}, {y}), "the output's data type is the type to cast to and must be given");
    expect_error(op(1, op::kind::TypeCast, {x}, {logical_tensor(1, dt::s32, dims{4})}), "cannot cast f32 to s32");
    expect_error(op(1, op::kind::Clip, {logical_tensor(0, dt::s32, dims{4})}, {y}).set_attr(op::attr::min, 0.0f),
                 "min/max attributes (Clip-6) are for float inputs");
}

} // namespace

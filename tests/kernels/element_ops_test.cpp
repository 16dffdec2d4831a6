// Every element loop of every instruction set compiled in (and supported by
// this CPU), against the scalar reference: all strides (0/1), lengths with
// tails, misaligned outputs, streaming stores on and off, and guard bytes
// that must stay untouched after the last element.
#include <gtest/gtest.h>

#include "kernels/native/binary_ops.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
using fusebox::detail::binary_fn;
using fusebox::detail::element_ops;

constexpr uint8_t kGuard = 0xA5;

void check_loop(binary_fn fn, op::kind kind, dt ta, dt tb, dt to, const char *isa) {
    std::mt19937_64 rng(99);
    for (int64_t n : {1, 7, 16, 33, 64, 100, 515}) {
        buffer a(logical_tensor(0, ta, dims{n})), b(logical_tensor(1, tb, dims{n}));
        fill(a, rng);
        fill(b, rng);
        for (int64_t sa : {0, 1})
            for (int64_t sb : {0, 1})
                for (bool stream : {false, true})
                    for (size_t misalign : {size_t{0}, data_type_size(to)}) {
                        const size_t es = data_type_size(to), bytes = static_cast<size_t>(n) * es;
                        std::vector<unsigned char, aligned_allocator<unsigned char>> out(bytes + misalign + 64, kGuard);
                        fn(a.data(), sa, b.data(), sb, out.data() + misalign, n, stream);
                        std::vector<unsigned char> want(bytes);
                        for (int64_t i = 0; i < n; ++i)
                            ref_element(kind, ta, a.data(), sa * i, tb, b.data(), sb * i, to, want.data(), i);
                        buffer w(logical_tensor(2, to, dims{n})), g(logical_tensor(2, to, dims{n}));
                        std::memcpy(w.data(), want.data(), bytes);
                        std::memcpy(g.data(), out.data() + misalign, bytes);
                        ASSERT_TRUE(same_elements(w, g))
                            << isa << " " << op_kind_name(kind) << " " << data_type_name(ta) << ","
                            << data_type_name(tb) << " n=" << n << " sa=" << sa << " sb=" << sb << " stream=" << stream
                            << " misalign=" << misalign;
                        for (size_t k = 0; k < misalign; ++k)
                            ASSERT_EQ(out[k], kGuard) << isa << " wrote before the output";
                        for (size_t k = misalign + bytes; k < out.size(); ++k)
                            ASSERT_EQ(out[k], kGuard) << isa << " " << op_kind_name(kind) << " " << data_type_name(ta)
                                                      << " wrote past the output, n=" << n << " stream=" << stream;
                    }
    }
}

TEST(element_ops, every_loop_of_every_instruction_set_matches_reference) {
    const auto targets = fusebox::detail::element_ops_for_every_target();
    ASSERT_FALSE(targets.empty());
    const dt all[] = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8,  dt::u8,      dt::s16,
                      dt::u16, dt::s32,  dt::u32, dt::s64, dt::u64, dt::boolean, dt::string};
    size_t checked = 0;
    for (const element_ops *ops : targets) {
        SCOPED_TRACE(ops->isa);
        for (dt x : all) {
            for (dt y : all)
                if (binary_fn fn = ops->add[detail::dtype_index(x)][detail::dtype_index(y)]) {
                    check_loop(fn, op::kind::Add, x, y, x == y ? x : dt::f32, ops->isa);
                    ++checked;
                }
            if (binary_fn fn = ops->equal[detail::dtype_index(x)]) {
                check_loop(fn, op::kind::Equal, x, x, dt::boolean, ops->isa);
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, targets.size() * (16 + 14)); // 12 same-type Adds + 4 mixed rows, 14 Equals per target
    std::printf("checked %zu loops on %zu instruction sets:", checked, targets.size());
    for (const element_ops *ops : targets) std::printf(" %s", ops->isa);
    std::printf("\n");
}

} // namespace

// One compiled partition executed from many threads at once, on oneDNN and on
// the native kernel, inside and outside a bounded TBB arena.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <thread>

#include "test_util.hpp"

namespace {

using namespace fbt;

class concurrency_test : public ::testing::TestWithParam<const char *> {};

TEST_P(concurrency_test, eight_threads_share_one_compiled_partition) {
    kernel_env env(GetParam());
    const engine eng(engine::kind::cpu);
    graph g(engine::kind::cpu);
    logical_tensor la(0, dt::f32, {64, 128, 16}), lb(1, dt::f32, {1, 128, 1});
    g.add_op(binary_op(op::kind::Add, la, lb));
    g.finalize();
    compiled_partition cp = g.get_partitions()[0].compile({la, lb}, {logical_tensor(2, dt::f32, {64, 128, 16})}, eng);
    const logical_tensor lo = cp.query_logical_tensor(2);

    constexpr int kThreads = 8, kRepeats = 20;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            std::mt19937_64 rng(100 + t);
            buffer a(la), b(lb), out(lo), want(lo);
            stream s(eng);
            for (int r = 0; r < kRepeats; ++r) {
                fill(a, rng);
                fill(b, rng);
                cp.execute(s, {tensor(la, eng, a.data()), tensor(lb, eng, b.data())}, {tensor(lo, eng, out.data())});
                ref_binary(op::kind::Add, a, b, want);
                if (!same_elements(want, out))
                    failures[t] = "thread " + std::to_string(t) + " repeat " + std::to_string(r);
            }
        });
    for (auto &th : threads) th.join();
    for (const auto &f : failures) EXPECT_TRUE(f.empty()) << f;
    EXPECT_EQ(cp.get_impl_info().rfind(std::string(GetParam()), 0), 0u) << cp.get_impl_info();
}

TEST_P(concurrency_test, runs_inside_a_one_thread_arena) {
    kernel_env env(GetParam());
    tbb::task_arena arena(1);
    arena.execute([&] {
        std::mt19937_64 rng(5);
        buffer a(logical_tensor(0, dt::f32, {1 << 20})), b(logical_tensor(1, dt::f32, {1 << 20}));
        fill(a, rng);
        fill(b, rng);
        buffer got = run_single(binary_op(op::kind::Add, a.lt, b.lt), a, b);
        buffer want(got.lt);
        ref_binary(op::kind::Add, a, b, want);
        EXPECT_TRUE(same_elements(want, got));
    });
}

// Threads build graphs, compile (hitting and missing the compile cache while
// another thread resizes it) and execute at once.
TEST_P(concurrency_test, threads_compile_while_the_cache_is_resized) {
    kernel_env env(GetParam());
    const engine eng(engine::kind::cpu);
    constexpr int kThreads = 6, kRepeats = 12;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            std::mt19937_64 rng(7 + t);
            stream s(eng);
            for (int r = 0; r < kRepeats; ++r) {
                if (t == 0) set_compiled_partition_cache_capacity(r % 3); // 0 drops everything
                const int64_t rows = 1 + (t + r) % 4;                     // shared shapes: cache hits
                logical_tensor la(0, dt::f32, {rows, 4096}), lb(1, dt::f32, {4096});
                graph g(engine::kind::cpu);
                g.add_op(binary_op(op::kind::Add, la, lb));
                g.finalize();
                compiled_partition cp =
                    g.get_partitions()[0].compile({la, lb}, {logical_tensor(2, dt::f32, {rows, 4096})}, eng);
                buffer a(la), b(lb), out(cp.query_logical_tensor(2)), want(out.lt);
                fill(a, rng);
                fill(b, rng);
                cp.execute(s, {tensor(la, eng, a.data()), tensor(lb, eng, b.data())},
                           {tensor(out.lt, eng, out.data())});
                ref_binary(op::kind::Add, a, b, want);
                if (!same_elements(want, out))
                    failures[t] = "thread " + std::to_string(t) + " repeat " + std::to_string(r);
            }
        });
    for (auto &th : threads) th.join();
    set_compiled_partition_cache_capacity(1024);
    for (const auto &f : failures) EXPECT_TRUE(f.empty()) << f;
}

INSTANTIATE_TEST_SUITE_P(kernels, concurrency_test, ::testing::Values("onednn", "native"));

} // namespace

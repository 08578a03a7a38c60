// The suite's reductions, in their own file so that a parallel (CUDA) build compiles them beside kstream_bench.cpp:
// dot tiled and naive (peers in the backends' files); the Krylov step r = r - x with ||r||^2, fused in one pass
// against kstream's two separate calls.
#include <kstream/kstream.hpp>

#include "bench_support.hpp"

namespace kstream::bench {
namespace {

template <class Exec, class T>
struct NaiveDot {
  Vec<Exec, T> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, T& sum) const { sum += x(i) * y(i); }
};
}  // namespace

/// The reductions: dot (kstream, naive Kokkos; peers in the backends' files) and the Krylov step r = r - x,
/// ||r||^2 fused in one pass against kstream's two separate calls.
template <class Exec, class T>
void add_reductions(std::vector<Variant<Exec, T>>& list) {
  using O = Operands<Exec, T>;
  using Acc = kstream::accumulator_t<T>;
  using Space = typename Exec::memory_space;
  const Exec exec;
  auto tiled = std::make_shared<Kokkos::View<Acc, Space>>("bench_dot_tiled");
  list.push_back(reduction_variant<Exec, T>(
      Op::dot, "tiled", [=](const O& o) { kstream::dot(exec, o.x, o.y, *tiled); }, reader(tiled), 0.0));
  auto naive = std::make_shared<Kokkos::View<T, Space>>("bench_dot_naive");
  list.push_back(reduction_variant<Exec, T>(
      Op::dot, "naive",
      [=](const O& o) {
        Kokkos::parallel_reduce("kstream::bench::naive_dot",
                                Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, o.n),
                                NaiveDot<Exec, T>{o.x, o.y}, *naive);
      },
      reader(naive), std::is_same_v<T, float> ? 1e-3 : 1e-12));
  auto fused = std::make_shared<Kokkos::View<Acc, Space>>("bench_norm_fused");
  list.push_back(reduction_variant<Exec, T>(
      Op::update_norm, "fused_tiled",
      [=](const O& o) {
        kstream::transform_reduce(exec, o.out, SubtractX<T>{}, *fused, kstream::Sum{}, SquareFirst{}, o.out, o.x);
      },
      reader(fused), 0.0));
  auto separate = std::make_shared<Kokkos::View<Acc, Space>>("bench_norm_separate");
  list.push_back(reduction_variant<Exec, T>(
      Op::update_norm, "separate_tiled",
      [=](const O& o) {
        kstream::transform(exec, o.out, SubtractX<T>{}, o.out, o.x);
        kstream::transform_reduce(exec, *separate, kstream::Sum{}, Square{}, o.out);
      },
      reader(separate), 0.0));
}

#define KSTREAM_SUITE_REDUCTIONS(Exec)                                   \
  template void add_reductions(std::vector<Variant<Exec, float>>& list); \
  template void add_reductions(std::vector<Variant<Exec, double>>& list);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_SUITE_REDUCTIONS)
#undef KSTREAM_SUITE_REDUCTIONS

}  // namespace kstream::bench

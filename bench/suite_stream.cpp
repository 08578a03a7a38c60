// The suite's BabelStream set, in its own file so that a parallel (CUDA) build compiles it beside
// kstream_bench.cpp: copy, mul, triad and nstream through kstream's public API, tiled and naive (scalar 0.5,
// BabelStream's byte counts); and Kokkos' std algorithms as peers of add, triad and dot.
#include <Kokkos_StdAlgorithms.hpp>
#include <kstream/kstream.hpp>

#include "bench_support.hpp"

namespace kstream::bench {
namespace {

/// BabelStream's nstream, scalar 0.5 (see Op; copy and triad: bench_support.hpp).
template <class T>
struct Nstream {
  KOKKOS_INLINE_FUNCTION T operator()(T out, T x, T y) const { return out + (x + T(0.5) * y); }
};

}  // namespace

/// BabelStream's set through kstream's public API (copy, mul, triad, nstream; its add and dot are the add and dot
/// rows), tiled and naive, with BabelStream's byte counts.
template <class Exec, class T>
void add_stream_set(std::vector<Variant<Exec, T>>& list) {
  using O = Operands<Exec, T>;
  const Exec exec;
  list.push_back({Op::copy, "tiled", [=](const O& o) { kstream::transform(exec, o.out, Same<T>{}, o.x); }});
  list.push_back({Op::copy, "naive", [=](const O& o) { kstream::naive::transform(exec, o.out, Same<T>{}, o.x); }});
  const Scale<T> half{T(0.5)};
  list.push_back({Op::mul, "tiled", [=](const O& o) { kstream::transform(exec, o.out, half, o.x); }});
  list.push_back({Op::mul, "naive", [=](const O& o) { kstream::naive::transform(exec, o.out, half, o.x); }});
  list.push_back({Op::triad, "tiled", [=](const O& o) { kstream::transform(exec, o.out, Triad<T>{}, o.x, o.y); }});
  list.push_back(
      {Op::triad, "naive", [=](const O& o) { kstream::naive::transform(exec, o.out, Triad<T>{}, o.x, o.y); }});
  list.push_back(in_place_variant<Exec, T>(
      Op::nstream, "tiled", [=](const O& o) { kstream::transform(exec, o.out, Nstream<T>{}, o.out, o.x, o.y); }));
  list.push_back(in_place_variant<Exec, T>(Op::nstream, "naive", [=](const O& o) {
    kstream::naive::transform(exec, o.out, Nstream<T>{}, o.out, o.x, o.y);
  }));
}

/// Kokkos::Experimental::transform (add, triad) and transform_reduce (dot) on the suite's views, as a Kokkos user
/// writes them. No fma row: the std algorithms have no three-input transform. The dot accumulates in T and returns
/// its value on the host (a blocking call, as the algorithm is), checked as the naive dot is.
template <class Exec, class T>
void add_kokkos_std_peers(std::vector<Variant<Exec, T>>& list) {
  using O = Operands<Exec, T>;
  const Exec exec;
  list.push_back({Op::add, "kokkos_std", [=](const O& o) {
                    auto out = o.out;
                    Kokkos::Experimental::transform(exec, o.x, o.y, out, kstream::impl::Plus{});
                  }});
  list.push_back({Op::triad, "kokkos_std", [=](const O& o) {
                    auto out = o.out;
                    Kokkos::Experimental::transform(exec, o.x, o.y, out, Triad<T>{});
                  }});
  auto result = std::make_shared<double>(0.0);
  list.push_back(reduction_variant<Exec, T>(
      Op::dot, "kokkos_std",
      [=](const O& o) { *result = double(Kokkos::Experimental::transform_reduce(exec, o.x, o.y, T(0))); },
      [=] { return *result; }, std::is_same_v<T, float> ? 1e-3 : 1e-12));
}

#define KSTREAM_SUITE_STREAM(Exec)                                             \
  template void add_stream_set(std::vector<Variant<Exec, float>>& list);       \
  template void add_stream_set(std::vector<Variant<Exec, double>>& list);      \
  template void add_kokkos_std_peers(std::vector<Variant<Exec, float>>& list); \
  template void add_kokkos_std_peers(std::vector<Variant<Exec, double>>& list);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_SUITE_STREAM)
#undef KSTREAM_SUITE_STREAM

}  // namespace kstream::bench

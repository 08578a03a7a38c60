// Diagnostic, not part of the build: where the tiled OpenMP path spends its time at mid sizes (float add,
// n = 2^15 .. 2^20), in paired rounds like host_paired.cpp: kstream::add; the naive kernel; a raw `omp parallel
// for`; Kokkos parallel_for over one contiguous chunk per thread (restrict pointers); kstream's TiledFunctor
// launched directly (no kstream host logic); kstream::add on Kokkos::OpenMP instances of 4 and 8 threads.
// Built like host_paired.cpp; it uses kstream::impl internals and follows them.
#include <Kokkos_Core.hpp>
#include <kstream/kstream.hpp>

#include "paired_rounds.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
using V = Kokkos::View<float*, Kokkos::HostSpace>;
using R = Kokkos::RangePolicy<Kokkos::OpenMP, Kokkos::IndexType<std::int64_t>>;
struct Chunk {
  const float* x; const float* y; float* o; std::int64_t n; std::int64_t per;
  void operator()(std::int64_t t) const {
    const float* __restrict xa = x; const float* __restrict ya = y; float* __restrict oa = o;
    std::int64_t b = t * per, e = std::min(n, b + per);
    for (std::int64_t i = b; i < e; ++i) oa[i] = xa[i] + ya[i];
  }
};
void run(std::int64_t n, std::int64_t shift) {
  V X("x", n + 64), Y("y", n + 64), O("o", n + 64);
  Kokkos::deep_copy(X, 1.f); Kokkos::deep_copy(Y, 2.f);
  auto x = Kokkos::subview(X, std::make_pair(std::int64_t(0), n));
  auto y = Kokkos::subview(Y, std::make_pair(shift, n + shift));
  auto o = Kokkos::subview(O, std::make_pair(2 * shift, n + 2 * shift));
  Kokkos::OpenMP exec;
  const int T = exec.concurrency();
  Kokkos::OpenMP sub4(4), sub8(8);
  const int reps = int(std::max<std::int64_t>(4, (std::int64_t(1) << 24) / n));
  using namespace kstream::impl;
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"tiled", [&] { kstream::add(exec, x, y, o); }},
      {"naive", [&] { kstream::naive::add(exec, x, y, o); }},
      {"omp", [&] {
         const float* xa = x.data(); const float* ya = y.data(); float* oa = o.data();
#pragma omp parallel for schedule(static)
         for (std::int64_t i = 0; i < n; ++i) oa[i] = xa[i] + ya[i];
       }},
      {"kk_chunk", [&] { Kokkos::parallel_for("c", R(exec, 0, T), Chunk{x.data(), y.data(), o.data(), n, (n + T - 1) / T}); }},
      {"tiled_sub4", [&] { kstream::add(sub4, x, y, o); }},
      {"tiled_sub8", [&] { kstream::add(sub8, x, y, o); }},
      {"kk_tiledfunctor", [&] {
         using F = TiledFunctor<Kokkos::OpenMP, Access::packed, 4, 4, Plus, float, float, float>;
         const std::int64_t body = n / 4, tile = (body + T - 1) / T;
         const F f(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, int((tile + 3) / 4), Plus{});
         Kokkos::parallel_for("t", R(exec, 0, T), f);
       }},
  };
  const std::vector<std::vector<double>> t = paired_rounds(vs, reps);
  for (size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    printf("add float n=%lld shift=%lld %-16s median %8.3f us p10 %8.3f p90 %8.3f\n", (long long)n, (long long)shift, vs[k].first,
           v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
  }
}
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  for (std::int64_t n : {1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 20})
    run(n, 0);
  Kokkos::finalize();
}

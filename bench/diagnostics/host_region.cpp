// Diagnostic, not part of the build: where a mid-size OpenMP call loses to a raw `omp parallel for` (float add,
// n = 2^16 .. 2^20, all threads), in paired rounds like host_paired.cpp. Variants:
//   omp, omp8       `omp parallel for schedule(static)` over the elements (the peer), on all threads and on 8
//   kstream         kstream::add, default shape
//   kstream_1tile   kstream::add, one tile per thread (an explicit shape)
//   region_functor  kstream's TiledFunctor built once, outside the timed call, its tiles (one per thread) in an
//                   `omp parallel for` like kstream's own region: the engine without kstream's host logic
//   fresh_lambda    the same, the functor made per call and its region inside a lambda that holds references
//   fresh_own       the same, the functor made per call, in kstream's own region (run_in_own_region)
//   fresh_own_2     the same with tiles of 1024 packs (the default before af9700a: two or more per thread here)
//   engine          kstream's engine entry (tiled_transform) without add's argument checks
//   words           fresh_own, but the functor crosses into the region as firstprivate 64-bit scalars (OpenMP
//                   passes those by value in the region's argument block; an aggregate goes by pointer, and a
//                   thread's read of the functor then waits on its read of that block)
//   static_slot     fresh_own, but the functor is copied to a static buffer the threads read directly
//   region_plain    one `omp parallel` region, each thread a plain loop over its static share
//   naive           kstream::naive::add (Kokkos RangePolicy)
// Built like host_paired.cpp; it uses kstream::impl internals and follows them.
#include <Kokkos_Core.hpp>
#include <kstream/kstream.hpp>

#include "paired_rounds.hpp"
#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <omp.h>
#include <vector>

using V = Kokkos::View<float*, Kokkos::HostSpace>;
using namespace kstream::impl;

void run(std::int64_t n) {
  V x("x", n), y("y", n), o("o", n);
  Kokkos::deep_copy(x, 1.f);
  Kokkos::deep_copy(y, 2.f);
  const Kokkos::OpenMP exec;
  const int T = exec.concurrency();
  const std::int64_t body = n / 4;  // packs; n is a multiple of 4 * T * 4 here
  const int chunks = int(body / T / 4);
  using F = TiledFunctor<Kokkos::OpenMP, Access::packed, 4, 4, Plus, float, float, float>;
  const F f(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, chunks, Plus{});
  const float* xa = x.data();
  const float* ya = y.data();
  float* oa = o.data();
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"omp", [&] {
#pragma omp parallel for schedule(static)
         for (std::int64_t i = 0; i < n; ++i) oa[i] = xa[i] + ya[i];
       }},
      {"omp8", [&] {
#pragma omp parallel for schedule(static) num_threads(8)
         for (std::int64_t i = 0; i < n; ++i) oa[i] = xa[i] + ya[i];
       }},
      {"kstream", [&] { kstream::add(exec, x, y, o); }},
      {"kstream_1tile", [&] { kstream::add(exec, x, y, o, kstream::TileShape{1, 4, chunks}); }},
      {"region_functor", [&] {
#pragma omp parallel for schedule(static) num_threads(T)
         for (std::int64_t tile = 0; tile < T; ++tile) f(tile);
       }},
      {"fresh_lambda", [&] {  // a functor made per call, its region inside a lambda that holds references
         const F g(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, chunks, Plus{});
         as_tools_kernel("t", exec, [&] {
#pragma omp parallel for schedule(static) num_threads(T)
           for (std::int64_t tile = 0; tile < T; ++tile) g(tile);
         });
       }},
      {"fresh_own", [&] {  // the same functor made per call, in kstream's own region (a firstprivate copy)
         run_in_own_region(F(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, chunks, Plus{}), T, T);
       }},
      {"fresh_own_2", [&] {  // tiles of 1024 packs (16 KiB of each array), the default before af9700a
         const std::int64_t tiles = (body + 1023) / 1024;
         run_in_own_region(F(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, 256, Plus{}), tiles, T);
       }},
      {"engine", [&] {
         tiled_transform(LaunchNow{}, "engine", exec, kstream::default_tile_shape<Kokkos::OpenMP>(), o, Plus{}, x, y);
       }},
      {"words", [&] {
         const F g(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, chunks, Plus{});
         static_assert(sizeof(F) == 48 && std::is_trivially_copyable_v<F>);
         std::array<std::uint64_t, 6> w;
         std::memcpy(w.data(), &g, sizeof(F));
         const std::uint64_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5];
#pragma omp parallel for schedule(static) num_threads(T) firstprivate(w0, w1, w2, w3, w4, w5)
         for (std::int64_t tile = 0; tile < T; ++tile) {
           const std::array<std::uint64_t, 6> l = {w0, w1, w2, w3, w4, w5};
           std::bit_cast<F>(l)(tile);
         }
       }},
      {"static_slot", [&] {
         alignas(64) static std::array<unsigned char, sizeof(F)> slot;
         const F g(o.data(), {{x.data()}, {y.data()}}, Partition{0, body, 0}, chunks, Plus{});
         std::memcpy(slot.data(), &g, sizeof(F));
#pragma omp parallel for schedule(static) num_threads(T)
         for (std::int64_t tile = 0; tile < T; ++tile) std::bit_cast<F>(slot)(tile);
       }},
      {"region_plain", [&] {
#pragma omp parallel num_threads(T)
         {
           const std::int64_t t = omp_get_thread_num(), first = n * t / T, last = n * (t + 1) / T;
           for (std::int64_t i = first; i < last; ++i) oa[i] = xa[i] + ya[i];
         }
       }},
      {"naive", [&] { kstream::naive::add(exec, x, y, o); }},
  };
  const int reps = int(std::max<std::int64_t>(8, (std::int64_t(1) << 24) / n));
  const auto t = paired_rounds(vs, reps);
  for (std::size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    std::printf("add float n=%lld %-15s median %8.3f us p10 %8.3f p90 %8.3f\n", (long long)n, vs[k].first,
                v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
  }
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  if (argc > 1) {
    for (int a = 1; a < argc; ++a) run(std::int64_t(1) << std::atoi(argv[a]));  // log2 sizes
  } else {
    for (std::int64_t n : {1 << 16, 1 << 17, 1 << 18, 1 << 20}) run(n);
  }
  Kokkos::finalize();
}

// Diagnostic, not part of the build: paired host timing of kstream's tiled add/fma, the naive Kokkos kernel, a
// raw `omp parallel for` on all threads and on 2, 4 and 8 of them, kstream on an OpenMP instance of its own
// (Kokkos::parallel_for on all its threads: the dispatch kstream bypasses on the default instance) and on
// Kokkos::Serial (one thread).
// The variants alternate in 31 rounds of a few milliseconds each, so that the machine's drift hits all of them
// alike (the Google Benchmark suite interleaves whole repetitions, too coarse on a noisy host). Prints the median
// and p10/p90 microseconds per call, n = 2^13 .. 2^max_log2 (default 20).
//
//   g++ -O3 -march=native -std=c++20 -fopenmp -Iinclude -I<build>/include -I<kokkos>/include \
//       -DKSTREAM_COMPILER='"g++"' -DKSTREAM_HOST_ARCH_FLAG='"-march=native"' bench/diagnostics/host_paired.cpp \
//       src/*.cpp -L<kokkos>/lib -lkokkoscore -ldl -o host_paired
//   OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads ./host_paired [max_log2]
#include <Kokkos_Core.hpp>
#include <kstream/kstream.hpp>

#include "paired_rounds.hpp"
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
template <class T, bool Fma>
void run(std::int64_t n) {
  using V = Kokkos::View<T*, Kokkos::HostSpace>;
  V x("x", n), y("y", n), z("z", n), o("o", n);
  Kokkos::deep_copy(x, T(1)); Kokkos::deep_copy(y, T(2)); Kokkos::deep_copy(z, T(3));
  Kokkos::OpenMP exec;
  static const Kokkos::OpenMP& own = *new Kokkos::OpenMP(exec.concurrency());  // kept: Kokkos forbids destroying
                                                                               // an instance after finalize
  const int reps = int(std::max<std::int64_t>(4, (std::int64_t(1) << 24) / n));
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"tiled", [&] { if constexpr (Fma) kstream::fma(exec, x, y, z, o); else kstream::add(exec, x, y, o); }},
      {"naive", [&] { if constexpr (Fma) kstream::naive::fma(exec, x, y, z, o); else kstream::naive::add(exec, x, y, o); }},
      {"omp", [&] {
         const T* xa = x.data(); const T* ya = y.data(); const T* za = z.data(); T* oa = o.data();
#pragma omp parallel for schedule(static)
         for (std::int64_t i = 0; i < n; ++i) oa[i] = Fma ? xa[i] * ya[i] + za[i] : xa[i] + ya[i];
       }},
  };
  // kstream through Kokkos::parallel_for: on an instance of its own (all of its threads, Kokkos' region), against
  // "tiled" on the default instance (kstream's own region, fewer threads for mid sizes).
  vs.push_back({"tiled_kk", [&] { if constexpr (Fma) kstream::fma(own, x, y, z, o); else kstream::add(own, x, y, o); }});
  // One tile per thread as an explicit shape (n / (4 W threads) chunks): the default's tiles since af9700a (before:
  // 16 KiB tiles), through the explicit-shape path (all threads, its team-size check).
  const int one_tile = int(std::max<std::int64_t>(1, n / (16 / sizeof(T)) / 4 / exec.concurrency()));
  vs.push_back({"tiled_1tile", [&] {
     const kstream::TileShape shape{1, 4, one_tile};
     if constexpr (Fma) kstream::fma(exec, x, y, z, o, shape); else kstream::add(exec, x, y, o, shape);
   }});
  for (int k : {2, 4, 8}) {
    vs.push_back({k == 2 ? "omp2" : k == 4 ? "omp4" : "omp8", [&, k] {
         const T* xa = x.data(); const T* ya = y.data(); const T* za = z.data(); T* oa = o.data();
#pragma omp parallel for schedule(static) num_threads(k)
         for (std::int64_t i = 0; i < n; ++i) oa[i] = Fma ? xa[i] * ya[i] + za[i] : xa[i] + ya[i];
       }});
  }
#ifdef KOKKOS_ENABLE_SERIAL
  vs.push_back({"serial", [&] { Kokkos::Serial s; if constexpr (Fma) kstream::fma(s, x, y, z, o); else kstream::add(s, x, y, o); }});
#endif
  const std::vector<std::vector<double>> t = paired_rounds(vs, reps);
  std::vector<double> med(vs.size());
  for (size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    med[k] = v[v.size() / 2];
    printf("%s %s n=%lld %-6s median %9.3f us  p10 %9.3f p90 %9.3f\n", Fma ? "fma" : "add", sizeof(T) == 4 ? "float" : "double",
           (long long)n, vs[k].first, v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
  }
  printf("%s %s n=%lld tiled/max(naive,omp) = %.3f\n", Fma ? "fma" : "add", sizeof(T) == 4 ? "float" : "double", (long long)n,
         std::min(med[1], med[2]) / med[0]);
}
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 20;
  for (std::int64_t n = 1 << 13; n <= (std::int64_t(1) << max_log2); n *= (n < (1 << 18) ? 2 : 4)) {
    run<float, false>(n); run<float, true>(n); run<double, false>(n); run<double, true>(n);
  }
  Kokkos::finalize();
}

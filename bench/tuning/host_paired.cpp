// Tuning program behind the host rows of docs/engine.md (OpenMP; built with -DKSTREAM_BUILD_TUNING=ON): paired
// host timing of kstream's tiled add/fma, the naive Kokkos kernel, a raw `omp parallel for` on all threads and on
// 2, 4 and 8 of them, and kstream on Kokkos::Serial (one thread). The variants alternate in 31 rounds of a few
// milliseconds each, so that the machine's drift hits all of them alike. Prints the median and p10/p90
// microseconds per call, n = 2^13 .. 2^max_log2 (default 20).
// With a stride (second argument, > 1): LayoutStride views of that stride and only tiled, naive, the loop and
// naive once more (`naive_again`: the spread of identical calls), at n = 2^min_log2 (third argument, default 20),
// 4x as many, ... 2^max_log2.
//
//   OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads host_paired [max_log2 [stride [min_log2]]]
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
using Variants = std::vector<std::pair<const char*, std::function<void()>>>;

/// The variants about contiguous calls of mid sizes: the loop on fewer threads, kstream on Serial.
template <class T, bool Fma, class V>
void add_contiguous_variants(Variants& vs, std::int64_t n, const V& x, const V& y, const V& z, const V& o) {
  for (int k : {2, 4, 8}) {
    vs.push_back({k == 2 ? "omp2" : k == 4 ? "omp4" : "omp8", [=] {
         const T* xa = x.data(); const T* ya = y.data(); const T* za = z.data(); T* oa = o.data();
#pragma omp parallel for schedule(static) num_threads(k)
         for (std::int64_t i = 0; i < n; ++i) oa[i] = Fma ? xa[i] * ya[i] + za[i] : xa[i] + ya[i];
       }});
  }
#ifdef KOKKOS_ENABLE_SERIAL
  vs.push_back({"serial", [=] { Kokkos::Serial s; if constexpr (Fma) kstream::fma(s, x, y, z, o); else kstream::add(s, x, y, o); }});
#endif
}

template <class T, bool Fma, class L = Kokkos::LayoutRight>
void run(std::int64_t n, std::int64_t stride = 1) {
  constexpr bool contiguous = std::is_same_v<L, Kokkos::LayoutRight>;
  using V = Kokkos::View<T*, L, Kokkos::HostSpace>;
  Kokkos::View<T*, Kokkos::HostSpace> px("x", n * stride), py("y", n * stride), pz("z", n * stride),
      po("o", n * stride);
  Kokkos::deep_copy(px, T(1)); Kokkos::deep_copy(py, T(2)); Kokkos::deep_copy(pz, T(3));
  const auto view = [&](const auto& parent) {
    if constexpr (contiguous) {
      return V(parent.data(), n);
    } else {
      return V(parent.data(), Kokkos::LayoutStride(n, stride));
    }
  };
  const V x = view(px), y = view(py), z = view(pz), o = view(po);
  Kokkos::OpenMP exec;
  const int reps = int(std::max<std::int64_t>(4, (std::int64_t(1) << 24) / n));
  Variants vs = {
      {"tiled", [&] { if constexpr (Fma) kstream::fma(exec, x, y, z, o); else kstream::add(exec, x, y, o); }},
      {"naive", [&] { if constexpr (Fma) kstream::naive::fma(exec, x, y, z, o); else kstream::naive::add(exec, x, y, o); }},
      {"omp", [&] {
         const T* xa = x.data(); const T* ya = y.data(); const T* za = z.data(); T* oa = o.data();
         if constexpr (contiguous) {
#pragma omp parallel for schedule(static)
           for (std::int64_t i = 0; i < n; ++i) oa[i] = Fma ? xa[i] * ya[i] + za[i] : xa[i] + ya[i];
         } else {
#pragma omp parallel for schedule(static)
           for (std::int64_t i = 0; i < n; ++i) {
             const std::int64_t e = i * stride;
             oa[e] = Fma ? xa[e] * ya[e] + za[e] : xa[e] + ya[e];
           }
         }
       }},
  };
  if constexpr (contiguous) {
    add_contiguous_variants<T, Fma>(vs, n, x, y, z, o);
  } else {  // naive once more, as a variant of its own: the spread of identical calls on this host (A/A)
    vs.push_back({"naive_again", vs[1].second});
  }
  const std::vector<std::vector<double>> t = paired_rounds(vs, reps);
  std::vector<double> med(vs.size());
  for (size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    med[k] = v[v.size() / 2];
    printf("%s %s n=%lld %-6s median %9.3f us  p10 %9.3f p90 %9.3f\n", Fma ? "fma" : "add", sizeof(T) == 4 ? "float" : "double",
           (long long)n, vs[k].first, v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
  }
  printf("%s %s n=%lld stride %lld tiled/max(naive,omp) = %.3f naive/tiled = %.3f", Fma ? "fma" : "add",
         sizeof(T) == 4 ? "float" : "double", (long long)n, (long long)stride, std::min(med[1], med[2]) / med[0],
         med[1] / med[0]);
  if constexpr (!contiguous) printf(" naive/naive_again = %.3f", med[1] / med[3]);
  printf("\n");
}
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::int64_t stride = argc > 2 ? std::atoll(argv[2]) : 1;
  if (stride > 1) {
    for (std::int64_t n = std::int64_t(1) << (argc > 3 ? std::atoi(argv[3]) : 20); n <= (std::int64_t(1) << max_log2);
         n *= 4) {
      using S = Kokkos::LayoutStride;
      run<float, false, S>(n, stride); run<float, true, S>(n, stride); run<double, false, S>(n, stride);
      run<double, true, S>(n, stride);
    }
  } else {
    for (std::int64_t n = 1 << 13; n <= (std::int64_t(1) << max_log2); n *= (n < (1 << 18) ? 2 : 4)) {
      run<float, false>(n); run<float, true>(n); run<double, false>(n); run<double, true>(n);
    }
  }
  Kokkos::finalize();
}

// Native host peers: the plain `#pragma omp parallel for` loops a C++ programmer writes without Kokkos,
// on the same storage as the Kokkos variants.
#include <cmath>

#include "bench_support.hpp"

#if defined(KOKKOS_ENABLE_OPENMP)
namespace kstream::bench {
namespace {

template <class T>
void add_peers(std::vector<Variant<Kokkos::OpenMP, T>>& variants) {
  using O = Operands<Kokkos::OpenMP, T>;
  variants.push_back({Op::copy, "omp_for", [](const O& o) {
                        const T* __restrict x = o.x.data();
                        T* __restrict out = o.out.data();
#pragma omp parallel for schedule(static)
                        for (std::int64_t i = 0; i < o.n; ++i) out[i] = x[i];
                      }});
  variants.push_back({Op::add, "omp_for",
                      [](const O& o) {
                        const T* __restrict x = o.x.data();
                        const T* __restrict y = o.y.data();
                        T* __restrict out = o.out.data();
#pragma omp parallel for schedule(static)
                        for (std::int64_t i = 0; i < o.n; ++i) out[i] = x[i] + y[i];
                      },
                      false, true});
  variants.push_back({Op::fma, "omp_for",
                      [](const O& o) {
                        const T* __restrict a = o.x.data();
                        const T* __restrict b = o.y.data();
                        const T* __restrict c = o.z.data();
                        T* __restrict out = o.out.data();
#pragma omp parallel for schedule(static)
                        for (std::int64_t i = 0; i < o.n; ++i) out[i] = std::fma(a[i], b[i], c[i]);
                      },
                      false, true});
  auto sum = std::make_shared<double>(0);
  variants.push_back(reduction_variant<Kokkos::OpenMP, T>(
      Op::dot, "omp_reduction",
      [sum](const O& o) {
        const T* __restrict x = o.x.data();
        const T* __restrict y = o.y.data();
        T s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
        for (std::int64_t i = 0; i < o.n; ++i) s += x[i] * y[i];
        *sum = s;
      },
      [sum] { return *sum; }, std::is_same_v<T, float> ? 1e-3 : 1e-12));
}

}  // namespace

void add_native_peers(std::vector<Variant<Kokkos::OpenMP, float>>& variants) {
  add_peers(variants);
}
void add_native_peers(std::vector<Variant<Kokkos::OpenMP, double>>& variants) {
  add_peers(variants);
}

}  // namespace kstream::bench
#endif

// Kokkos Kernels' BLAS-1 as a peer, built when CMake finds Kokkos Kernels: the library a Kokkos user reaches for
// first. update (out = x + y: kstream::add's bytes), axpby in place (out = x + out), mult in place
// (out = x * y + out) and dot (beside kstream::dot), on the same views and execution space instance as kstream's rows; kstream's in-place calls
// (tiled_inplace, kstream_bench.cpp) move the same bytes. float and double on every enabled backend.
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_update.hpp>
#include <KokkosKernels_config.h>

#include "bench_support.hpp"

namespace kstream::bench {

template <class Exec, class T>
void add_kokkos_kernels_peers(std::vector<Variant<Exec, T>>& variants) {
  using O = Operands<Exec, T>;
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  using KokkosKernelsView = Kokkos::View<T*, Kokkos::LayoutRight, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // The suite's views with a device naming Exec: Kokkos Kernels runs on the views' execution space, and a host
  // view's is the default host space (OpenMP), not Serial.
  const auto on = [](const Vec<Exec, T>& v) { return KokkosKernelsView(v.data(), v.extent(0)); };
  const Exec exec;
  variants.push_back({Op::add, "kokkosblas", [=](const O& o) {
                        KokkosBlas::update(exec, T(1), on(o.x), T(1), on(o.y), T(0), on(o.out));
                      }});
  variants.push_back(in_place_variant<Exec, T>(
      Op::add, "kokkosblas_inplace", [=](const O& o) { KokkosBlas::axpby(exec, T(1), on(o.x), T(1), on(o.out)); }));
  auto result = std::make_shared<Kokkos::View<T, Device>>("bench_dot_kokkosblas");
  variants.push_back(reduction_variant<Exec, T>(
      Op::dot, "kokkosblas", [=](const O& o) { KokkosBlas::dot(exec, *result, on(o.x), on(o.y)); }, reader(result),
      std::is_same_v<T, float> ? 1e-3 : 1e-12));
  variants.push_back(in_place_variant<Exec, T>(Op::fma, "kokkosblas_inplace", [=](const O& o) {
    KokkosBlas::mult(exec, T(1), on(o.out), T(1), on(o.x), on(o.y));
  }));
}

std::string kokkos_kernels_version() {
  return std::to_string(KOKKOSKERNELS_VERSION_MAJOR) + "." + std::to_string(KOKKOSKERNELS_VERSION_MINOR) + "." +
         std::to_string(KOKKOSKERNELS_VERSION_PATCH);
}

#define KSTREAM_KOKKOS_KERNELS_PEERS(Exec)                                                    \
  template void add_kokkos_kernels_peers(std::vector<Variant<Exec, float>>& variants);  \
  template void add_kokkos_kernels_peers(std::vector<Variant<Exec, double>>& variants);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_KOKKOS_KERNELS_PEERS)
#undef KSTREAM_KOKKOS_KERNELS_PEERS

}  // namespace kstream::bench

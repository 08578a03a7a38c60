// Kokkos Kernels' BLAS-1 as a peer, built when CMake finds Kokkos Kernels: the library a Kokkos user reaches for
// first. update (out = x + y: kstream::add's bytes), axpby in place (out = x + out), mult in place
// (out = x * y + out) and dot (beside kstream::dot), on the same views and execution space instance as kstream's rows;
// kstream's in-place calls (tiled_inplace, kstream_bench.cpp) move the same bytes. float and double on every enabled
// backend. The multivector update on rank-2 views of any layout for the rows of views of several dimensions
// (suite_rank_n.hpp).
#include <KokkosKernels_config.h>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_sum.hpp>
#include <KokkosBlas1_update.hpp>
#include <algorithm>

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
  variants.push_back({Op::add, "kokkosblas",
                      [=](const O& o) { KokkosBlas::update(exec, T(1), on(o.x), T(1), on(o.y), T(0), on(o.out)); }});
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

/// The views as a user of Kokkos Kernels holds them: LayoutLeft or LayoutRight where all three are that layout
/// without padding (whole views), LayoutStride otherwise (an interior's or a transpose's subview).
template <class Exec, class T>
void kokkos_kernels_update(const StridedMatrix<Exec, T>& x, const StridedMatrix<Exec, T>& y,
                           const StridedMatrix<Exec, T>& out) {
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  const auto run = [&](auto layout, auto as) {
    using Matrix = Kokkos::View<T**, decltype(layout), Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    KokkosBlas::update(Exec(), T(1), Matrix(x.data(), as(x)), T(1), Matrix(y.data(), as(y)), T(0),
                       Matrix(out.data(), as(out)));
  };
  const auto all = [&](auto is) { return is(x) && is(y) && is(out); };
  const auto left = [](const StridedMatrix<Exec, T>& v) {
    return std::size_t(v.stride(0)) == 1 && std::size_t(v.stride(1)) == std::max<std::size_t>(v.extent(0), 1);
  };
  const auto right = [](const StridedMatrix<Exec, T>& v) {
    return std::size_t(v.stride(1)) == 1 && std::size_t(v.stride(0)) == std::max<std::size_t>(v.extent(1), 1);
  };
  if (all(left)) {
    run(Kokkos::LayoutLeft(), [](const auto& v) { return Kokkos::LayoutLeft(v.extent(0), v.extent(1)); });
  } else if (all(right)) {
    run(Kokkos::LayoutRight(), [](const auto& v) { return Kokkos::LayoutRight(v.extent(0), v.extent(1)); });
  } else {
    run(Kokkos::LayoutStride(), [](const auto& v) { return v.layout(); });
  }
}

/// Kokkos Kernels' multivector dot, nrm2 and sum, one per column of x (0: sum, 1: dot, 2: nrm2 as along::Reduce),
/// on the views as a Kokkos Kernels user holds them (LayoutLeft or LayoutRight where whole, else LayoutStride), into
/// a view of Kokkos Kernels' own result type, then converted into `out` (outside the call, as a user's would be
/// another view; the conversion kernel is timed too: k elements).
template <class Exec, class T>
void kokkos_kernels_columns(int what, const StridedMatrix<Exec, const T>& x, const StridedMatrix<Exec, const T>& y,
                            const Kokkos::View<kstream::accumulator_t<T>*, typename Exec::memory_space>& out) {
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  static Kokkos::View<T*, Device> own;  // Kokkos Kernels' result, of T (released at Kokkos::finalize)
  static const bool hooked = (Kokkos::push_finalize_hook([] { own = {}; }), true);
  static_cast<void>(hooked);
  if (own.extent(0) != x.extent(1)) own = Kokkos::View<T*, Device>("bench_kokkosblas_columns", x.extent(1));
  const auto run = [&](auto layout, auto as) {
    using Matrix = Kokkos::View<const T**, decltype(layout), Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const Matrix xm(x.data(), as(x)), ym(y.data(), as(y));
    if (what == 1) {
      KokkosBlas::dot(Exec(), own, xm, ym);
    } else if (what == 2) {
      KokkosBlas::nrm2(Exec(), own, xm);
    } else {
      KokkosBlas::sum(Exec(), own, xm);
    }
  };
  const auto left = [](const StridedMatrix<Exec, const T>& v) {
    return std::size_t(v.stride(0)) == 1 && std::size_t(v.stride(1)) == std::max<std::size_t>(v.extent(0), 1);
  };
  const auto right = [](const StridedMatrix<Exec, const T>& v) {
    return std::size_t(v.stride(1)) == 1 && std::size_t(v.stride(0)) == std::max<std::size_t>(v.extent(1), 1);
  };
  if (left(x) && left(y)) {
    run(Kokkos::LayoutLeft(), [](const auto& v) { return Kokkos::LayoutLeft(v.extent(0), v.extent(1)); });
  } else if (right(x) && right(y)) {
    run(Kokkos::LayoutRight(), [](const auto& v) { return Kokkos::LayoutRight(v.extent(0), v.extent(1)); });
  } else {
    run(Kokkos::LayoutStride(), [](const auto& v) { return v.layout(); });
  }
  Kokkos::deep_copy(Exec(), out, own);
}

std::string kokkos_kernels_version() {
  return std::to_string(KOKKOSKERNELS_VERSION_MAJOR) + "." + std::to_string(KOKKOSKERNELS_VERSION_MINOR) + "." +
         std::to_string(KOKKOSKERNELS_VERSION_PATCH);
}

#define KSTREAM_KOKKOS_KERNELS_PEERS(Exec)                                                                      \
  template void add_kokkos_kernels_peers(std::vector<Variant<Exec, float>>& variants);                          \
  template void add_kokkos_kernels_peers(std::vector<Variant<Exec, double>>& variants);                         \
  template void kokkos_kernels_update<Exec, float>(                                                             \
      const StridedMatrix<Exec, float>&, const StridedMatrix<Exec, float>&, const StridedMatrix<Exec, float>&); \
  template void kokkos_kernels_update<Exec, double>(                                                            \
      const StridedMatrix<Exec, double>&, const StridedMatrix<Exec, double>&, const StridedMatrix<Exec, double>&); \
  template void kokkos_kernels_columns<Exec, float>(int, const StridedMatrix<Exec, const float>&,                 \
                                                    const StridedMatrix<Exec, const float>&,                     \
                                                    const Kokkos::View<double*, typename Exec::memory_space>&);  \
  template void kokkos_kernels_columns<Exec, double>(int, const StridedMatrix<Exec, const double>&,              \
                                                     const StridedMatrix<Exec, const double>&,                  \
                                                     const Kokkos::View<double*, typename Exec::memory_space>&);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_KOKKOS_KERNELS_PEERS)
#undef KSTREAM_KOKKOS_KERNELS_PEERS

}  // namespace kstream::bench

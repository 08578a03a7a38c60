#pragma once
// kstream::fma: out = a * b + c elementwise with one rounding (Kokkos::fma), a thin wrapper over the tiled engine.
//
//   kstream::fma(exec, a, b, c, out);        kstream::fma(exec, a, b, c, out, shape);
//   kstream::fma(a, b, c, out);              // out's execution space
//
// Same rules as kstream::add (see add.hpp); floating-point value types only. Label "kstream::fma[<strategy>]".
#include <kstream/impl/elementwise_ops.hpp>
#include <kstream/impl/launch.hpp>
#include <kstream/tiling.hpp>

namespace kstream {
namespace impl {
/// fma's checks and kernel, handed to `sink` (run now, or recorded: kstream/record.hpp).
template <class Sink, class ExecSpace, class AView, class BView, class CView, class OutView>
void fma_to(const Sink& sink, const ExecSpace& exec, const AView& a, const BView& b, const CView& c, const OutView& out,
            const TileShape& shape) {
  run_on_views(sink, "kstream::fma", exec, shape, check_fma<ExecSpace>(a, b, c, out), out, FusedMultiplyAdd{}, a,
               b, c);
}
}  // namespace impl

template <class ExecSpace, class AView, class BView, class CView, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void fma(const ExecSpace& exec, const AView& a, const BView& b, const CView& c, const OutView& out,
         const TileShape& shape = default_tile_shape<ExecSpace>()) {
  impl::fma_to(impl::LaunchNow{}, exec, a, b, c, out, shape);
}

template <class AView, class BView, class CView, class OutView>
  requires(Kokkos::is_view<AView>::value)
void fma(const AView& a, const BView& b, const CView& c, const OutView& out) {
  fma(typename OutView::execution_space(), a, b, c, out);
}

}  // namespace kstream

#pragma once
// kstream::add: out = x + y elementwise, a thin wrapper over the tiled engine (kstream/transform.hpp).
//
//   kstream::add(exec, x, y, out);           kstream::add(exec, x, y, out, kstream::TileShape{256, 4, 1});
//   kstream::add(x, y, out);                 // out's execution space
//
// Views of one rank (1 to 8) and one arithmetic type, any layouts (strided, padded and offset subviews, transposes);
// out may be x or y exactly.
// Asynchronous on exec, like Kokkos::parallel_for. Throws std::invalid_argument on extent mismatch or partial
// overlap, naming the views. Kokkos Tools see the kernel as "kstream::add[<strategy>]", the strategy the plan chose
// ("kstream::add[rows/packed]", "kstream::add[general/blocks]", ...).
#include <kstream/impl/elementwise_ops.hpp>
#include <kstream/impl/launch.hpp>
#include <kstream/tiling.hpp>

namespace kstream {
namespace impl {
/// add's checks and kernel, handed to `sink` (run now, or recorded: kstream/record.hpp).
template <class Sink, class ExecSpace, class XView, class YView, class OutView>
void add_to(const Sink& sink, const ExecSpace& exec, const XView& x, const YView& y, const OutView& out,
            const TileShape& shape) {
  run_on_views(sink, "kstream::add", exec, shape, check_add<ExecSpace>(x, y, out), out, Plus{}, x, y);
}
}  // namespace impl

template <class ExecSpace, class XView, class YView, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void add(const ExecSpace& exec, const XView& x, const YView& y, const OutView& out,
         const TileShape& shape = default_tile_shape<ExecSpace>()) {
  impl::add_to(impl::LaunchNow{}, exec, x, y, out, shape);
}

template <class XView, class YView, class OutView>
  requires(Kokkos::is_view<XView>::value)
void add(const XView& x, const YView& y, const OutView& out) {
  add(typename OutView::execution_space(), x, y, out);
}

}  // namespace kstream

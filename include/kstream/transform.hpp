#pragma once
// kstream::transform: out(i...) = op(in0(i...), in1(i...), ...) for any number of views of one rank (1 to 8) and any
// layouts, on the tiled engine.
//
//   kstream::transform(exec, out, op, inputs...);             // the backend's default tile shape
//   kstream::transform(exec, shape, out, op, inputs...);      // an explicit kstream::TileShape
//   kstream::transform(out, op, inputs...);                   // out's execution space
//
// `op` is a copyable functor with a const KOKKOS_INLINE_FUNCTION call operator (a KOKKOS_LAMBDA works).
// Like Kokkos::parallel_for the call is asynchronous on `exec`: fence before reading `out` on the host.
// Errors: std::invalid_argument for extent mismatch, partial overlap of out with an input, a stride-0 output or a
// bad tile shape; a view the execution space cannot access is a compile-time error. out == input is allowed.
#include <kstream/impl/checks.hpp>
#include <kstream/impl/launch.hpp>
#include <kstream/tiling.hpp>
#include <type_traits>

namespace kstream {
namespace impl {
/// transform's checks and kernel, handed to `sink` (run now, or recorded: kstream/record.hpp).
template <class Sink, class ExecSpace, class OutView, class Op, class... InViews>
void transform_to(const Sink& sink, const ExecSpace& exec, const TileShape& shape, const OutView& out, const Op& op,
                  const InViews&... ins) {
  static_assert(sizeof...(InViews) >= 1, "kstream::transform: give at least one input view");
  static_check_views<ExecSpace, OutView, InViews...>();
  run_on_views(sink, "kstream::transform", exec, shape,
               check_arguments("kstream::transform", nullptr, out, ins...), out, op, ins...);
}
}  // namespace impl

template <class ExecSpace, class OutView, class Op, class... InViews>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<OutView>>)
void transform(const ExecSpace& exec, const TileShape& shape, const OutView& out, const Op& op, const InViews&... ins) {
  impl::transform_to(impl::LaunchNow{}, exec, shape, out, op, ins...);
}

template <class ExecSpace, class OutView, class Op, class... InViews>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<OutView>>)
void transform(const ExecSpace& exec, const OutView& out, const Op& op, const InViews&... ins) {
  transform(exec, default_tile_shape<ExecSpace>(), out, op, ins...);
}

template <class OutView, class Op, class... InViews>
  requires(Kokkos::is_view<OutView>::value)
void transform(const OutView& out, const Op& op, const InViews&... ins) {
  transform(typename OutView::execution_space(), out, op, ins...);
}

}  // namespace kstream

#pragma once
// kstream::copy: dst(i...) = src(i...) for two views of the same extents, any rank (1 to 8) and any layouts,
// Kokkos::deep_copy's argument order (destination first), on the tiled engine (a transform of one input).
//
//   kstream::copy(exec, dst, src);   // asynchronous on exec, as kstream::transform
//   kstream::copy(dst, src);         // dst's execution space
//   kstream::Recorder: r.copy(dst, src)
//
// Values: the same type, or a conversion between floating-point types (float, double, half_t, bhalf_t): rounded as
// static_cast, 16-bit types through float (kstream/low_precision.hpp). Other pairs do not compile.
// Errors (std::invalid_argument): extents that differ (the message names the dimension), dst partly overlapping
// src, a dst with stride 0; dst == src is a copy onto itself. Same layout and a contiguous span: the flat path;
// between layouts on a device, tiles through team scratch (docs/engine.md, "Layout changes through team scratch").
#include <kstream/low_precision.hpp>
#include <kstream/transform.hpp>
#include <type_traits>

namespace kstream {
namespace impl {
/// A value as D: the identity for the same type, through float where either is a 16-bit type.
template <class D>
struct ConvertTo {
  template <class S>
  KOKKOS_FORCEINLINE_FUNCTION D operator()(S v) const {
    if constexpr (std::is_same_v<S, D>) {
      return v;
    } else if constexpr (is_low_precision_v<S> || is_low_precision_v<D>) {
      return from_float<D>(to_float(v));
    } else {
      return static_cast<D>(v);
    }
  }
};

template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_low_precision_v<T>;

/// copy's checks and kernel, handed to `sink` (run now, or recorded: kstream/record.hpp).
template <class Sink, class ExecSpace, class DstView, class SrcView>
void copy_to(const Sink& sink, const ExecSpace& exec, const DstView& dst, const SrcView& src) {
  using D = typename DstView::non_const_value_type;
  using S = typename SrcView::non_const_value_type;
  static_assert(std::is_same_v<D, S> || (is_floating_v<D> && is_floating_v<S>),
                "kstream::copy: dst and src hold the same value type, or both floating-point types");
  static_check_views<ExecSpace, DstView, SrcView>();
  static constexpr const char* names[] = {"dst", "src"};
  run_on_views(sink, "kstream::copy", exec, default_tile_shape<ExecSpace>(),
               check_arguments("kstream::copy", names, dst, src), dst, ConvertTo<D>{}, src);
}
}  // namespace impl

template <class ExecSpace, class DstView, class SrcView>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<DstView>>)
void copy(const ExecSpace& exec, const DstView& dst, const SrcView& src) {
  impl::copy_to(impl::LaunchNow{}, exec, dst, src);
}

template <class DstView, class SrcView>
  requires(Kokkos::is_view<DstView>::value)
void copy(const DstView& dst, const SrcView& src) {
  copy(typename DstView::execution_space(), dst, src);
}

}  // namespace kstream

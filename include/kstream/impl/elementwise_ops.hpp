#pragma once
// The operations and argument checks of add and fma, shared by the tiled functions and the naive baselines so
// that every variant accepts and rejects exactly the same calls.
#include <Kokkos_Core.hpp>
#include <kstream/impl/checks.hpp>
#include <kstream/low_precision.hpp>
#include <type_traits>

namespace kstream::impl {

/// x + y; 16-bit types: computed in float, rounded once (kstream/low_precision.hpp).
struct Plus {
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(T x, T y) const {
    if constexpr (is_low_precision_v<T>) {
      return from_float<T>(to_float(x) + to_float(y));
    } else {
      return x + y;
    }
  }
};

/// a * b + c with one rounding; 16-bit types: fmaf in float, then one rounding to the storage type.
struct FusedMultiplyAdd {
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(T a, T b, T c) const {
    if constexpr (is_low_precision_v<T>) {
      return from_float<T>(Kokkos::fma(to_float(a), to_float(b), to_float(c)));
    } else {
      return Kokkos::fma(a, b, c);
    }
  }
};

// Const-ness is left to static_check_views, which names it ("the output view must not be const").
template <class OutView, class... InViews>
constexpr bool same_value_types = (std::is_same_v<std::remove_const_t<typename InViews::value_type>,
                                                  std::remove_const_t<typename OutView::value_type>> &&
                                   ...);

template <class ExecSpace, class XView, class YView, class OutView>
CallOperands<2> check_add(const XView& x, const YView& y, const OutView& out) {
  static_check_views<ExecSpace, OutView, XView, YView>();
  static_assert(same_value_types<OutView, XView, YView>, "kstream::add: x, y and out must hold the same value type");
  static_assert(std::is_arithmetic_v<typename OutView::value_type> || is_low_precision_v<typename OutView::value_type>,
                "kstream::add: the value type must be arithmetic (or half_t / bhalf_t)");
  static constexpr const char* names[] = {"out", "x", "y"};
  return check_arguments("kstream::add", names, out, x, y);
}

template <class ExecSpace, class AView, class BView, class CView, class OutView>
CallOperands<3> check_fma(const AView& a, const BView& b, const CView& c, const OutView& out) {
  static_check_views<ExecSpace, OutView, AView, BView, CView>();
  static_assert(same_value_types<OutView, AView, BView, CView>,
                "kstream::fma: a, b, c and out must hold the same value type");
  static_assert(
      std::is_floating_point_v<typename OutView::value_type> || is_low_precision_v<typename OutView::value_type>,
      "kstream::fma: the value type must be floating point");
  static constexpr const char* names[] = {"out", "a", "b", "c"};
  return check_arguments("kstream::fma", names, out, a, b, c);
}

}  // namespace kstream::impl

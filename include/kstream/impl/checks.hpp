#pragma once
// Argument checks shared by every kstream entry point (tiled and naive alike), so that all variants reject the
// same bad input with the same message: the compile-time ones, and the views as operand descriptions and labels
// for the runtime ones, which are compiled once (kstream/impl/overlap.hpp, src/checks.cpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/operand.hpp>
#include <kstream/impl/overlap.hpp>
#include <string>
#include <type_traits>

namespace kstream::impl {

template <class ExecSpace, class View>
constexpr void static_check_view() {
  static_assert(Kokkos::is_view<View>::value, "kstream: arguments must be Kokkos::View");
  static_assert(View::rank() >= 1 && View::rank() <= max_rank, "kstream: views must be rank 1 to 8");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                "kstream: a view's memory space is not accessible from the execution space");
}

template <class View, class... Views>
constexpr void static_check_same_rank() {
  static_assert(((Views::rank() == View::rank()) && ...), "kstream: the views must all have the same rank");
}

template <class ExecSpace, class OutView, class... InViews>
constexpr void static_check_views() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value, "kstream: first argument must be an execution space");
  static_check_view<ExecSpace, OutView>();
  (static_check_view<ExecSpace, InViews>(), ...);
  static_check_same_rank<OutView, InViews...>();
  static_assert(!std::is_const_v<typename OutView::value_type>, "kstream: the output view must not be const");
}

/// How the runtime checks' messages read a view's label.
template <class View>
ViewLabel view_label(const View& v) {
  return {&v, [](const void* p) { return static_cast<const View*>(p)->label(); }};
}

/// A call's operand descriptions: made once by the checks, then planned.
template <std::size_t Inputs>
struct CallOperands {
  Operand out;
  Operand ins[Inputs];
};

/// Runtime checks of an elementwise call (check_elementwise). Returns the operands' descriptions.
template <class OutView, class... InViews>
CallOperands<sizeof...(InViews)> check_arguments(const char* op, Names names, const OutView& out,
                                                 const InViews&... ins) {
  const CallOperands<sizeof...(InViews)> operands{operand_of(out), {operand_of(ins)...}};
  const ViewLabel labels[] = {view_label(out), view_label(ins)...};
  check_elementwise(op, names, labels, operands.out, operands.ins, sizeof...(InViews));
  return operands;
}

}  // namespace kstream::impl

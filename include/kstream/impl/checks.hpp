#pragma once
// Argument checks shared by every kstream entry point (tiled and naive alike), so that all variants reject the
// same bad input with the same message.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/operand.hpp>
#include <kstream/impl/overlap.hpp>
#include <stdexcept>
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

/// The parameter names of a call, output first ({"out", "x", "y"}); nullptr: "out", "input 0", "input 1", ...
using Names = const char* const*;

template <class View>
std::string describe(Names names, std::size_t position, const View& v) {
  const std::string name = names ? names[position] : position == 0 ? "out" : "input " + std::to_string(position - 1);
  const std::string label = v.label();
  return "'" + name + "'" + (label.empty() ? std::string() : " (label \"" + label + "\")");
}

[[noreturn]] inline void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

/// Fails unless `view` (parameter `position`) has `reference`'s extents (parameter `reference_position`).
template <class View, class Reference>
void check_extent(const char* op, Names names, std::size_t position, const View& view, std::size_t reference_position,
                  const Reference& reference) {
  for (int r = 0; r < int(View::rank()); ++r) {
    if (view.extent(r) == reference.extent(r)) continue;
    fail(op, std::string("extent mismatch") + (View::rank() > 1 ? " in dimension " + std::to_string(r) : "") + ": " +
                 describe(names, position, view) + " has extent " + std::to_string(view.extent(r)) + " but " +
                 describe(names, reference_position, reference) + " has extent " + std::to_string(reference.extent(r)));
  }
}

/// A call's operand descriptions: made once by the checks, then planned.
template <std::size_t Inputs>
struct CallOperands {
  Operand out;
  Operand ins[Inputs];
};

/// Runtime checks of an elementwise call: the output's elements distinct, then each input's extents and overlap.
/// Returns the operands' descriptions.
template <class OutView, class... InViews>
CallOperands<sizeof...(InViews)> check_arguments(const char* op, Names names, const OutView& out,
                                                 const InViews&... ins) {
  const CallOperands<sizeof...(InViews)> operands{operand_of(out), {operand_of(ins)...}};
  const Operand& target = operands.out;
  for (int r = 0; r < target.rank; ++r)
    if (target.extents[r] > 1 && target.strides[r] == 0 && target.size() > 1)
      fail(op, "output " + describe(names, 0, out) + " has stride 0" +
                   (target.rank > 1 ? " in dimension " + std::to_string(r) : "") +
                   ": every element would be written by several threads");
  if (!distinct_elements(target))
    fail(op, "output " + describe(names, 0, out) +
                 " maps several indices to one element (its strides do not nest): they would be written by several "
                 "threads");
  std::size_t position = 0;
  auto check_input = [&](const auto& in) {
    const Operand& source = operands.ins[position++];
    check_extent(op, names, position, in, 0, out);
    if (!ranges_intersect(target, source)) return;
    switch (overlap_of(target, source)) {
      case Overlap::none:
      case Overlap::exact:
        return;
      case Overlap::partial:
        fail(op, "output " + describe(names, 0, out) + " partially overlaps input " + describe(names, position, in) +
                     " (only exact aliasing, out == input, is allowed)");
      case Overlap::possible:
        fail(op, "output " + describe(names, 0, out) + " may overlap input " + describe(names, position, in) +
                     ": their memory ranges intersect and kstream cannot prove that they share no element (a "
                     "conservative check; allowed are exact aliasing, out == input, and views whose elements are "
                     "provably distinct)");
    }
  };
  (check_input(ins), ...);
  return operands;
}

}  // namespace kstream::impl

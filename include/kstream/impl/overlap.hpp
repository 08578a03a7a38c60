#pragma once
// Which views may share elements, and the runtime checks of a call's views that throw std::invalid_argument, from
// their descriptions alone: compiled once in the library (src/checks.cpp), whatever the views' types
// (kstream/impl/checks.hpp makes the descriptions).
#include <cstddef>
#include <kstream/impl/operand.hpp>
#include <string>

namespace kstream::impl {

/// How an output and an input of the same extents share memory. exact: the same elements at the same indices
/// (out == input, allowed: each element is read before the same thread writes it); none: provably no element in
/// common (disjoint ranges, or the same strides at an offset no index difference reaches, as the even and the odd
/// elements); partial: some element of one is another index's element of the other; possible: the ranges
/// intersect and kstream cannot prove either way (the check is conservative).
enum class Overlap { none, exact, partial, possible };
Overlap overlap_of(const Operand& out, const Operand& in);

/// Whether two operands' memory ranges (first byte to one past the last) intersect: where not, overlap_of is none
/// (asked inline first: most calls' views are separate allocations).
inline bool ranges_intersect(const Operand& a, const Operand& b) {
  const std::int64_t a_bytes = a.span_bytes(), b_bytes = b.span_bytes();
  return a_bytes > 0 && b_bytes > 0 && a.address < b.address + std::uintptr_t(b_bytes) &&
         b.address < a.address + std::uintptr_t(a_bytes);
}

/// Whether an output's elements are provably distinct from one another (no stride 0, strides that nest).
bool distinct_elements(const Operand& out);

/// The parameter names of a call, output first ({"out", "x", "y"}); nullptr: "out", "input 0", "input 1", ...
using Names = const char* const*;

/// A view as the checks' messages name it: its label, read only when a check fails (a call allocates no string).
struct ViewLabel {
  const void* view;
  std::string (*read)(const void*);
};

/// Fails unless each of others[0, count) has first's extents. Parameter 0 is first, parameter k + 1 others[k]
/// (names and labels in that order).
void check_extents(const char* op, Names names, const ViewLabel* labels, const Operand& first, const Operand* others,
                   std::size_t count);

/// Runtime checks of an elementwise call on out and its inputs ins[0, inputs) (names and labels: out first): the
/// output's elements distinct, then each input's extents and overlap.
void check_elementwise(const char* op, Names names, const ViewLabel* labels, const Operand& out, const Operand* ins,
                       std::size_t inputs);

}  // namespace kstream::impl

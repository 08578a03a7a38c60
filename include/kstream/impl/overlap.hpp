#pragma once
// Which views may share elements, from their descriptions alone (src/checks.cpp; kstream/impl/checks.hpp words
// the errors).
#include <kstream/impl/operand.hpp>

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

}  // namespace kstream::impl

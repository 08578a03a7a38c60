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

/// Whether an output's elements are provably distinct from one another (no stride 0, strides that nest).
bool distinct_elements(const Operand& out);

}  // namespace kstream::impl

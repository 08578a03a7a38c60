#pragma once
// What a thread holds: 16-byte packs of elements, the pair of aligned packs a shifted pack is built from, and the
// operation as a functor field that takes no bytes when it is empty.
#include <Kokkos_Core.hpp>
#include <kstream/impl/pragmas.hpp>
#include <kstream/tiling.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// W elements that move as one 16-byte access.
template <class T, int W>
struct alignas(sizeof(T) * W) Pack {
  T lane[W];
};

/// The two aligned 16-byte packs that hold one shifted pack's elements.
template <class T, int W>
struct PackPair {
  Pack<T, W> first, second;
};

/// Lanes S..W-1 of a, then lanes 0..S-1 of b: the W elements that start S elements into a (S known at compile
/// time, so every lane stays in a register).
template <int S, class T, int W>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, W> funnel(const Pack<T, W>& a, const Pack<T, W>& b) {
  Pack<T, W> r;
  for (int j = 0; j < W; ++j) r.lane[j] = j + S < W ? a.lane[j + S] : b.lane[j + S - W];
  return r;
}

/// funnel<shift>(a, b) for a shift known only at run time (the same in every thread: no divergence).
template <class T, int W, int... S>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, W> shifted_pack(const Pack<T, W>& a, const Pack<T, W>& b, int shift,
                                                    std::integer_sequence<int, S...>) {
  Pack<T, W> r = a;
  static_cast<void>(((shift == S ? (r = impl::funnel<S>(a, b), true) : false) || ...));
  return r;
}

/// The operation: an empty one (Plus, FusedMultiplyAdd, a lambda that captures nothing) as a private base, where
/// it takes no bytes of the functor; any other as a member. (Private: the operation's member names stay hidden
/// from Kokkos' inspection of the functor.)
template <class Op, bool Empty = std::is_empty_v<Op> && !std::is_final_v<Op>>
struct OpField : private Op {
  explicit OpField(const Op& op) : Op(op) {}
  KOKKOS_FORCEINLINE_FUNCTION const Op& operation() const { return *this; }
};
template <class Op>
struct OpField<Op, false> {
  explicit OpField(const Op& op) : op_(op) {}
  KOKKOS_FORCEINLINE_FUNCTION const Op& operation() const { return op_; }
  Op op_;
};

}  // namespace kstream::impl

#pragma once
// The host loop of the row kernel (kstream/impl/row_kernel.hpp) where every operand's slice is adjacent in memory:
// a thread writes slice s while it reads slice s + 1, a piece of each in turn, so that memory reads and writes at
// once, as in a copy (docs/engine.md, "Row operations").
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/reduce_step.hpp>  // from_accumulator
#include <kstream/impl/row_values.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/store_policy.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// out = op(x, row, p...) for one element, the row's constants and the op held by value (a reference could alias
/// the stores, and would be read again an element).
template <class O, class T, class Op, class Row, class... P>
struct RowElement {
  Op op;
  Row row;
  KOKKOS_FORCEINLINE_FUNCTION O operator()(T v, P... p) const {
    return from_accumulator<O>(op(compute_value(v), row, compute_value(p)...));
  }
};

/// slice[from, to) into s: the statistic's own loop over adjacent elements where it has one (it vectorizes).
template <class Stat, class State, class T>
void fold_run(const Stat& stat, State& s, const T* slice, std::int64_t from, std::int64_t to) {
  if constexpr (has_add_run_v<Stat, State, T>) {
    stat.add_run(s, slice + from, to - from);
  } else {
    for (std::int64_t j = from; j < to; ++j) stat.add(s, compute_value(slice[j]));
  }
}

/// Parameter I's element type of a row kernel.
template <class Kernel, std::size_t I>
using parameter_t =
    std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const Kernel&>().template parameter<I>())>>;

/// Slices [from, to) of kernel k (a RowKernel whose operands' slices are adjacent in memory), parameters I...: each
/// slice written while the next is folded, 1024 elements of each in turn. The pieces start at multiples of `piece`
/// in every slice: the same sums whatever the block and the alignment.
template <class Kernel, std::size_t... I>
void adjacent_slices(const Kernel& k, std::int64_t from, std::int64_t to, std::index_sequence<I...>) {
  using T = std::remove_cv_t<std::remove_pointer_t<decltype(k.x)>>;
  using O = std::remove_pointer_t<decltype(k.out)>;
  using Seq = std::index_sequence<0, 1 + I...>;
  constexpr std::int64_t piece = 1024;
  constexpr int K = Kernel::K;
  std::int64_t base[K], next[K] = {};
  k.first(from, base);
  typename Kernel::State state = k.start(base);
  for (std::int64_t j = 0; j < k.length; j += piece)
    fold_run(k.stat, state, k.x + base[0], j, Kokkos::min(j + piece, k.length));
  for (std::int64_t s = from; s < to; ++s) {
    const bool more = s + 1 < to;
    if (more) k.first(s + 1, next);
    typename Kernel::State following = more ? k.start(next) : state;
    const RowElement<O, T, decltype(k.op), decltype(row_constants(k.op, state)), parameter_t<Kernel, I>...> element{
        k.op, row_constants(k.op, state)};
    const Slots<Seq, const T*, const parameter_t<Kernel, I>*...> in{{k.x + base[0]},
                                                                    {k.template parameter<I>() + base[2 + I]}...};
    for (std::int64_t j = 0; j < k.length; j += piece) {
      const std::int64_t end = Kokkos::min(j + piece, k.length);
      host_elements(element, k.out + base[1], in, j, end, k.streaming_stores, Seq{},
                    more ? k.x + next[0] : nullptr);
      if (more) fold_run(k.stat, following, k.x + next[0], j, end);
    }
    state = following;
    for (int c = 0; c < K; ++c) base[c] = next[c];
  }
  if (k.streaming_stores) streaming_store_fence();  // visible at the join
}

}  // namespace kstream::impl

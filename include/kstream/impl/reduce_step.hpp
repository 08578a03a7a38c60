#pragma once
// What a reduction accumulates and how one element (or pack) of it is computed: the accumulator types and their
// conversions, kstream's reducers as Kokkos reducers, and the element step of a plain or fused reduction
// (kstream/impl/reduce_kernel.hpp runs it over device and host tiles).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/low_precision.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// What a reduction over elements of type T accumulates in: double for float (and double), float for 16-bit types.
template <class T>
using accumulator_of =
    std::conditional_t<std::is_same_v<T, float>, double, std::conditional_t<is_low_precision_v<T>, float, T>>;

/// A value as the accumulator type (16-bit types through float).
template <class Acc, class V>
KOKKOS_FORCEINLINE_FUNCTION Acc to_accumulator(V v) {
  if constexpr (is_low_precision_v<V>) {
    return Acc(to_float(v));
  } else {
    return Acc(v);
  }
}

/// The accumulated value as the result's type (16-bit types through float).
template <class V, class Acc>
KOKKOS_INLINE_FUNCTION V from_accumulator(Acc a) {
  if constexpr (is_low_precision_v<V>) {
    return from_float<V>(float(a));
  } else {
    return V(a);
  }
}

/// The value type of a reduction's result: a rank-0 view's, or Acc for a value on the host (Acc*).
template <class Result, class Acc>
struct result_value {
  using type = typename Result::value_type;
};
template <class Acc>
struct result_value<Acc*, Acc> {
  using type = Acc;
};

/// The accumulated value at `from` written to the rank-0 view `to` as its type.
template <class Acc, class Result>
struct ConvertResult {
  const Acc* from;
  Result to;
  KOKKOS_INLINE_FUNCTION void operator()(int) const { to() = from_accumulator<typename Result::value_type>(*from); }
};

/// A kstream reducer (Sum, Max, Min or a user's) as a Kokkos reducer over Acc, into a scalar or a rank-0 view.
template <class Reducer, class Acc, class Space>
struct KokkosReducer {
  using reducer = KokkosReducer;
  using value_type = Acc;
  using result_view_type = Kokkos::View<Acc, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Reducer r;
  result_view_type value;
  bool scalar;
  KOKKOS_INLINE_FUNCTION KokkosReducer(const Reducer& rd, Acc& v) : r(rd), value(&v), scalar(true) {}
  KOKKOS_INLINE_FUNCTION KokkosReducer(const Reducer& rd, const result_view_type& v) : r(rd), value(v), scalar(false) {}
  KOKKOS_INLINE_FUNCTION void join(Acc& dst, const Acc& src) const { dst = r(dst, src); }
  KOKKOS_INLINE_FUNCTION void init(Acc& v) const { v = r.template identity<Acc>(); }
  KOKKOS_INLINE_FUNCTION Acc& reference() const { return *value.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return scalar; }
};

/// No fused output.
struct NoOutput {};

/// An operand along the rows of a reduction: its first element (of the row) and its stride along the row.
template <class T>
struct Strided {
  T* data;
  std::int64_t stride;
};

/// An element's index as an input of an index-carrying reduction (ArgMax, ArgMin): the step loads it from a
/// cursor over the logical index, as it loads an element from memory.
struct Index {
  std::int64_t value;
};
struct IndexCursor {
  std::int64_t at;
  KOKKOS_FORCEINLINE_FUNCTION Index operator[](std::int64_t i) const { return {at + i}; }
  KOKKOS_FORCEINLINE_FUNCTION IndexCursor& operator+=(std::int64_t d) {
    at += d;
    return *this;
  }
};
template <>
struct Strided<const Index> {
  IndexCursor data;
  std::int64_t stride;
};

/// What an index-carrying reduction accumulates: a value and its element's index (-1: the identity, which every
/// element beats). As an integer, the index.
template <class V>
struct ValueIndex {
  using value_type = V;
  V value;
  std::int64_t index;
  template <class I>
    requires std::is_integral_v<I>
  KOKKOS_INLINE_FUNCTION explicit operator I() const {
    return I(index);
  }
};

/// op(views(i)...) with the element's index, for an index-carrying reducer.
template <class Op, class Acc>
struct IndexedOp {
  Op op;
  template <class... X>
  KOKKOS_INLINE_FUNCTION Acc operator()(Index i, X... x) const {
    return {to_accumulator<typename Acc::value_type>(op(x...)), i.value};
  }
};

/// The element step of a reduction: v = op(ins(i)...), written to out(i) when there is an output, and the value
/// reduced is reduce_op(v, ins(i)...) with an output, v itself without. i counts along a row.
template <class Op, class ReduceOp, class Out, class... Ts>
struct ReduceStep : OpField<Op> {
  static constexpr bool writes = !std::is_same_v<Out, NoOutput>;
  static constexpr int operands = int(sizeof...(Ts)) + (writes ? 1 : 0);  ///< inputs, then the output
  using Seq = std::index_sequence_for<Ts...>;
  static constexpr int element_bytes = int(std::min({sizeof(Ts)...}));  ///< the narrowest input's
  ReduceOp reduce_op;
  Out out;  // Strided<O> or NoOutput
  Slots<Seq, Strided<const Ts>...> in;
  using Elements = Slots<Seq, Ts...>;  ///< one element of every input
  template <int W>
  using Packs = Slots<Seq, Pack<Ts, W>...>;  ///< one pack of every input

  ReduceStep(const Op& o, const ReduceOp& r, const Out& w, const Strided<const Ts>&... ins)
      : OpField<Op>(o), reduce_op(r), out(w), in{{ins}...} {}

  /// The same step from offset[k] elements past each operand's first (inputs, then the output): a row's start.
  KOKKOS_FORCEINLINE_FUNCTION ReduceStep from(const std::int64_t (&offset)[operands]) const {
    return from(offset, Seq{});
  }
  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION ReduceStep from(const std::int64_t (&offset)[operands],
                                              std::index_sequence<Is...>) const {
    ReduceStep moved(*this);
    ((get<Is>(moved.in).data += offset[Is]), ...);
    if constexpr (writes) moved.out.data += offset[sizeof...(Ts)];
    return moved;
  }

  /// Offsets of element i of a row starting at base[k] in every operand.
  KOKKOS_FORCEINLINE_FUNCTION void along(const std::int64_t (&base)[operands], std::int64_t i,
                                         std::int64_t (&offset)[operands]) const {
    along(base, i, offset, Seq{});
  }
  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void along(const std::int64_t (&base)[operands], std::int64_t i,
                                         std::int64_t (&offset)[operands], std::index_sequence<Is...>) const {
    ((offset[Is] = base[Is] + i * get<Is>(in).stride), ...);
    if constexpr (writes) offset[sizeof...(Ts)] = base[sizeof...(Ts)] + i * out.stride;
  }

  /// Element i of every input.
  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Elements load(std::int64_t i, std::index_sequence<Is...>) const {
    return {{get<Is>(in).data[i * get<Is>(in).stride]}...};
  }

  /// Element i of every input; `Unit`: every input's stride is 1, known to the compiler (host loops vectorize).
  template <bool Unit, std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Elements load_at(std::int64_t i, std::index_sequence<Is...> seq) const {
    if constexpr (Unit) {
      return {{get<Is>(in).data[i]}...};
    } else {
      return load(i, seq);
    }
  }
  /// Whether every input's stride is 1.
  template <std::size_t... Is>
  bool unit_inputs(std::index_sequence<Is...>) const {
    return ((get<Is>(in).stride == 1) && ...);
  }

  /// W consecutive elements of every input as 16-byte packs, pack p (contiguous, pack-aligned operands).
  template <int W, std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Packs<W> load_pack(std::int64_t p, std::index_sequence<Is...>) const {
    return {{reinterpret_cast<const Pack<Ts, W>*>(get<Is>(in).data)[p]}...};
  }

  /// The value of element i (its inputs loaded), in Acc; writes out(i) for a fused call.
  template <class Acc, std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Acc element(std::int64_t i, const Elements& loaded, std::index_sequence<Is...>) const {
    const auto v = this->operation()(get<Is>(loaded)...);
    if constexpr (writes) {
      out.data[i * out.stride] = v;
      return to_accumulator<Acc>(reduce_op(v, get<Is>(loaded)...));
    } else {
      return to_accumulator<Acc>(v);
    }
  }

  /// acc combined with the values of pack p (its inputs loaded); writes pack p of the output for a fused call.
  template <class Acc, int W, class Reducer, std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Acc pack(std::int64_t p, const Packs<W>& loaded, const Reducer& r, Acc acc,
                                       std::index_sequence<Is...>) const {
    if constexpr (writes) {
      Pack<std::remove_const_t<std::remove_pointer_t<decltype(out.data)>>, W> stored;
      for (int lane = 0; lane < W; ++lane) {
        const auto v = this->operation()(get<Is>(loaded).lane[lane]...);
        stored.lane[lane] = v;
        acc = r(acc, to_accumulator<Acc>(reduce_op(v, get<Is>(loaded).lane[lane]...)));
      }
      reinterpret_cast<decltype(stored)*>(out.data)[p] = stored;
    } else {
      for (int lane = 0; lane < W; ++lane)
        acc = r(acc, to_accumulator<Acc>(this->operation()(get<Is>(loaded).lane[lane]...)));
    }
    return acc;
  }
};

}  // namespace kstream::impl

#pragma once
// A row kernel's slices (kstream/impl/row_kernel.hpp): the operands, where each slice's elements lie in them (the
// kept dimensions' coordinates, the strides along the reduced ones), and out's element from x's.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <kstream/impl/reduce_step.hpp>  // from_accumulator
#include <kstream/impl/row_values.hpp>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// A Partial row kernel's elements of a slice kept in team scratch (RowPlan::held); the other kernels have no such
/// field (an empty base), so their code is the same as without Partial kernels.
template <bool Partial>
struct HeldElements {
  explicit HeldElements(std::int64_t) {}
};
template <>
struct HeldElements<true> {
  std::int64_t held;
  explicit HeldElements(std::int64_t h) : held(h) {}
};

/// The device kernels apart from the one for every other plan, so that it keeps its registers: a slice adjacent in
/// x longer than team scratch keeping its first `held` elements there (RowPlan::held), a turned plan's tiles.
enum class RowPath { any, partial, turned };

/// A row kernel's slices (RowKernel, below): operands x, out, then the parameters P... (stride 0 on the kept
/// dimensions), on path `Path`; where each slice's elements lie, and out's element from x's.
template <class Team, class T, class O, class Stat, class Op, RowPath Path, class... P>
struct RowSlices : HeldElements<Path == RowPath::partial> {
  static constexpr bool Partial = Path == RowPath::partial, Turned = Path == RowPath::turned;
  static constexpr int K = 2 + int(sizeof...(P)), InFlight = row_in_flight, W = elements_per_pack(int(sizeof(T)));
  using C = compute_t<T>;
  using V = Pack<T, W>;
  using State = decltype(std::declval<Stat>().template identity<T>());

  Stat stat;
  Op op;
  const T* x;
  O* out;
  const void* parameters[sizeof...(P) + 1] = {};
  Coordinates<K, max_rank> coordinates;  ///< the kept dimensions, and the reduced ones where there are several
  std::int64_t along[K] = {};            ///< the strides along the one reduced dimension (reduced == 1)
  int reduced = 1;
  std::int64_t length = 0, slices = 0;
  std::int64_t block = 1;  ///< host: adjacent slices a thread takes
  int lanes = 1;           ///< device: threads per slice
  bool outer = false, on_chip = false, copied = false, streaming_stores = false;
  bool packed = false;  ///< device: a slice's elements adjacent in x, read in 16-byte packs

  /// The kernel of plan p over `operands` (x, out, the parameters) at x_, out_ and parameters_.
  RowSlices(const Stat& stat_, const Op& op_, const RowPlan& p, const Operand* const (&operands)[K], const T* x_,
            O* out_, const P*... parameters_)
      : HeldElements<Partial>(p.held), stat(stat_), op(op_), x(x_), out(out_), parameters{parameters_...},
        reduced(p.geometry.reduced), length(p.length), slices(p.slices), block(p.block), lanes(p.lanes),
        outer(p.outer), on_chip(p.on_chip), copied(p.copied), streaming_stores(p.streaming_stores) {
    Geometry table = p.geometry;  // one reduced dimension may be 2^31 long or more: offsets along it are 64-bit
    if (reduced == 1) table.extents[0] = 1;
    coordinates = Coordinates<K, max_rank>(table, operands, 0);
    for (int k = 0; k < K && reduced == 1; ++k) along[k] = p.geometry.stride(*operands[k], 0);
    packed = W > 1 && !outer && reduced == 1 && along[0] == 1;
  }

  template <std::size_t I>
  KOKKOS_INLINE_FUNCTION auto parameter() const {
    return static_cast<const std::tuple_element_t<I, std::tuple<P...>>*>(parameters[I]);
  }
  /// Of a slice's `packs` whole packs, those kept in team scratch: all where it is on chip, else (Partial) the first.
  KOKKOS_INLINE_FUNCTION std::int64_t kept(std::int64_t packs) const {
    if constexpr (Partial) {
      return Kokkos::min(this->held / W, packs);
    } else {
      return packs;
    }
  }
  /// Slice s's first element in every operand.
  KOKKOS_INLINE_FUNCTION void first(std::int64_t s, std::int64_t (&base)[K]) const {
    coordinates.offsets(std::uint32_t(s), reduced, coordinates.dims, base);
  }
  /// Element j of the slice in operand k.
  KOKKOS_INLINE_FUNCTION std::int64_t offset(const std::int64_t (&base)[K], std::int64_t j, int k) const {
    if (reduced <= 1) return base[k] + j * along[k];
    std::int64_t at[K];
    coordinates.offsets(std::uint32_t(j), 0, reduced, at);
    return base[k] + at[k];
  }

  /// The state a slice starts from: stat.start(its first element) where the statistic has it.
  KOKKOS_INLINE_FUNCTION State start(const std::int64_t (&base)[K]) const {
    if constexpr (has_start_v<Stat, T>) {
      return stat.template start<T>(compute_value(x[base[0]]));
    } else {
      return stat.template identity<T>();
    }
  }

  /// Out's element j of a slice from x's, v: op(x, row constants, the parameters' element j).
  template <class Row>
  KOKKOS_INLINE_FUNCTION O value(const std::int64_t (&base)[K], std::int64_t j, T v, const Row& row) const {
    return value(base, j, v, row, std::index_sequence_for<P...>{});
  }
  template <class Row, std::size_t... I>
  KOKKOS_INLINE_FUNCTION O value(const std::int64_t (&base)[K], [[maybe_unused]] std::int64_t j, T v, const Row& row,
                                 std::index_sequence<I...>) const {
    return from_accumulator<O>(op(compute_value(v), row, compute_value(parameter<I>()[offset(base, j, 2 + I)])...));
  }

  /// Pass 2: out = op(x, row constants, parameters) over elements first, first + by, ... (x from `cache` where
  /// given).
  template <class Row>
  KOKKOS_INLINE_FUNCTION void write(const std::int64_t (&base)[K], std::int64_t first, std::int64_t by,
                                    const Row& row, const T* cache) const {
    for (std::int64_t j = first; j < length; j += by)
      out[offset(base, j, 1)] = value(base, j, cache != nullptr ? cache[j] : x[offset(base, j, 0)], row);
  }

  /// Elements before a slice's first whole 16-byte pack at `at` (at most the slice).
  template <class E>
  KOKKOS_INLINE_FUNCTION std::int64_t head_of(const E* at) const {
    const std::int64_t off = std::int64_t(reinterpret_cast<std::uintptr_t>(at) % (W * sizeof(E)) / sizeof(E));
    return Kokkos::min(off == 0 ? 0 : W - off, length);
  }
};

}  // namespace kstream::impl

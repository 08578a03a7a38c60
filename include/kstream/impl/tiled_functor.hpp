#pragma once
// The tiled kernels of the packed, shifted, contiguous and strided strategies (kstream/impl/plan.hpp): TiledFunctor
// on a device (its tile loop; each strategy's loads and stores in TileAccess), HostTileFunctor on a host.
//
// The body of body_items items (packs, or single elements) is cut into tiles, one per team on a device and one
// per thread on a host (kstream/tiling.hpp has the arithmetic and a worked example). Every tile but the last runs
// without bounds checks; the last one checks each item against body_items (the tail guard, the mask of a Triton
// kernel) and also does the head and tail scalars of the pack strategies. With Rows (device, several dimensions)
// every row is such a body: a team finds its row and the row's tile from its league rank, and the row's start in
// each operand from the row's coordinates. No strategy touches memory outside any view's elements.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/store_policy.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// Whether a strategy moves whole packs of the output (and has head and tail scalars).
KOKKOS_INLINE_FUNCTION constexpr bool moves_packs(Strategy s) {
  return s == Strategy::packed || s == Strategy::shifted;
}

/// The strides of a strided call (other strategies carry none).
template <bool Strided, std::size_t Inputs>
struct StrideFields {
  std::int64_t out_stride = 1;
  std::int64_t in_strides[Inputs] = {};
};
template <std::size_t Inputs>
struct StrideFields<false, Inputs> {};

/// Each input's offset, in elements, from the 16-byte boundary before its element at the output's first pack
/// boundary (shifted only).
template <bool Shifted, std::size_t Inputs>
struct ShiftFields {
  std::int8_t shift[Inputs] = {};
};
template <std::size_t Inputs>
struct ShiftFields<false, Inputs> {};

/// Rows: the tiles of one row, and where each row starts (device calls of several dimensions only).
template <bool Rows, std::size_t Operands>
struct RowFields {
  FastDivider segments;  ///< tiles per row
  RowStarts<int(Operands)> starts;
};
template <std::size_t Operands>
struct RowFields<false, Operands> {};

/// The first element of every operand a tile works from: the views' own, or a row's.
template <class Seq, class OutT, class... InTs>
struct Bases {
  OutT* out;
  Slots<Seq, const InTs*...> in;
};

/// Head and tail scalars of the pack strategies (every stride 1; the others have none) of tile functor f (its
/// head, tail and body_items), from the bases p: edge elements rank, rank + step, ... A rolled loop on a GPU:
/// unrolled, every team's prologue computed its trip count for the last team's few scalars.
template <int Width, class F, class Seq, class OutT, class... InTs, std::size_t... Is>
KOKKOS_INLINE_FUNCTION void run_edges(const F& f, const Bases<Seq, OutT, InTs...>& p, int rank, int step,
                                      std::index_sequence<Is...>) {
  const int edge_elements = f.head + f.tail;
  KSTREAM_DEVICE_NO_UNROLL
  for (int e = rank; e < edge_elements; e += step) {
    const std::int64_t i = e < f.head ? std::int64_t(e) : f.head + f.body_items * Width + (e - f.head);
    p.out[i] = f.operation()(get<Is>(p.in)[i]...);
  }
}

/// How a device tile reaches memory, by strategy: an item of every input loaded (packed: a pack at `head` +
/// item * Width; shifted: the aligned packs around it, shifted; contiguous and strided: one element) and the
/// result stored. Derived (the tile functor) holds head.
template <class Derived, Strategy Mode, int Width, class OutT, class... InTs>
struct TileAccess : StrideFields<Mode == Strategy::strided, sizeof...(InTs)>,
                    ShiftFields<Mode == Strategy::shifted, sizeof...(InTs)> {
  using Seq = std::index_sequence_for<InTs...>;
  using InputItems = Slots<Seq, Pack<InTs, Width>...>;
  using RawItems = Slots<Seq, PackPair<InTs, Width>...>;
  using Pointers = Bases<Seq, OutT, InTs...>;

 protected:
  KOKKOS_FORCEINLINE_FUNCTION const Derived& tile() const { return static_cast<const Derived&>(*this); }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void load_pairs(const Pointers& p, RawItems& raw, std::int64_t item,
                                              std::index_sequence<Is...>) const {
    ((get<Is>(raw) = load_pair<Is>(p, item)), ...);
  }

  // Input I's two aligned packs around item `item`'s elements (the second only where the input is shifted).
  template <std::size_t I>
  KOKKOS_FORCEINLINE_FUNCTION auto load_pair(const Pointers& p, std::int64_t item) const {
    using T = std::remove_const_t<std::remove_pointer_t<std::remove_reference_t<decltype(get<I>(p.in))>>>;
    const int shift = this->shift[I];
    const auto* aligned = reinterpret_cast<const Pack<T, Width>*>(get<I>(p.in) + tile().head + item * Width - shift);
    PackPair<T, Width> pair{aligned[0], {}};
    if (shift != 0) pair.second = aligned[1];
    return pair;
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION InputItems shift_all(const RawItems& raw, std::index_sequence<Is...>) const {
    InputItems shifted;
    ((get<Is>(shifted) = shifted_pack(get<Is>(raw).first, get<Is>(raw).second, int(this->shift[Is]),
                                      std::make_integer_sequence<int, Width>{})),
     ...);
    return shifted;
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION InputItems load_all(const Pointers& p, std::int64_t item,
                                                  std::index_sequence<Is...>) const {
    InputItems loaded;
    ((get<Is>(loaded) = load<Is>(p, item)), ...);
    return loaded;
  }

  // Input I's item `item`, by strategy.
  template <std::size_t I>
  KOKKOS_FORCEINLINE_FUNCTION auto load(const Pointers& p, std::int64_t item) const {
    const auto* const data = get<I>(p.in);
    using T = std::remove_const_t<std::remove_pointer_t<std::remove_const_t<decltype(data)>>>;
    if constexpr (Mode == Strategy::packed) {
      return *reinterpret_cast<const Pack<T, Width>*>(data + tile().head + item * Width);
    } else if constexpr (Mode == Strategy::shifted) {
      // Shifted as loaded (one or two inputs; three or more load every pair first: run_one_pass).
      const int shift = this->shift[I];
      const auto* aligned = reinterpret_cast<const Pack<T, Width>*>(data + tile().head + item * Width - shift);
      const Pack<T, Width> first = aligned[0];
      if (shift == 0) return first;
      return shifted_pack(first, aligned[1], shift, std::make_integer_sequence<int, Width>{});
    } else if constexpr (Mode == Strategy::contiguous) {
      return Pack<T, 1>{{data[item]}};
    } else {
      return Pack<T, 1>{{data[item * this->in_strides[I]]}};
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void store(const Pointers& p, std::int64_t item, const Pack<OutT, Width>& result) const {
    if constexpr (moves_packs(Mode)) {
      *reinterpret_cast<Pack<OutT, Width>*>(p.out + tile().head + item * Width) = result;
    } else if constexpr (Mode == Strategy::contiguous) {
      p.out[item] = result.lane[0];
    } else {
      p.out[item * this->out_stride] = result.lane[0];
    }
  }
};

/// A device's tiles, a team each. Items of Width elements (Width > 1 only for packed and shifted); ItemsInFlight:
/// items of every input a thread loads before it computes and stores any.
template <class ExecSpace, Strategy Mode, int Width, int ItemsInFlight, bool Rows, class Op, class OutT, class... InTs>
struct TiledFunctor : TileAccess<TiledFunctor<ExecSpace, Mode, Width, ItemsInFlight, Rows, Op, OutT, InTs...>, Mode,
                                 Width, OutT, InTs...>,
                      RowFields<Rows, 1 + sizeof...(InTs)>,
                      OpField<Op> {
  static_assert(moves_packs(Mode) || Width == 1, "only the pack strategies move several elements per item");
  static_assert(Mode != Strategy::elements && Mode != Strategy::general, "one element per index: other functors");
  static_assert(!Rows || Mode != Strategy::strided, "rows are a device strategy of unit-stride rows");
  using Access = TileAccess<TiledFunctor, Mode, Width, OutT, InTs...>;
  using typename Access::InputItems;
  using typename Access::Pointers;
  using typename Access::RawItems;
  using typename Access::Seq;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;

  // The functor is the kernel's parameter block: only what the kernel reads, add and fma in its first 64-byte line
  // (strides only when strided, rows only for rows, an empty operation takes no bytes).
  Pointers at;
  std::int64_t body_items;
  int chunks_per_thread;
  std::int16_t head;  // scalars before the body of packs
  std::int16_t tail;  // scalars after it

  TiledFunctor(OutT* out_, Slots<Seq, const InTs*...> in_, const Plan& plan, const Op& op_)
      : OpField<Op>(op_),
        at{out_, in_},
        body_items(plan.body_items),
        chunks_per_thread(plan.chunks_per_thread),
        head(std::int16_t(plan.head)),
        tail(std::int16_t(plan.tail)) {}

  KOKKOS_FORCEINLINE_FUNCTION std::int64_t tile_items(int team_size) const {
    return std::int64_t(team_size) * ItemsInFlight * chunks_per_thread;
  }

  // Devices: one team per tile (rows: per tile of a row).
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    if constexpr (Rows) {
      const auto t = std::uint32_t(team.league_rank());
      const std::uint32_t row = this->segments.quotient(t);
      std::int64_t offset[1 + sizeof...(InTs)];
      this->starts.offsets(row, offset);
      run_team(team, int(t - row * this->segments.divisor), row_bases(offset, Seq{}));
    } else {
      run_team(team, team.league_rank(), at);
    }
  }

 private:
  KOKKOS_INLINE_FUNCTION void run_team(const member_type& team, int tile, const Pointers& p) const {
    const int rank = team.team_rank();
    const int team_size = team.team_size();
    const std::int64_t tile_first = std::int64_t(tile) * tile_items(team_size);
    const std::int64_t tile_end = tile_first + tile_items(team_size);
    if constexpr (Mode == Strategy::shifted && sizeof...(InTs) >= 3) {
      // Three or more shifted inputs: every aligned pack loaded before any is shifted (docs/engine.md).
      KSTREAM_DEVICE_NO_UNROLL
      for (int chunk = 0; chunk < chunks_per_thread; ++chunk)
        run_one_pass(p, tile_first + std::int64_t(chunk) * ItemsInFlight * team_size + rank, team_size);
    } else if (tile_end <= body_items) {
      run_tile<false>(p, tile_first, rank, team_size);
    } else {
      run_tile<true>(p, tile_first, rank, team_size);
    }
    if (tile_end >= body_items) run_edges<Width>(*this, p, rank, team_size, Seq{});
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Pointers row_bases(const std::int64_t (&offset)[1 + sizeof...(InTs)],
                                                 std::index_sequence<Is...>) const {
    return {at.out + offset[0], {{get<Is>(at.in) + offset[Is + 1]}...}};
  }

  // Loads ItemsInFlight items of every input, then computes and stores them; Guarded skips items >= body_items.
  // Thread `rank` takes items first + slot * team_size: a warp's loads are adjacent (coalesced). The chunk loop
  // stays rolled on a GPU (unrolled it only lengthens the kernel; the loads of one chunk are what is in flight).
  template <bool Guarded>
  KOKKOS_INLINE_FUNCTION void run_tile(const Pointers& p, std::int64_t tile_first, int rank, int team_size) const {
    int chunk = 0;
    KSTREAM_DEVICE_NO_UNROLL
    do {  // chunks_per_thread >= 1
      const std::int64_t first = tile_first + std::int64_t(chunk) * ItemsInFlight * team_size + rank;
      InputItems loaded[ItemsInFlight]{};  // value-initialized: guarded slots stay unread, but defined
      KSTREAM_DEVICE_UNROLL
      for (int slot = 0; slot < ItemsInFlight; ++slot) {
        const std::int64_t item = first + std::int64_t(slot) * team_size;
        if (!Guarded || item < body_items) loaded[slot] = this->load_all(p, item, Seq{});
      }
      KSTREAM_DEVICE_UNROLL
      for (int slot = 0; slot < ItemsInFlight; ++slot) {
        const std::int64_t item = first + std::int64_t(slot) * team_size;
        if (!Guarded || item < body_items) this->store(p, item, compute(loaded[slot], Seq{}));
      }
    } while (++chunk < chunks_per_thread);
  }

  // One guarded pass of the shifted strategy: every aligned pack loaded before the first shift (a shift branches
  // on the input's offset, and a load after it waits for the loads before it).
  KOKKOS_INLINE_FUNCTION void run_one_pass(const Pointers& p, std::int64_t first, int team_size) const {
    RawItems raw[ItemsInFlight]{};
    KSTREAM_DEVICE_UNROLL
    for (int slot = 0; slot < ItemsInFlight; ++slot) {
      const std::int64_t item = first + std::int64_t(slot) * team_size;
      if (item < body_items) this->load_pairs(p, raw[slot], item, Seq{});
    }
    KSTREAM_DEVICE_UNROLL
    for (int slot = 0; slot < ItemsInFlight; ++slot) {
      const std::int64_t item = first + std::int64_t(slot) * team_size;
      if (item < body_items) this->store(p, item, compute(this->shift_all(raw[slot], Seq{}), Seq{}));
    }
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Pack<OutT, Width> compute(const InputItems& loaded, std::index_sequence<Is...>) const {
    Pack<OutT, Width> result;
    for (int lane = 0; lane < Width; ++lane) result.lane[lane] = this->operation()(get<Is>(loaded).lane[lane]...);
    return result;
  }
};

/// A host's tiles: tile `tile` (tile_items items of Width elements) walked front to back by one thread, a
/// plain loop the compiler vectorizes to the CPU's width; the last tile also does the head and tail scalars.
template <Strategy Mode, int Width, class Op, class OutT, class... InTs>
struct HostTileFunctor : StrideFields<Mode == Strategy::strided, sizeof...(InTs)>, OpField<Op> {
  static_assert(Mode == Strategy::packed || Mode == Strategy::contiguous || Mode == Strategy::strided,
                "the host strategies of one dimension");
  using Seq = std::index_sequence_for<InTs...>;
  Bases<Seq, OutT, InTs...> at;
  std::int64_t body_items, tile_items;
  std::int16_t head, tail;  // scalars before and after the body of packs
  bool streaming_stores;

  HostTileFunctor(OutT* out_, Slots<Seq, const InTs*...> in_, const Plan& plan, const Op& op_)
      : OpField<Op>(op_),
        at{out_, in_},
        body_items(plan.body_items),
        tile_items(plan.host_tile_items),
        head(std::int16_t(plan.head)),
        tail(std::int16_t(plan.tail)),
        streaming_stores(plan.streaming_stores) {}

  // A local copy of the functor: in host memory the output stores could alias it as far as the compiler knows.
  void operator()(std::int64_t tile) const {
    const HostTileFunctor local(*this);
    const std::int64_t first = tile * tile_items, end = first + tile_items;
    local.run(first, std::min(end, body_items), Seq{});
    if (end >= body_items) run_edges<Width>(local, local.at, 0, 1, Seq{});
    if (streaming_stores) streaming_store_fence();  // visible at the join
  }

 private:
  // Items [first, last). Streaming stores go pack by pack.
  template <std::size_t... Is>
  void run(std::int64_t first, std::int64_t last, std::index_sequence<Is...>) const {
    OutT* const target = at.out;
    if constexpr (Mode == Strategy::packed) {
      if (streaming_stores) {
        for (std::int64_t item = first; item < last; ++item) {
          const std::int64_t e = head + item * Width;
          const Slots<Seq, Pack<InTs, Width>...> in{
              {*reinterpret_cast<const Pack<InTs, Width>*>(get<Is>(at.in) + e)}...};
          Pack<OutT, Width> result;
          for (int lane = 0; lane < Width; ++lane) result.lane[lane] = this->operation()(get<Is>(in).lane[lane]...);
          streaming_store(reinterpret_cast<Pack<OutT, Width>*>(target + e), result);
        }
        return;
      }
    }
    if constexpr (Mode == Strategy::strided) {
      const std::int64_t target_stride = this->out_stride;
      KSTREAM_IVDEP
      for (std::int64_t i = first; i < last; ++i)
        target[i * target_stride] = this->operation()(get<Is>(at.in)[i * this->in_strides[Is]]...);
    } else {
      host_elements(this->operation(), target, at.in, head + first * Width, head + last * Width, streaming_stores,
                    Seq{});
    }
  }
};

/// Strided calls on a device with the default shape (Strategy::elements): one element per index of a
/// RangePolicy, from a functor of the pointers and 32-bit strides only (fma: 48 bytes). Its kernel reaches its
/// first load in a few instructions, where the tiled kernel first computes its tile bounds.
template <class Op, class OutT, class... InTs>
struct ElementsFunctor : OpField<Op> {
  using Seq = std::index_sequence_for<InTs...>;
  OutT* out;
  Slots<Seq, const InTs*...> in;
  std::int32_t out_stride;
  std::int32_t in_strides[sizeof...(InTs)];

  ElementsFunctor(OutT* out_, Slots<Seq, const InTs*...> in_, std::int32_t out_stride_,
                  const std::int32_t (&in_strides_)[sizeof...(InTs)], const Op& op_)
      : OpField<Op>(op_), out(out_), in(in_), out_stride(out_stride_) {
    for (std::size_t k = 0; k < sizeof...(InTs); ++k) in_strides[k] = in_strides_[k];
  }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { apply(i, Seq{}); }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void apply(std::int64_t i, std::index_sequence<Is...>) const {
    out[i * out_stride] = this->operation()(get<Is>(in)[i * in_strides[Is]]...);
  }
};

}  // namespace kstream::impl

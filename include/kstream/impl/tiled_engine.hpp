#pragma once
// The one tiled elementwise engine behind kstream::transform, add and fma.
//
// One TeamPolicy kernel, one tile per team, an explicit tail guard in the last tile. What differs between calls is
// only how a thread reaches its operands, the *access strategy*, chosen once per call on the host from the views:
//
//   packed      every view contiguous and at the same address mod 16 bytes: the n elements are
//                 | head (< W scalars) | body: body_items packs of W elements, 16-byte aligned | tail (< W) |
//               and each thread moves whole 16-byte packs (one LDG.128 / one SIMD load per input and pack).
//   contiguous  every view contiguous, but not equally aligned (x + 1, y + 2, out + 3): no common pack boundary
//               exists, so each thread keeps `W x packs_in_flight` single elements of every input in flight,
//               block-strided across the team (element tile_first + slot * team_size + rank): each load
//               instruction of a warp reads 32 adjacent elements (coalesced), and all loads are issued before
//               the first store. Same bytes in flight as the packed path (PyTorch's "unroll" policy).
//   shifted     (devices, elements of 1-2 bytes) every view contiguous, not equally aligned: each thread writes
//               whole 16-byte packs of the output at the output's alignment and builds each input's pack from
//               the two aligned 16-byte packs that hold its elements, shifted in registers by the input's offset
//               (a thread's second pack is the next thread's first: L1 serves it). The body stops where those
//               packs would reach outside an input; the rest are head and tail scalars, as packed. Measured on
//               the H200 at 2^28, half, x + 1, y + 2, out + 3 (bench/diagnostics/shifted_packs.cpp): add 4089
//               GB/s, fma 4365, 0.94x / 0.98x their aligned packs, where the contiguous strategy (2-byte loads
//               move 64 bytes per warp request) ran 3699 / 3832; floats run 0.90-0.97x as fast shifted as
//               contiguous, so they stay there.
//   strided     some view has a stride != 1: like contiguous, with the strides applied (on a device with half as
//               many elements in flight: each one already moves at least twice its bytes in sectors; slots_for;
//               all of them when the operands fit the device's cache: strided_slots_in_cache). With the default
//               shape on a device, strided calls other than floats within the cache run one element per index
//               of a RangePolicy instead (StridedElements: no tiles, a 48-byte functor; strided_elements).
// One exception before all of them: with the default shape on a device, contiguous calls of three or more inputs
// of 8-byte elements whose operands exceed the device's cache (fma of doubles) run one element per thread of
// 256-thread teams at any alignments (ContiguousElements; contiguous_elements).
//
// The body is cut into tiles of tile_items items (packs, or single elements), one tile per team (see
// kstream/tiling.hpp for the arithmetic). Every tile but the last runs without bounds checks; the last one checks
// each item against body_items (the tail guard, the mask of a Triton kernel). Head and tail scalars of the packed
// path are done by the last team. No strategy touches memory outside any view's elements.
//
// Device spaces launch a TeamPolicy (one team per tile). Host spaces with one-thread teams (their default) launch
// the same functor over a RangePolicy of tile indices: each tile is one thread's plain, vectorizable loop, and
// large contiguous outputs may be written with x86 non-temporal (streaming) stores (store_policy.hpp). On OpenMP's
// default instance kstream opens that region itself (opens_own_region), and a small call runs on the calling
// thread or on only as many threads as its size pays for (host_threads_for).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <kstream/impl/checks.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/store_policy.hpp>
#include <kstream/tiling.hpp>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

// Iterations of the host loops are independent (see run_host_tile).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__NVCC__)
#define KSTREAM_IVDEP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define KSTREAM_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define KSTREAM_IVDEP
#endif

// Keeps a loop rolled in device code (CUDA, HIP), or unrolls it (a loop over register arrays: rolled, the arrays
// would live in local memory); nothing on the host.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KSTREAM_DEVICE_NO_UNROLL _Pragma("unroll 1")
#define KSTREAM_DEVICE_UNROLL _Pragma("unroll")
#else
#define KSTREAM_DEVICE_NO_UNROLL
#define KSTREAM_DEVICE_UNROLL
#endif

namespace kstream::impl {

/// W elements that move as one 16-byte access.
template <class T, int W>
struct alignas(sizeof(T) * W) Pack {
  T lane[W];
};

/// Elements of OutT in one 16-byte pack, or 1 where OutT does not tile 16 bytes (no packs of the output).
template <class OutT>
inline constexpr int out_pack_width = (sizeof(OutT) < std::size_t(pack_bytes) && pack_bytes % sizeof(OutT) == 0)
                                          ? int(pack_bytes / sizeof(OutT))
                                          : 1;

/// How a thread reaches its operands (see the comment at the top of this file).
enum class Access { packed, contiguous, shifted, strided };

/// Whether a strategy moves whole packs of the output (and has head and tail scalars).
constexpr bool moves_packs(Access mode) {
  return mode == Access::packed || mode == Access::shifted;
}

/// How the n elements split into scalar head, body items (packs or single elements) and scalar tail.
struct Partition {
  std::int64_t head;
  std::int64_t body_items;
  std::int64_t tail;
};

/// The strides of a strided call (Access::strided only; other strategies carry none).
template <bool Strided, std::size_t Inputs>
struct StrideFields {
  std::int64_t out_stride = 1;
  std::int64_t in_strides[Inputs] = {};
};
template <std::size_t Inputs>
struct StrideFields<false, Inputs> {};

/// Each input's offset, in elements, from the 16-byte boundary before its element at the output's first pack
/// boundary (Access::shifted only).
template <bool Shifted, std::size_t Inputs>
struct ShiftFields {
  std::int8_t shift[Inputs] = {};
};
template <std::size_t Inputs>
struct ShiftFields<false, Inputs> {};

/// Whether a host call streams its packed stores (store_policy.hpp); a device call never does.
template <bool Host>
struct StoreFields {
  bool streaming_stores = false;
};
template <>
struct StoreFields<false> {
  static constexpr bool streaming_stores = false;
};

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

/// Lanes S..W-1 of a, then lanes 0..S-1 of b: the W elements that start S elements into a (S known at compile
/// time, so every lane stays in a register).
template <int S, class T, int W>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, W> funnel(const Pack<T, W>& a, const Pack<T, W>& b) {
  Pack<T, W> r;
  for (int j = 0; j < W; ++j) r.lane[j] = j + S < W ? a.lane[j + S] : b.lane[j + S - W];
  return r;
}

/// The two aligned 16-byte packs that hold one shifted pack's elements (Access::shifted).
template <class T, int W>
struct PackPair {
  Pack<T, W> first, second;
};

/// funnel<shift>(a, b) for a shift known only at run time (the same in every thread: no divergence).
template <class T, int W, int... S>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, W> shifted_pack(const Pack<T, W>& a, const Pack<T, W>& b, int shift,
                                                    std::integer_sequence<int, S...>) {
  Pack<T, W> r = a;
  static_cast<void>(((shift == S ? (r = impl::funnel<S>(a, b), true) : false) || ...));
  return r;
}

/// Items: Width elements each (Width > 1 only for Access::packed and Access::shifted). ItemsInFlight: items of
/// every input each thread loads before it computes and stores any.
template <class ExecSpace, Access Mode, int Width, int ItemsInFlight, class Op, class OutT, class... InTs>
struct TiledFunctor : StrideFields<Mode == Access::strided, sizeof...(InTs)>,
                      ShiftFields<Mode == Access::shifted, sizeof...(InTs)>,
                      StoreFields<!is_device_execution_space_v<ExecSpace>>,
                      OpField<Op> {
  static_assert(moves_packs(Mode) || Width == 1,
                "only the packed and shifted strategies move several elements per item");
  static_assert(Mode != Access::shifted || is_device_execution_space_v<ExecSpace>, "shifted packs run on devices");
  static_assert(Width <= INT16_MAX, "head and tail are 16-bit");
  using Seq = std::index_sequence_for<InTs...>;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using InputPointers = Slots<Seq, const InTs*...>;
  using InputItems = Slots<Seq, Pack<InTs, Width>...>;
  using RawItems = Slots<Seq, PackPair<InTs, Width>...>;  // Access::shifted

  // On a GPU the functor is the kernel's parameter block, and the first read of each of its 64-byte lines costs
  // a constant-cache miss when the kernel starts; a short call (a node of a recorded chain) is little more than
  // that start. So the functor holds only what the packed and contiguous strategies read: for add and fma at most
  // 48 bytes, the parameters' first line (the strides exist only in the strided strategy, the store policy only
  // on hosts, an empty operation takes no bytes), and what a tile needs is computed from it (its length from the
  // team size, "last tile" from body_items).
  // Measured on the H200 (bench/results/README.md, chain_nodes): a recorded chain of add/fma nodes at n = 4096
  // took 1.43 us per node with the earlier 88-byte functor (its kernel read four parameter lines), 1.30 with this
  // one (two lines, as a minimal TeamPolicy kernel's: 1.21 us).
  OutT* out;
  InputPointers in;
  std::int64_t body_items;
  int chunks_per_thread;
  std::int16_t head;  // scalars before the body of packs (packed: fewer than Width; shifted: 2 Width)
  std::int16_t tail;  // scalars after it

  TiledFunctor(OutT* out_, InputPointers in_, const Partition& part, int chunks, const Op& op_)
      : OpField<Op>(op_),
        out(out_),
        in(in_),
        body_items(part.body_items),
        chunks_per_thread(chunks),
        head(std::int16_t(part.head)),
        tail(std::int16_t(part.tail)) {}

  /// Items in one tile: team_size x ItemsInFlight x chunks_per_thread.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t tile_items(int team_size) const {
    return std::int64_t(team_size) * ItemsInFlight * chunks_per_thread;
  }

  // Device spaces (and host shapes with team_size > 1): one team per tile. Only the last tile can be partial
  // (guarded), and it does the head and tail scalars too.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int rank = team.team_rank();
    const int team_size = team.team_size();
    if constexpr (Mode == Access::shifted && sizeof...(InTs) >= 3) {
      // Shifted packs of three or more inputs: every aligned pack loaded before any is shifted (run_one_pass).
      // Measured on the H200 (bench/diagnostics/shifted_packs.cpp, half fma at a + 1, b + 2, c + 3, out + 1,
      // 2^28): 4367 GB/s, 0.99x the aligned packs, against 3652 with each input shifted as it is loaded. With
      // two inputs the other way round: half add ran 4126 GB/s shifting as it loads (32 registers, 8 teams of
      // 256 per multiprocessor) and 3314 loading first (34 registers, 6 teams), so add takes the tiles below.
      KSTREAM_DEVICE_NO_UNROLL
      for (int chunk = 0; chunk < chunks_per_thread; ++chunk)
        run_one_pass((std::int64_t(team.league_rank()) * chunks_per_thread + chunk) * ItemsInFlight * team_size + rank,
                     team_size);
      if ((std::int64_t(team.league_rank()) + 1) * tile_items(team_size) >= body_items)
        run_edges(rank, team_size, Seq{});
    } else {
      const std::int64_t tile_first = std::int64_t(team.league_rank()) * tile_items(team_size);
      const std::int64_t tile_end = tile_first + tile_items(team_size);
      if (tile_end <= body_items) {
        run_tile<false>(tile_first, rank, team_size);
      } else {
        run_tile<true>(tile_first, rank, team_size);
      }
      if (tile_end >= body_items) run_edges(rank, team_size, Seq{});
      if constexpr (Mode != Access::strided && !is_device_execution_space_v<ExecSpace>) {
        if (this->streaming_stores) streaming_store_fence();  // host teams of several threads may stream too
      }
    }
  }

  // Host spaces with one-thread teams (their default): tile `tile`, walked front to back by one thread. A local
  // copy of the functor: in host memory the output stores could alias it as far as the compiler knows, and every
  // store would reload the pointers; a local whose address never escapes cannot be aliased.
  void operator()(std::int64_t tile) const {
    const TiledFunctor local(*this);
    const std::int64_t first = tile * tile_items(1), end = first + tile_items(1);
    local.run_host_tile(first, std::min(end, body_items), Seq{});
    if (end >= body_items) local.run_edges(0, 1, Seq{});
    if constexpr (Mode != Access::strided) {
      if (this->streaming_stores) streaming_store_fence();  // this thread's streaming stores are visible at the join
    }
  }

  // One host thread, items [first, last): a plain loop over the elements that the compiler vectorizes to the
  // CPU's own width (out may be an input exactly: each element is read before it is written, so the iterations
  // are independent, which `ivdep` tells the compiler). Streaming stores go pack by pack.
  template <std::size_t... Is>
  void run_host_tile(std::int64_t first, std::int64_t last, std::index_sequence<Is...>) const {
    OutT* const target = out;
    if constexpr (Mode == Access::packed) {
      if (this->streaming_stores) {
        for (std::int64_t item = first; item < last; ++item) {
          InputItems loaded;
          load_all(loaded, item, Seq{});
          streaming_store(reinterpret_cast<Pack<OutT, Width>*>(target + head + item * Width), compute(loaded, Seq{}));
        }
        return;
      }
    }
    if constexpr (Mode == Access::contiguous && out_pack_width<OutT> != 1) {
      if (this->streaming_stores) return stream_host_elements(first, last, Seq{});
    }
    if constexpr (Mode == Access::strided) {
      const std::int64_t target_stride = this->out_stride;
      KSTREAM_IVDEP
      for (std::int64_t i = first; i < last; ++i)
        target[i * target_stride] = this->operation()(get<Is>(in)[i * this->in_strides[Is]]...);
    } else {
      const std::int64_t begin = head + first * Width, end = head + last * Width;
      KSTREAM_IVDEP
      for (std::int64_t i = begin; i < end; ++i) target[i] = this->operation()(get<Is>(in)[i]...);
    }
  }

  // Contiguous views at unequal alignments, elements [first, last) with streaming stores: the output is written
  // in 16-byte packs at its own alignment (scalars up to the first pack boundary and after the last), each input
  // read at whatever alignment it has (unaligned loads cost an x86 core nothing extra when they stay in a line,
  // and little when they straddle two).
  template <std::size_t... Is>
  void stream_host_elements(std::int64_t first, std::int64_t last, std::index_sequence<Is...>) const {
    constexpr int W = out_pack_width<OutT>;
    OutT* const target = out;
    const std::int64_t past_boundary =
        std::int64_t(reinterpret_cast<std::uintptr_t>(target + first) % pack_bytes) / std::int64_t(sizeof(OutT));
    const std::int64_t packs_from = std::min(last, first + (past_boundary == 0 ? 0 : W - past_boundary));
    std::int64_t i = first;
    for (; i < packs_from; ++i) target[i] = this->operation()(get<Is>(in)[i]...);
    for (; i + W <= last; i += W) {
      Pack<OutT, W> result;
      for (int lane = 0; lane < W; ++lane) result.lane[lane] = this->operation()(get<Is>(in)[i + lane]...);
      streaming_store(reinterpret_cast<Pack<OutT, W>*>(target + i), result);
    }
    for (; i < last; ++i) target[i] = this->operation()(get<Is>(in)[i]...);
  }

  // Loads ItemsInFlight items of every input, then computes and stores them; Guarded skips items >= body_items.
  // The chunk loop stays a loop on a GPU (unrolling it only lengthens the kernel, which a short call pays for in
  // instruction fetches; the loads of one chunk are what is in flight).
  template <bool Guarded>
  KOKKOS_INLINE_FUNCTION void run_tile(std::int64_t tile_first, int rank, int team_size) const {
    int chunk = 0;
    KSTREAM_DEVICE_NO_UNROLL
    do {  // chunks_per_thread >= 1
      const std::int64_t first = tile_first + std::int64_t(chunk) * ItemsInFlight * team_size + rank;
      InputItems loaded[ItemsInFlight]{};  // value-initialized: guarded slots stay unread, but defined
      KSTREAM_DEVICE_UNROLL
      for (int slot = 0; slot < ItemsInFlight; ++slot) {
        const std::int64_t item = first + std::int64_t(slot) * team_size;
        if (!Guarded || item < body_items) load_all(loaded[slot], item, Seq{});
      }
      KSTREAM_DEVICE_UNROLL
      for (int slot = 0; slot < ItemsInFlight; ++slot) {
        const std::int64_t item = first + std::int64_t(slot) * team_size;
        if (!Guarded || item < body_items) store(item, compute(loaded[slot], Seq{}));
      }
    } while (++chunk < chunks_per_thread);
  }

  // One pass of the shifted strategy: ItemsInFlight items from `first` on, team_size apart, every one guarded,
  // every aligned pack loaded before the first shift (a shift branches on the input's offset, and a load after
  // it waits for the loads before it).
  KOKKOS_INLINE_FUNCTION void run_one_pass(std::int64_t first, int team_size) const {
    RawItems raw[ItemsInFlight]{};
    KSTREAM_DEVICE_UNROLL
    for (int slot = 0; slot < ItemsInFlight; ++slot) {
      const std::int64_t item = first + std::int64_t(slot) * team_size;
      if (item < body_items) load_pairs(raw[slot], item, Seq{});
    }
    KSTREAM_DEVICE_UNROLL
    for (int slot = 0; slot < ItemsInFlight; ++slot) {
      const std::int64_t item = first + std::int64_t(slot) * team_size;
      if (item < body_items) store(item, compute(shift_all(raw[slot], Seq{}), Seq{}));
    }
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void load_pairs(RawItems& raw, std::int64_t item, std::index_sequence<Is...>) const {
    ((get<Is>(raw) = load_pair<Is>(item)), ...);
  }

  // Input I's two aligned packs around item `item`'s elements (the second only where the input is shifted).
  template <std::size_t I>
  KOKKOS_FORCEINLINE_FUNCTION auto load_pair(std::int64_t item) const {
    const auto* const data = get<I>(in);
    using T = std::remove_const_t<std::remove_pointer_t<std::remove_const_t<decltype(data)>>>;
    const int shift = this->shift[I];
    const auto* aligned = reinterpret_cast<const Pack<T, Width>*>(data + head + item * Width - shift);
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
  KOKKOS_FORCEINLINE_FUNCTION void load_all(InputItems& loaded, std::int64_t item, std::index_sequence<Is...>) const {
    ((get<Is>(loaded) = load<Is>(item)), ...);
  }

  template <std::size_t I>
  KOKKOS_FORCEINLINE_FUNCTION auto load(std::int64_t item) const {
    const auto* const data = get<I>(in);
    using T = std::remove_const_t<std::remove_pointer_t<std::remove_const_t<decltype(data)>>>;
    if constexpr (Mode == Access::packed) {
      return *reinterpret_cast<const Pack<T, Width>*>(data + head + item * Width);
    } else if constexpr (Mode == Access::shifted) {
      const int shift = this->shift[I];
      const auto* aligned = reinterpret_cast<const Pack<T, Width>*>(data + head + item * Width - shift);
      const Pack<T, Width> first = aligned[0];
      if (shift == 0) return first;
      return shifted_pack(first, aligned[1], shift, std::make_integer_sequence<int, Width>{});
    } else if constexpr (Mode == Access::contiguous) {
      return Pack<T, 1>{{data[item]}};
    } else {
      return Pack<T, 1>{{data[item * this->in_strides[I]]}};
    }
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Pack<OutT, Width> compute(const InputItems& loaded, std::index_sequence<Is...>) const {
    Pack<OutT, Width> result;
    for (int lane = 0; lane < Width; ++lane) result.lane[lane] = this->operation()(get<Is>(loaded).lane[lane]...);
    return result;
  }

  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t item, const Pack<OutT, Width>& result) const {
    if constexpr (moves_packs(Mode)) {
      auto* target = reinterpret_cast<Pack<OutT, Width>*>(out + head + item * Width);
      if constexpr (!is_device_execution_space_v<ExecSpace>) {
        if (this->streaming_stores) return streaming_store(target, result);
      }
      *target = result;
    } else if constexpr (Mode == Access::contiguous) {
      out[item] = result.lane[0];
    } else {
      out[item * this->out_stride] = result.lane[0];
    }
  }

  // Head and tail scalars (packed and shifted strategies, where every stride is 1; the others have none): fewer
  // than 2 W elements in all (shifted: 4 W). A rolled loop on a GPU: unrolled, the compiler computed its trip
  // count (an integer division) and addresses in every team's prologue, for the last team's few scalars.
  template <std::size_t... Is>
  KOKKOS_INLINE_FUNCTION void run_edges(int rank, int team_size, std::index_sequence<Is...>) const {
    const int edge_elements = head + tail;
    KSTREAM_DEVICE_NO_UNROLL
    for (int e = rank; e < edge_elements; e += team_size) {
      const std::int64_t i = e < head ? std::int64_t(e) : head + body_items * Width + (e - head);
      out[i] = this->operation()(get<Is>(in)[i]...);
    }
  }
};

/// Strided calls on a device (default shape; strided_elements): one element per index of a RangePolicy, from a
/// functor of the pointers and 32-bit strides only (fma: 48 bytes, the kernel parameters' first line; no tile
/// fields). Its kernel reaches its first load in a few instructions, where the tile kernel (TiledFunctor, strided)
/// computes its tile, chunk and edge bounds first; with one element per thread every thread pays that start.
/// Measured on the H200 (bench/results/README.md, strided_kernels, paired rounds) against the naive baseline at
/// stride 2 and 3: 0.9999-1.0031x at 2^20 beyond the L2 (doubles), where the tile kernel ran 0.976-0.993x (also
/// with its tile code stripped, and also launched without kstream's host side), 0.9993-1.0027x at 2^22 (tile
/// kernel 0.990-0.9996x), 0.9999-1.0008x at 2^24 and 1.0000-1.0007x at 2^28, on the DRAM ceiling both share
/// (naive against itself: 0.9979-1.0037x).
template <class Op, class OutT, class... InTs>
struct StridedElements : OpField<Op> {
  using Seq = std::index_sequence_for<InTs...>;
  OutT* out;
  Slots<Seq, const InTs*...> in;
  std::int32_t out_stride;
  std::int32_t in_strides[sizeof...(InTs)];

  StridedElements(OutT* out_, Slots<Seq, const InTs*...> in_, std::int32_t out_stride_,
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

/// Contiguous views of 8-byte elements with three or more inputs beyond the device's cache, default shape
/// (contiguous_elements): one element per thread of 256-thread teams, whatever the views' alignments, with an
/// explicit tail guard; the functor holds the pointers and n (fma: 40 bytes). Bytes in flight per thread decide
/// it: fma of doubles moves 3 x 8 bytes per thread here against 3 x 16 in the packed and contiguous strategies
/// (one pack, or one pack's two elements, per input), and on the H200 the 48 bytes ran behind. Measured there
/// (bench/diagnostics/strided_kernels.cpp `contiguous`, paired rounds, naive = 1): fma double at 2^22, 2^24 and
/// 2^28, aligned, offset1 and offsets123 in 256-thread teams of one element 0.9995-1.0037x (RangePolicy of one
/// element 0.998-1.001x), two elements per thread 0.986-0.999x; add double (two inputs, 32 bytes per thread in the
/// tiled strategies) the other way: two per thread 0.997-1.016x, one per thread in 256-thread teams 0.974-0.976x,
/// so two-input calls keep the tiled strategies. Within the cache the tiled strategies lead (fma double at 2^20:
/// 1.22-1.31x naive).
template <class ExecSpace, class Op, class OutT, class... InTs>
struct ContiguousElements : OpField<Op> {
  using Seq = std::index_sequence_for<InTs...>;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  OutT* out;
  Slots<Seq, const InTs*...> in;
  std::int64_t n;

  ContiguousElements(OutT* out_, Slots<Seq, const InTs*...> in_, std::int64_t n_, const Op& op_)
      : OpField<Op>(op_), out(out_), in(in_), n(n_) {}

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i = std::int64_t(team.league_rank()) * team.team_size() + team.team_rank();
    if (i < n) apply(i, Seq{});  // the tail guard: the last team's threads past n
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void apply(std::int64_t i, std::index_sequence<Is...>) const {
    out[i] = this->operation()(get<Is>(in)[i]...);
  }
};

template <class View>
std::uintptr_t address_of(const View& v) {
  return reinterpret_cast<std::uintptr_t>(v.data());
}

/// One call's launch: the strategy, its item partition and whether a host may stream its stores.
struct Plan {
  Partition part;
  bool streaming_stores;
};

/// Elements from the 16-byte boundary at or before `view`'s element `e` to that element (views whose address is a
/// multiple of their element size).
template <class View>
std::int8_t input_shift(const View& view, std::int64_t e) {
  using T = typename View::value_type;
  return std::int8_t(((address_of(view) + std::uintptr_t(e) * sizeof(T)) % pack_bytes) / sizeof(T));
}

/// Where a kernel goes: LaunchNow runs it (Kokkos::parallel_for); kstream/record.hpp appends it to a graph instead.
struct LaunchNow {
  template <class Policy, class Functor>
  void operator()(const char* label, const Policy& policy, const Functor& functor) const {
    Kokkos::parallel_for(label, policy, functor);
  }
};

/// Bytes (all operands together) up to which an OpenMP call runs on the calling thread: 24 KiB per thread, and at
/// least 256 KiB. Model: waking and joining T threads costs F (about 4.4 us for 16 threads on the H200 machine, an
/// `omp parallel for` of 1024 floats; about 1.7 us for 2 threads on the development VM), in which one core moves
/// F x bw bytes of cached data (bw about 75-95 GB/s: about 330 KB, resp. 128 KB). One thread takes B / bw for B
/// bytes, T threads F + B / (T bw): the calling thread is faster up to B = F bw T / (T - 1), about 350 KB on 16
/// threads and 256 KB on 2. Measured on 16 threads (bench/results/README.md): at 384 KB (an add of 2^14 doubles)
/// the calling thread takes 4.2 us, the threads 4.4-5.0 us; at 512 KB 5.5 us against 4.0-5.0 us.
constexpr std::int64_t calling_thread_bytes(int threads) {
  return std::max<std::int64_t>(256 * 1024, std::int64_t(24 * 1024) * threads);
}

/// Operand bytes per thread below which a call does not wake every thread: an OpenMP call of B bytes above the
/// calling-thread limit runs on ceil(B / 128 KiB) threads, rounded up to a power of two (all of them above 1 MiB
/// on 16 threads). Fewer threads are woken and joined faster: on the H200 machine's 16 cores an `omp parallel for`
/// over 384 KB took 2.7 us on 4 threads against 3.9 us on 16, over 768 KB 3.5 us on 8 against 4.0 us, while from
/// 1.5 MB on all 16 were fastest (bench/results/README.md).
inline constexpr std::int64_t bytes_per_woken_thread = 128 * 1024;

constexpr int threads_for(std::int64_t bytes, int threads) {
  const std::int64_t wanted = (bytes + bytes_per_woken_thread - 1) / bytes_per_woken_thread;
  int k = 1;
  while (k < wanted && k < threads) k *= 2;
  return std::min(k, threads);
}

#if defined(KOKKOS_ENABLE_OPENMP)
/// Whether exec is Kokkos' default OpenMP instance, compared with a copy made on first use and kept until Kokkos
/// finalizes (constructing Kokkos::OpenMP() allocates; Kokkos forbids destroying one after finalize).
inline bool is_default_openmp_instance(const Kokkos::OpenMP& exec) {
  static std::mutex mutex;
  static std::vector<Kokkos::OpenMP> kept;  // empty, or the default instance
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept.empty()) {
    Kokkos::push_finalize_hook([] {
      const std::lock_guard<std::mutex> release_lock(mutex);
      kept.clear();
    });
    kept.emplace_back();
  }
  return exec == kept.front();
}
#endif

/// Whether kstream opens the OpenMP region of a host call itself (`omp parallel for` over the tiles) instead of
/// going through Kokkos::parallel_for: on Kokkos::OpenMP's default instance, outside any parallel region. It is
/// the region Kokkos' own RangePolicy dispatch opens (same thread pool, same static split) without the wrapper
/// around it (instance mutex, label string, reference-counted instance copies), and it can run a call on fewer
/// threads than the pool without a Kokkos::OpenMP instance of its own. Measured on the H200 machine's 16 cores
/// (bench/results/README.md): within the run-to-run spread of Kokkos' dispatch of the same tiles, 0-4 % faster
/// at n = 2^16. Calls stay synchronous and in program order, as on the default instance, and Kokkos Tools see
/// every kernel; unlike Kokkos, kstream does not serialize calls that several host threads make at once (each
/// gets its own OpenMP team). Other instances and calls from inside a parallel region: Kokkos::parallel_for.
template <class ExecSpace>
bool opens_own_region([[maybe_unused]] const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) return !omp_in_parallel() && is_default_openmp_instance(exec);
#endif
  return false;
}

/// Runs `body()` as one kernel for Kokkos Tools (a profiler sees its label and space as for Kokkos::parallel_for).
template <class ExecSpace, class Body>
void as_tools_kernel(const char* label, const ExecSpace& exec, const Body& body) {
  std::uint64_t kernel_id = 0;
  const bool tools = Kokkos::Tools::profileLibraryLoaded();
  if (tools) Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(exec), &kernel_id);
  body();
  if (tools) Kokkos::Tools::endParallelFor(kernel_id);
}

#if defined(KOKKOS_ENABLE_OPENMP)
/// 64-bit words in which a functor crosses into kstream's own region (run_in_own_region): 96 bytes, every
/// host functor of add, fma and transform with up to 8 inputs (strided: up to 4).
inline constexpr std::size_t region_words = 12;

/// Whether run_in_own_region hands this functor to its threads as scalars (else as a firstprivate copy).
template <class Functor>
inline constexpr bool crosses_as_words = std::is_trivially_copyable_v<Functor> &&
                                         sizeof(Functor) <= region_words * sizeof(std::uint64_t);

/// kstream's own OpenMP region (opens_own_region): tiles [0, league) split statically over `threads` threads.
/// Every thread needs the functor, which the calling thread has only just written. OpenMP hands a region its
/// shared and firstprivate variables through an argument block the calling thread fills: scalars by value in the
/// block, an object (a functor) by pointer to it, so a thread reads the block, then the functor - two transfers
/// of a line from the calling core's cache, one after the other. A trivially copyable functor of up to
/// region_words words therefore crosses as that many 64-bit scalars (in the block itself: one round trip), and
/// each thread rebuilds it on its own stack; others cross as a firstprivate copy.
/// Measured on the H200 machine's 16 cores (bench/results/README.md, host_region, one run): float add at n = 2^17
/// and 2^18 (1.5 and 3 MB), p10 of 31 shuffled rounds, 5.95 / 8.33 us as scalars against 6.31 / 8.73 us as a
/// firstprivate object; a plain `omp parallel for` 6.31 / 8.76 us. (Medians moved less than this host's spread.)
template <class Functor>
void run_in_own_region(const Functor& functor, std::int64_t league, int threads) {
  if constexpr (crosses_as_words<Functor>) {
    std::uint64_t w[region_words] = {};
    std::memcpy(w, &functor, sizeof(Functor));
    const std::uint64_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7],
                        w8 = w[8], w9 = w[9], w10 = w[10], w11 = w[11];
#pragma omp parallel for schedule(static) num_threads(threads) \
    firstprivate(w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11)
    for (std::int64_t tile = 0; tile < league; ++tile) {
      const std::uint64_t words[region_words] = {w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11};
      std::array<unsigned char, sizeof(Functor)> bytes;
      std::memcpy(bytes.data(), words, sizeof(Functor));
      std::bit_cast<Functor>(bytes)(tile);
    }
  } else {
    Functor copy(functor);
#pragma omp parallel for schedule(static) num_threads(threads) firstprivate(copy)
    for (std::int64_t tile = 0; tile < league; ++tile) copy(tile);
  }
}
#endif

/// Where a host call runs: on the calling thread (0) or on a number of threads. Kokkos::OpenMP with the default
/// shape (an explicit shape is obeyed as given) and more than one thread: operands of at most calling_thread_bytes
/// run on the calling thread (OpenMP runs kernels synchronously, so order is kept; spaces that run asynchronously,
/// like HPX, are left alone); larger ones on threads_for(bytes) threads where kstream opens the region itself
/// (`own_region`: opens_own_region(exec)), else on all of exec's threads, as Kokkos would run them.
/// Everything else: all of exec's threads. (`threads`: exec.concurrency(), asked once per call by the caller.)
template <class ExecSpace, class OutView, class... InViews>
int host_threads_of([[maybe_unused]] int threads, [[maybe_unused]] bool own_region,
                    [[maybe_unused]] const TileShape& requested, [[maybe_unused]] const OutView& out,
                    [[maybe_unused]] const InViews&... ins) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
    if (requested != default_tile_shape<ExecSpace>() || threads <= 1) return threads;
    const std::int64_t bytes = operand_bytes(out, ins...);
    if (bytes <= calling_thread_bytes(threads)) return 0;
    return own_region ? threads_for(bytes, threads) : threads;
  }
#endif
  return threads;
}

template <class ExecSpace, class OutView, class... InViews>
int host_threads_for(const ExecSpace& exec, const TileShape& requested, const OutView& out, const InViews&... ins) {
  return host_threads_of<ExecSpace>(exec.concurrency(), opens_own_region(exec), requested, out, ins...);
}

template <class ExecSpace, Access Mode, int Width, int ItemsInFlight, class Sink, class OutView, class Op,
          class... InViews>
void launch(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& requested, const Plan& plan,
            const OutView& out, const Op& op, const InViews&... ins) {
  using Functor = TiledFunctor<ExecSpace, Mode, Width, ItemsInFlight, Op, typename OutView::value_type,
                               std::remove_const_t<typename InViews::value_type>...>;
  // Host calls run on the calling thread (0), some or all of exec's threads; device calls on exec.
  // (A recording runs its kernels through Kokkos Graph: all of exec's threads, Kokkos' region.)
  int threads = 1;
  bool own_region = false;
  if constexpr (!is_device_execution_space_v<ExecSpace>) {
    threads = exec.concurrency();
    if constexpr (std::is_same_v<Sink, LaunchNow>) {
      own_region = opens_own_region(exec);
      threads = host_threads_of<ExecSpace>(threads, own_region, requested, out, ins...);
    }
  }
  const TileShape shape = spread_over_threads<ExecSpace>(threads, requested, plan.part.body_items, ItemsInFlight);
  Functor functor(out.data(), {{ins.data()}...}, plan.part, shape.chunks_per_thread, op);
  // The league covers the body in the kernel's own tiles (one formula for both: Functor::tile_items).
  const std::int64_t tile_items = functor.tile_items(shape.team_size);
  const std::int64_t league = std::max<std::int64_t>(1, (plan.part.body_items + tile_items - 1) / tile_items);
  if (league > INT_MAX)
    throw std::length_error(std::string(label) + ": " + std::to_string(out.extent(0)) +
                            " elements need more teams than a TeamPolicy holds; use a larger tile shape");
  if constexpr (Mode == Access::strided) {
    functor.out_stride = std::int64_t(out.stride(0));
    const std::int64_t strides[] = {std::int64_t(ins.stride(0))...};
    for (std::size_t i = 0; i < sizeof...(InViews); ++i) functor.in_strides[i] = strides[i];
  }
  if constexpr (Mode == Access::shifted) {
    const std::int8_t shifts[] = {input_shift(ins, plan.part.head)...};
    for (std::size_t i = 0; i < sizeof...(InViews); ++i) functor.shift[i] = shifts[i];
  }
  if constexpr (!is_device_execution_space_v<ExecSpace>) functor.streaming_stores = plan.streaming_stores;
  if (requested != default_tile_shape<ExecSpace>()) {  // a default shape is known to fit; others are checked first
    const int team_size_max =
        Kokkos::TeamPolicy<ExecSpace>(exec, int(league), Kokkos::AUTO).team_size_max(functor, Kokkos::ParallelForTag());
    if (shape.team_size > team_size_max)
      throw std::invalid_argument(std::string(label) +
                                  ": invalid tile shape: team_size = " + std::to_string(shape.team_size) +
                                  " exceeds this execution space's maximum of " + std::to_string(team_size_max));
  }
  if constexpr (std::is_same_v<Sink, LaunchNow> && !is_device_execution_space_v<ExecSpace>) {
    if (threads == 0) {  // a call shorter than waking the threads
      as_tools_kernel(label, exec, [&] {
        for (std::int64_t tile = 0; tile < league; ++tile) functor(tile);
      });
      return;
    }
#if defined(KOKKOS_ENABLE_OPENMP)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
      if (shape.team_size == 1 && own_region) {  // the tiles split statically over `threads` threads
        as_tools_kernel(label, exec, [&] { run_in_own_region(functor, league, threads); });
        return;
      }
    }
#endif
  }
  if constexpr (!is_device_execution_space_v<ExecSpace>) {
    if (shape.team_size == 1) {  // one thread per tile: the tiles as a range, split statically over the threads
      sink(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, league), functor);
      return;
    }
  }
#if defined(KOKKOS_ENABLE_CUDA)
  // Shifted packs of one or two inputs with the default shape are compiled for full occupancy (8 teams of 256 per
  // multiprocessor: at most 32 registers). Measured on the H200 at 2^28, x + 1, y + 2, out + 3
  // (bench/diagnostics/shifted_packs.cpp): bf16 add took 36 registers (6 teams) and ran 3730 GB/s, 0.86x its
  // aligned packs, and 3950 bounded (0.92x); half add (32 registers) 4110 -> 4140. Three inputs are left alone:
  // bounded, half and bf16 fma spilled and fell from 4350 / 4255 to 2396 / 1476.
  if constexpr (Mode == Access::shifted && sizeof...(InViews) <= 2 && std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    constexpr int team = default_tile_shape<ExecSpace>().team_size;
    if (requested == default_tile_shape<ExecSpace>()) {
      sink(label, Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<team, 2048 / team>>(exec, int(league), team),
           functor);
      return;
    }
  }
#endif
  sink(label, Kokkos::TeamPolicy<ExecSpace>(exec, int(league), shape.team_size), functor);
}

/// Items each thread keeps in flight per input: packs_in_flight packs, or as many single elements as those packs
/// hold (W x packs_in_flight, capped at 32 to bound registers), so every strategy has the same bytes in flight.
/// Strided views on a device keep half as many (at least one): a load of a view with stride >= 2 moves at least
/// twice its bytes in 32-byte sectors, so half the elements keep as many sectors in flight as the contiguous
/// strategies. Measured on the H200 at n = 2^28 with stride 2 and 3 (bench/results/README.md): 1 or 2 elements per
/// thread run within 0.2 % of the naive kernel, 4 run 0.3-0.6 % behind it. (Unless the operands fit the device's
/// cache: strided_slots_in_cache.)
template <Access Mode, int ElementsPerPack, bool Device>
constexpr int slots_for(int packs_in_flight) {
  if (moves_packs(Mode)) return packs_in_flight;
  const int per_pack = (Mode == Access::strided && Device) ? std::max(1, ElementsPerPack / 2) : ElementsPerPack;
  return std::min(32, packs_in_flight * per_pack);
}

template <class ExecSpace, Access Mode, int Width, int ElementsPerPack, class Sink, class OutView, class Op,
          class... InViews>
void dispatch_packs_in_flight(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape,
                              const Plan& plan, const OutView& out, const Op& op, const InViews&... ins) {
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  switch (shape.packs_in_flight) {
    case 1:
      return launch<ExecSpace, Mode, Width, slots_for<Mode, ElementsPerPack, device>(1)>(sink, label, exec, shape, plan, out, op, ins...);
    case 2:
      return launch<ExecSpace, Mode, Width, slots_for<Mode, ElementsPerPack, device>(2)>(sink, label, exec, shape, plan, out, op, ins...);
    case 4:
      return launch<ExecSpace, Mode, Width, slots_for<Mode, ElementsPerPack, device>(4)>(sink, label, exec, shape, plan, out, op, ins...);
    case 8:
      return launch<ExecSpace, Mode, Width, slots_for<Mode, ElementsPerPack, device>(8)>(sink, label, exec, shape, plan, out, op, ins...);
    default:
      validate(shape, label);  // throws
  }
}

/// Strided calls on a device with the default shape whose operands span at most the device's last-level cache
/// keep every element of a pack in flight (4 floats, 2 doubles per thread) instead of half of them: repeated
/// calls then run from that cache, whose bandwidth needs more bytes in flight than DRAM's (Little's law), while at
/// DRAM sizes the extra elements only cost (slots_for). Measured on the H200 (50 MiB L2) at n = 2^20
/// (bench/results/README.md, strided grid; 256-thread teams, best of 7 repetitions): float stride 2 and 3 ran
/// 0.98-1.22x naive with 2 floats per thread and 1.05-1.38x with 4; at 2^24 (beyond the cache) 4 floats ran
/// 0.3-0.4 % behind 2 in fma. Doubles (1 or 2 per thread) ran level with each other at 2^20.
template <int ElementsPerPack>
inline constexpr int strided_slots_in_cache = std::min(32, ElementsPerPack);

/// Bytes of the device's last-level cache (CUDA, HIP; 0 where kstream does not know it: no cache rule applies).
template <class ExecSpace>
std::int64_t device_cache_bytes([[maybe_unused]] const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) return std::int64_t(exec.cuda_device_prop().l2CacheSize);
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::HIP>) return std::int64_t(exec.hip_device_prop().l2CacheSize);
#endif
  return 0;
}

/// Bytes from each view's first element to the end of its last (checks.hpp's Span), summed over the views (n > 0).
template <class... Views>
std::int64_t spanned_bytes(const Views&... views) {
  return (std::int64_t(span_of(views).end() - span_of(views).address) + ...);
}

/// Whether a strided call keeps strided_slots_in_cache elements in flight: device, default shape, operands within
/// the device's cache.
template <class ExecSpace, class OutView, class... InViews>
bool strided_in_cache(const ExecSpace& exec, const TileShape& shape, const OutView& out, const InViews&... ins) {
  return is_device_execution_space_v<ExecSpace> && shape == default_tile_shape<ExecSpace>() &&
         spanned_bytes(out, ins...) <= device_cache_bytes(exec);
}

/// Whether a strided call runs as StridedElements: on a device, with the default shape, every stride below 2^31
/// elements, and not under the in-cache rule for elements under 8 bytes (strided_in_cache: there the tiled kernel
/// with 4 floats per thread measured 1.04-1.35x naive at 2^20, the RangePolicy kernel 1.005-1.011x; doubles in the
/// cache ran 0.98x in the tiled kernel with 2 per thread and 1.003x as StridedElements).
template <class ExecSpace, class OutView, class... InViews>
bool strided_elements(const ExecSpace& exec, const TileShape& shape, const OutView& out, const InViews&... ins) {
  if (!is_device_execution_space_v<ExecSpace> || shape != default_tile_shape<ExecSpace>()) return false;
  const auto fits = [](std::size_t stride) { return stride <= std::size_t(INT32_MAX); };
  if (!fits(out.stride(0)) || !(fits(ins.stride(0)) && ...)) return false;
  return sizeof(typename OutView::value_type) >= 8 || !strided_in_cache(exec, shape, out, ins...);
}

/// Whether a call runs as ContiguousElements: on a device, with the default shape, three or more inputs, every
/// element 8 bytes, every view contiguous, the operands beyond the device's cache, and few enough elements that
/// one per thread fits a TeamPolicy's league.
template <class ExecSpace, class OutView, class... InViews>
bool contiguous_elements(const ExecSpace& exec, const TileShape& shape, const OutView& out, const InViews&... ins) {
  if constexpr (sizeof...(InViews) < 3 || sizeof(typename OutView::value_type) != 8 ||
                ((sizeof(typename InViews::value_type) != 8) || ...)) {
    return false;
  } else {
    if (!is_device_execution_space_v<ExecSpace> || shape != default_tile_shape<ExecSpace>()) return false;
    if (out.stride(0) != 1 || ((ins.stride(0) != 1) || ...)) return false;
    const std::int64_t teams = (std::int64_t(out.extent(0)) + shape.team_size - 1) / shape.team_size;
    return teams <= INT_MAX && spanned_bytes(out, ins...) > device_cache_bytes(exec);
  }
}

/// Pack width for these element types: 16 bytes of the common element size, or 1 (scalar) for mixed sizes.
template <class OutT, class... InTs>
constexpr int pack_width() {
  return ((sizeof(InTs) == sizeof(OutT)) && ...) ? out_pack_width<OutT> : 1;
}

/// The packed strategy's condition: every view contiguous and at the same address modulo 16 bytes.
template <class OutView, class... InViews>
bool packable(const OutView& out, const InViews&... ins) {
  if constexpr (pack_width<typename OutView::value_type, typename InViews::value_type...>() == 1) {
    return false;
  } else {
    const std::uintptr_t misalignment = address_of(out) % pack_bytes;
    return out.stride(0) == 1 && ((ins.stride(0) == 1) && ...) &&
           ((address_of(ins) % pack_bytes == misalignment) && ...);
  }
}

/// Whether contiguous views at unequal alignments can stream their stores: the output moves in packs of several
/// elements, and its address is a multiple of its element size (so a pack boundary is an element boundary).
template <class OutView>
bool streamable_output(const OutView& out) {
  using OutT = typename OutView::value_type;
  return out_pack_width<OutT> != 1 && address_of(out) % sizeof(OutT) == 0;
}

/// Whether a call on these views writes its output with streaming stores (the bench records it): contiguous views,
/// packed, or unequally aligned with a streamable output, and the store policy's say.
template <class ExecSpace, class OutView, class... InViews>
bool streams_stores(const OutView& out, const InViews&... ins) {
  if (out.extent(0) == 0 || out.stride(0) != 1 || ((ins.stride(0) != 1) || ...)) return false;
  return (packable(out, ins...) || streamable_output(out)) && use_streaming_stores<ExecSpace>(out, ins...);
}

/// Whether unequally aligned contiguous views run as shifted packs: on devices, for elements of fewer than 4 bytes
/// (measured: bench/diagnostics/shifted_packs.cpp; see the comment at the top of this file).
template <class ExecSpace, class OutT>
constexpr bool shifts_packs() {
  return is_device_execution_space_v<ExecSpace> && sizeof(OutT) < 4;
}

/// The shifted strategy's partition of n elements: the body starts at the output's first 16-byte boundary, or one
/// pack later where an input's first aligned pack would begin before its first element, and ends where the last
/// pack's second aligned input packs still end inside every input; the rest are head and tail scalars. An empty
/// body (body_items = 0) where some view is not contiguous or its address not a multiple of its element size, or
/// n is too small: the caller then takes the contiguous strategy.
template <int W, class OutView, class... InViews>
Partition shifted_partition(const OutView& out, const InViews&... ins) {
  using OutT = typename OutView::value_type;
  const std::int64_t n = std::int64_t(out.extent(0));
  const auto element_aligned = [](const auto& v) {
    return v.stride(0) == 1 && address_of(v) % sizeof(typename std::decay_t<decltype(v)>::value_type) == 0;
  };
  if (!element_aligned(out) || !(element_aligned(ins) && ...)) return {0, 0, n};
  const std::int64_t boundary = ((pack_bytes - address_of(out) % pack_bytes) % pack_bytes) / sizeof(OutT);
  const int largest_shift = std::max({int(input_shift(ins, boundary))...});
  const std::int64_t first = boundary + (boundary < largest_shift ? W : 0);
  // Last pack p: its input packs end at element first + (p + 1) W - shift + W - 1 <= n - 1 for every shift > 0.
  const std::int64_t body = std::max<std::int64_t>(0, (n - first - W) / W);
  if (body == 0) return {0, 0, n};
  return {first, body, n - first - body * W};
}

/// Checks nothing (the callers do); picks the access strategy and hands the kernel to `sink` (LaunchNow: runs it).
/// n == 0 launches nothing.
template <class ExecSpace, class Sink, class OutView, class Op, class... InViews>
void tiled_transform(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape,
                     const OutView& out, const Op& op, const InViews&... ins) {
  validate(shape, label);
  const std::int64_t n = std::int64_t(out.extent(0));
  if (n == 0) return;
  const bool streaming = streams_stores<ExecSpace>(out, ins...);  // one decision: what the bench reports is what runs
  using OutT = typename OutView::value_type;
  constexpr int width = pack_width<OutT, typename InViews::value_type...>();
  // Elements of the output type in one 16-byte pack: what the single-element strategies keep in flight per pack.
  constexpr int elements_per_pack = std::max<int>(1, pack_bytes / int(sizeof(OutT)));
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    if (contiguous_elements(exec, shape, out, ins...)) {
      using Functor = ContiguousElements<ExecSpace, Op, OutT, std::remove_const_t<typename InViews::value_type>...>;
      const int team = shape.team_size;
      return sink(label, Kokkos::TeamPolicy<ExecSpace>(exec, int((n + team - 1) / team), team),
                  Functor(out.data(), {{ins.data()}...}, n, op));
    }
  }
  if constexpr (width > 1) {
    if (packable(out, ins...)) {
      const std::uintptr_t misalignment = address_of(out) % pack_bytes;
      const std::int64_t head = std::min<std::int64_t>(n, ((pack_bytes - misalignment) % pack_bytes) / sizeof(OutT));
      const std::int64_t body_packs = (n - head) / width;
      const Plan plan{{head, body_packs, n - head - body_packs * width}, streaming};
      return dispatch_packs_in_flight<ExecSpace, Access::packed, width, elements_per_pack>(sink, label, exec, shape,
                                                                                           plan, out, op, ins...);
    }
  }
  if constexpr (shifts_packs<ExecSpace, OutT>() && width > 1) {
    const Partition part = shifted_partition<width>(out, ins...);
    if (part.body_items > 0)
      return dispatch_packs_in_flight<ExecSpace, Access::shifted, width, elements_per_pack>(
          sink, label, exec, shape, {part, false}, out, op, ins...);
  }
  if (out.stride(0) == 1 && ((ins.stride(0) == 1) && ...)) {
    const Plan plan{{0, n, 0}, streaming};  // unequally aligned: streaming only with a streamable_output
    return dispatch_packs_in_flight<ExecSpace, Access::contiguous, 1, elements_per_pack>(sink, label, exec, shape, plan,
                                                                                         out, op, ins...);
  }
  const Plan plan{{0, n, 0}, false};
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    if (strided_elements(exec, shape, out, ins...)) {
      using Functor = StridedElements<Op, OutT, std::remove_const_t<typename InViews::value_type>...>;
      const std::int32_t in_strides[] = {std::int32_t(ins.stride(0))...};
      return sink(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                  Functor(out.data(), {{ins.data()}...}, std::int32_t(out.stride(0)), in_strides, op));
    }
    if (strided_in_cache(exec, shape, out, ins...))
      return launch<ExecSpace, Access::strided, 1, strided_slots_in_cache<elements_per_pack>>(sink, label, exec, shape,
                                                                                              plan, out, op, ins...);
  }
  dispatch_packs_in_flight<ExecSpace, Access::strided, 1, elements_per_pack>(sink, label, exec, shape, plan, out, op,
                                                                             ins...);
}

}  // namespace kstream::impl

#pragma once
// The kernels of calls that keep several dimensions after normalization (kstream/impl/plan.hpp), where they do
// not run as device rows (tiled_functor.hpp):
//   GeneralFunctor   device: a pack's worth of elements per index of a RangePolicy over the flattened space,
//                    their coordinates from divisions precomputed on the host (Coordinates: 32-bit index math
//                    where the plan allows; Strides: 64-bit);
//   TileFunctor      device, an input along another dimension than the output's innermost (transposes, mixed
//                    layouts): a team per tile of two dimensions (TiledCoordinates), those inputs through scratch;
//   HostWalkFunctor  host: tiles of the flattened index, each one thread's walk along its rows (a contiguous row
//                    is a plain vectorized loop, with streaming stores where the plan says); an input along another
//                    dimension in blocks, squares of them transposed in registers (host_square.hpp).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <kstream/impl/host_square.hpp>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/store_policy.hpp>
#include <kstream/impl/tiled_functor.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// Index: Coordinates (32-bit index math) or Strides (64-bit), each element's offsets in every operand. Index t of
/// the range takes Ahead elements (a pack's worth of out's), interleaved with its group's (kstream/impl/plan.hpp,
/// general_lanes: adjacent indices read adjacent elements), and loads them all before it stores any.
template <class Index, class Op, class OutT, class... InTs>
struct GeneralFunctor : OpField<Op> {
  static constexpr int K = 1 + int(sizeof...(InTs)), Ahead = elements_per_pack(int(sizeof(OutT)));
  using Seq = std::index_sequence_for<InTs...>;
  Bases<Seq, OutT, InTs...> at;
  Index index;
  std::int64_t n;

  GeneralFunctor(const Op& op, const Bases<Seq, OutT, InTs...>& at_, const Index& index_, const Plan& p)
      : OpField<Op>(op), at(at_), index(index_), n(p.body_items) {}

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const { run(t, Seq{}); }

  /// Index t's a-th element (unsigned: a shift and a mask).
  static KOKKOS_FORCEINLINE_FUNCTION std::int64_t element(std::int64_t t, int a) {
    const auto u = std::uint64_t(t), lanes = std::uint64_t(general_lanes);
    return std::int64_t(u / lanes * (lanes * Ahead) + std::uint64_t(a) * lanes + u % lanes);
  }

 private:
  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void run(std::int64_t t, std::index_sequence<Is...>) const {
    std::int64_t offset[Ahead][K];
    Slots<Seq, InTs...> v[Ahead];
    KSTREAM_DEVICE_UNROLL
    for (int a = 0; a < Ahead; ++a) {
      const std::int64_t e = element(t, a);
      if (e < n) {
        index.offsets(e, offset[a]);
        ((get<Is>(v[a]) = get<Is>(at.in)[offset[a][Is + 1]]), ...);
      }
    }
    KSTREAM_DEVICE_UNROLL
    for (int a = 0; a < Ahead; ++a)
      if (element(t, a) < n) at.out[offset[a][0]] = this->operation()(get<Is>(v[a])...);
  }
};

/// A team per square tile (kstream/impl/plan.hpp, cross_dim; TiledCoordinates' edge): each staged
/// input (plan's `staged`) is read along the cross dimension, its contiguous one, into scratch; after the barrier
/// out is written along its innermost, the staged inputs read across their scratch rows (one element of padding a
/// row: a warp's lanes in different banks) and the others from memory. The tile goes in groups of W elements
/// along each side's contiguous dimension: whole 16-byte packs where the plan says (Plan::width: every group starts
/// on a pack boundary; a group cut short by the view's edge goes element by element), else single elements. Any
/// team size: thread r takes groups r, r + team size, ... of the tile, Ahead<W> of them at once (loads in flight
/// before any store).
template <class Team, class Op, class OutT, class... InTs>
struct TileFunctor : OpField<Op> {
  static constexpr int K = 1 + int(sizeof...(InTs));
  template <int W>
  static constexpr int Ahead = W == 1 ? transpose_in_flight : transpose_packs_in_flight(W);  ///< groups in flight
  static constexpr int Packed = common_pack_elements<OutT, InTs...>;
  static KOKKOS_INLINE_FUNCTION constexpr int log2_of(int w) { return w <= 1 ? 0 : 1 + log2_of(w / 2); }
  using Seq = std::index_sequence_for<InTs...>;
  Bases<Seq, OutT, InTs...> at;
  TiledCoordinates<K> index;
  std::uint32_t staged = 0;
  bool packed = false;

  TileFunctor(const Op& op, const Bases<Seq, OutT, InTs...>& at_, const TiledCoordinates<K>& index_, const Plan& p)
      : OpField<Op>(op), at(at_), index(index_), staged(p.staged), packed(Packed > 1 && p.width == Packed) {}

  /// Team scratch for the staged inputs.
  std::size_t scratch_bytes() const {
    std::size_t bytes = 0;
    std::size_t k = 0;
    const std::size_t E = std::size_t(index.edge);
    ((bytes += (staged >> k++ & 1) ? sizeof(InTs) * E * (E + 1) + 16 : 0), ...);
    return bytes;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    if (Packed > 1 && packed) return run<Packed>(team, Seq{});
    run<1>(team, Seq{});
  }

 private:
  template <int W, std::size_t... Is>
  KOKKOS_INLINE_FUNCTION void run(const Team& team, std::index_sequence<Is...>) const {
    std::int64_t origin[K];
    int inner = 0, cross = 0;
    index.tile(std::uint32_t(team.league_rank()), origin, inner, cross);
    const int rank = team.team_rank(), size = team.team_size(), E = index.edge, Pitch = E + 1, groups = E * E / W;
    const auto scratch = team.team_scratch(0);
    const Slots<Seq, InTs*...> tiles{
        {(staged >> Is & 1) ? static_cast<InTs*>(scratch.get_shmem_aligned(sizeof(InTs) * E * Pitch, 16))
                            : nullptr}...};
    if (staged != 0) {
      for (int first = rank; first < groups; first += Ahead<W> * size) {  // along the cross dimension: c fastest
        (stage<W, Is>(get<Is>(tiles), origin[Is + 1], first, size, inner, cross), ...);
      }
      team.team_barrier();
    }
    for (int first = rank; first < groups; first += Ahead<W> * size) {  // along out's innermost: i fastest
      Slots<Seq, Pack<InTs, W>...> v[Ahead<W>]{};  // value-initialized: guarded slots stay unread, but defined
      KSTREAM_DEVICE_UNROLL
      for (int a = 0; a < Ahead<W>; ++a) {
        const int g = first + a * size;
        int i = 0, c = 0;
        index.group(g, log2_of(W), i, c);
        if (g < groups && i < inner && c < cross)
          ((get<Is>(v[a]) = get<Is>(tiles) != nullptr
                                ? gather<W>(get<Is>(tiles) + i * Pitch + c, Pitch, inner - i)
                                : load<W>(get<Is>(at.in) + origin[Is + 1] + index.at(Is + 1, i, c), inner - i)),
           ...);
      }
      KSTREAM_DEVICE_UNROLL
      for (int a = 0; a < Ahead<W>; ++a) {
        const int g = first + a * size;
        int i = 0, c = 0;
        index.group(g, log2_of(W), i, c);
        if (g < groups && i < inner && c < cross) {
          Pack<OutT, W> result;
          for (int j = 0; j < W; ++j) result.lane[j] = this->operation()(get<Is>(v[a]).lane[j]...);
          store<W>(at.out + origin[0] + index.at(0, i, c), result, inner - i);
        }
      }
    }
  }

  /// Input I's groups first, first + size, ... (Ahead<W> of them) of the tile into its scratch (none where it is not
  /// staged).
  template <int W, std::size_t I, class T>
  KOKKOS_FORCEINLINE_FUNCTION void stage(T* tile, std::int64_t origin, int first, int size, int inner,
                                         int cross) const {
    if (tile == nullptr) return;
    const int E = index.edge, Pitch = E + 1;
    Pack<T, W> v[Ahead<W>]{};
    KSTREAM_DEVICE_UNROLL
    for (int a = 0; a < Ahead<W>; ++a) {
      const int g = first + a * size;
      int c = 0, i = 0;
      index.group(g, log2_of(W), c, i);
      if (g < E * E / W && i < inner && c < cross)
        v[a] = load<W>(get<I>(at.in) + origin + index.at(int(I) + 1, i, c), cross - c);
    }
    KSTREAM_DEVICE_UNROLL
    for (int a = 0; a < Ahead<W>; ++a) {
      const int g = first + a * size;
      int c = 0, i = 0;
      index.group(g, log2_of(W), c, i);
      if (g < E * E / W && i < inner && c < cross)
        for (int j = 0; j < W; ++j)
          if (j < cross - c) tile[i * Pitch + c + j] = v[a].lane[j];
    }
  }

  /// A group of W elements from `from` on (the first `left` of them where fewer are left; one pack where all are).
  template <int W, class T>
  static KOKKOS_FORCEINLINE_FUNCTION Pack<T, W> load(const T* from, int left) {
    Pack<T, W> v{};
    if (W > 1 && left < W) {
      for (int j = 0; j < W; ++j)
        if (j < left) v.lane[j] = from[j];
    } else {
      v = *reinterpret_cast<const Pack<T, W>*>(from);
    }
    return v;
  }
  /// A group down a column of scratch: elements `pitch` apart.
  template <int W, class T>
  static KOKKOS_FORCEINLINE_FUNCTION Pack<T, W> gather(const T* from, int pitch, int left) {
    Pack<T, W> v{};
    for (int j = 0; j < W; ++j)
      if (W == 1 || j < left) v.lane[j] = from[j * pitch];
    return v;
  }
  template <int W, class T>
  static KOKKOS_FORCEINLINE_FUNCTION void store(T* to, const Pack<T, W>& v, int left) {
    if (W > 1 && left < W) {
      for (int j = 0; j < W; ++j)
        if (j < left) to[j] = v.lane[j];
    } else {
      *reinterpret_cast<Pack<T, W>*>(to) = v;
    }
  }
};

template <class Op, class OutT, class... InTs>
struct HostWalkFunctor : OpField<Op> {
  static constexpr int K = 1 + int(sizeof...(InTs));
  using Seq = std::index_sequence_for<InTs...>;
  Bases<Seq, OutT, InTs...> at;
  Strides<K> strides;
  std::int64_t n, tile_elements;  ///< elements, or blocks where cross >= 0
  bool streaming_stores;
  int cross, block_inner, block_cross;
  static constexpr int Edge = host_square_edge_of<OutT>;  ///< squares' edge (0: rows only)

  HostWalkFunctor(const Bases<Seq, OutT, InTs...>& at_, const Plan& p, const Strides<K>& strides_, const Op& op)
      : OpField<Op>(op),
        at(at_),
        strides(strides_),
        n(p.body_items),
        tile_elements(p.host_tile_items),
        streaming_stores(p.streaming_stores),
        cross(p.cross_dim),
        block_inner(p.block_inner),
        block_cross(p.block_cross) {}

  // A local copy of the functor: in host memory the output stores could alias it as far as the compiler knows.
  void operator()(std::int64_t tile) const {
    const HostWalkFunctor local(*this);
    const std::int64_t first = tile * tile_elements;
    local.walk(first, std::min(n, first + tile_elements));
    if (streaming_stores) streaming_store_fence();  // visible at the join
  }

 private:
  void walk(std::int64_t first, std::int64_t last) const {
    bool unit = true;
    for (int k = 0; k < K; ++k) unit = unit && strides.stride[k][0] == 1;
    const auto each = [&](const std::int64_t(&offset)[K], std::int64_t length) { run(offset, length, unit, Seq{}); };
    if (cross < 0) return walk_runs(strides, first, last, each);
    const int edge = in_squares(Seq{}) ? Edge : 0;
    const auto square = [&](const std::int64_t(&corner)[K]) { this->square(corner, Seq{}); };
    walk_blocks(strides, cross, block_inner, block_cross, first, last,
                [&](const std::int64_t(&offset)[K], std::int64_t length, std::int64_t rows) {
                  split_block(strides, cross, offset, length, rows, edge, square, each);
                });
  }

  /// Squares of the output's edge (kstream/impl/host_square.hpp) where the output and every input run along the
  /// innermost dimension or, with the output's element size, along the cross dimension.
  template <std::size_t... Is>
  bool in_squares(std::index_sequence<Is...>) const {
    return Edge > 0 && strides.stride[0][0] == 1 &&
           ((strides.stride[Is + 1][0] == 1 ||
             (host_square_edge_of<InTs> == Edge && strides.stride[Is + 1][cross] == 1)) &&
            ...);
  }

  /// Input I's elements of a square: in place where it runs along the innermost, else its square transposed into
  /// `staged` (element (c, i) at c * Edge + i).
  template <std::size_t I, class T>
  const T* square_of(std::int64_t offset, T* staged) const {
    const T* from = get<I>(at.in) + offset;
    if (strides.stride[I + 1][0] == 1) return from;
    if constexpr (host_square_edge_of<T> == Edge) load_across(from, strides.stride[I + 1][0], staged);
    return staged;
  }

  static constexpr int SquareElements = Edge == 0 ? 1 : Edge * Edge;
  template <class T>
  using SquareOf = T[SquareElements];

  /// One square of Edge x Edge elements at `corner`: the output row by row, Edge elements (32 bytes) a row.
  template <std::size_t... Is>
  void square(const std::int64_t (&corner)[K], std::index_sequence<Is...>) const {
    Slots<Seq, SquareOf<InTs>...> staged;
    const Slots<Seq, const InTs*...> from{{square_of<Is>(corner[Is + 1], get<Is>(staged))}...};
    const std::int64_t step[K] = {0, (strides.stride[Is + 1][0] == 1 ? strides.stride[Is + 1][cross] : Edge)...};
    OutT* target = at.out + corner[0];
    for (int c = 0; c < Edge; ++c, target += strides.stride[0][cross]) {
      alignas(host_square_bytes) OutT row[Edge];
      for (int i = 0; i < Edge; ++i) row[i] = this->operation()(get<Is>(from)[c * step[Is + 1] + i]...);
      if (streaming_stores && reinterpret_cast<std::uintptr_t>(target) % 16 == 0) {
        for (int half = 0; half < host_square_bytes; half += 16)
          host_streaming_store_16(reinterpret_cast<char*>(target) + half, reinterpret_cast<const char*>(row) + half);
      } else {
        std::memcpy(static_cast<void*>(target), row, host_square_bytes);
      }
    }
  }

  template <std::size_t... Is>
  void run(const std::int64_t (&offset)[K], std::int64_t length, bool unit, std::index_sequence<Is...>) const {
    OutT* const target = at.out + offset[0];
    const Slots<Seq, const InTs*...> sources{{get<Is>(at.in) + offset[Is + 1]}...};
    if (unit && length * std::int64_t(sizeof(OutT)) < 64) {  // shorter than a cache line: none to stream, and
      KSTREAM_NO_VECTOR                                        // host_elements' preamble would cost more than the row
      for (std::int64_t j = 0; j < length; ++j)
        target[j] = this->operation()(get<Is>(sources)[j]...);
      return;
    }
    if (unit) return host_elements(this->operation(), target, sources, 0, length, streaming_stores, Seq{});
    const std::int64_t target_stride = strides.stride[0][0];
    KSTREAM_IVDEP
    for (std::int64_t j = 0; j < length; ++j)
      target[j * target_stride] = this->operation()(get<Is>(sources)[j * strides.stride[Is + 1][0]]...);
  }
};

}  // namespace kstream::impl

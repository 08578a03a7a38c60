#pragma once
// Index arithmetic of the several-dimension kernels: divisions by a divisor fixed on the host, and where a row of
// the normalized iteration space starts in each operand.
#include <Kokkos_Macros.hpp>  // KOKKOS_FORCEINLINE_FUNCTION, ... (the plan's fuzz target brings its own)
#include <algorithm>
#include <bit>
#include <cstdint>
#include <kstream/impl/operand.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/pragmas.hpp>

namespace kstream::impl {

/// n / divisor with one multiply-high, an add and a shift, for 1 <= divisor < 2^31 and n < 2^31 (Granlund and
/// Montgomery; the form of PyTorch's IntDivider and cub's fast_div_mod).
struct FastDivider {
  std::uint32_t divisor = 1, magic = 1, shift = 0;

  FastDivider() = default;
  explicit FastDivider(std::uint32_t d) : divisor(d) {
    while (shift < 31 && (std::uint32_t(1) << shift) < d) ++shift;
    magic = std::uint32_t(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - d)) / d + 1);
  }
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t quotient(std::uint32_t n) const {
    const auto high = std::uint32_t((std::uint64_t(n) * magic) >> 32);
    return (high + n) >> shift;
  }
};

/// Where a kernel's index lands in each of K operands over N dimensions with 32-bit index math (every extent,
/// stride and the count below 2^31): each coordinate from a FastDivider's arithmetic, kept as arrays so the
/// kernel's parameters stay small (a GPU kernel's functor under 512 bytes is passed as its argument).
template <int K, int N>
struct Coordinates {
  int dims = 0;
  std::uint32_t divisor[N] = {}, magic[N] = {};
  std::uint8_t shift[N] = {};
  std::int32_t stride[K][N] = {};

  Coordinates() = default;
  /// Dimensions first_dim.. of g (at most N of them).
  Coordinates(const Geometry& g, const Operand* const (&operands)[K], int first_dim) : dims(g.dims - first_dim) {
    for (int d = 0; d < dims; ++d) {
      const FastDivider f(std::uint32_t(g.extents[first_dim + d]));
      divisor[d] = f.divisor;
      magic[d] = f.magic;
      shift[d] = std::uint8_t(f.shift);
      for (int k = 0; k < K; ++k) stride[k][d] = std::int32_t(g.stride(*operands[k], first_dim + d));
    }
  }

  /// Offsets (elements) of index i in every operand: i's coordinates over the dimensions, innermost first.
  KOKKOS_FORCEINLINE_FUNCTION void offsets(std::uint32_t i, std::int64_t (&offset)[K]) const {
    offsets(i, 0, dims, offset);
  }
  /// The same over dimensions [from, to) alone (a reduction along dimensions: its kept or its reduced ones).
  KOKKOS_FORCEINLINE_FUNCTION void offsets(std::uint32_t i, int from, int to, std::int64_t (&offset)[K]) const {
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < K; ++k) offset[k] = 0;
    KSTREAM_DEVICE_UNROLL
    for (int d = 0; d < N; ++d) {
      if (d >= from && d < to) {
        const std::uint32_t next = (std::uint32_t((std::uint64_t(i) * magic[d]) >> 32) + i) >> shift[d];
        const auto coordinate = std::int32_t(i - next * divisor[d]);
        KSTREAM_DEVICE_UNROLL
        for (int k = 0; k < K; ++k) offset[k] += std::int64_t(coordinate) * stride[k][d];
        i = next;
      }
    }
  }
};

/// A general call's tiles (kstream/impl/plan.hpp, cross_dim): `edge` elements of the innermost dimension by `edge`
/// of the cross dimension (a power of two); the tiles go over the innermost's, the cross dimension's, then the
/// other dimensions' in order. 32-bit strides.
template <int K>
struct TiledCoordinates {
  std::uint32_t inner_extent = 1, cross_extent = 1;
  int edge = 1, edge_log2 = 0;
  std::int32_t inner_stride[K] = {}, cross_stride[K] = {};
  FastDivider inner_tiles, cross_tiles;
  Coordinates<K, max_rank - 2> rest;  ///< every dimension but those two

  TiledCoordinates() = default;
  TiledCoordinates(const Geometry& g, int cross, int edge_, const Operand* const (&operands)[K])
      : inner_extent(std::uint32_t(g.extents[0])),
        cross_extent(std::uint32_t(g.extents[cross])),
        edge(edge_),
        edge_log2(std::countr_zero(unsigned(edge_))),
        inner_tiles(std::uint32_t((g.extents[0] + edge_ - 1) / edge_)),
        cross_tiles(std::uint32_t((g.extents[cross] + edge_ - 1) / edge_)) {
    Geometry others;  // the remaining dimensions, innermost first
    for (int d = 1; d < g.dims; ++d) {
      if (d == cross) continue;
      others.extents[others.dims] = g.extents[d];
      others.axes[others.dims++] = g.axes[d];
    }
    rest = Coordinates<K, max_rank - 2>(others, operands, 0);
    for (int k = 0; k < K; ++k) {
      inner_stride[k] = std::int32_t(g.stride(*operands[k], 0));
      cross_stride[k] = std::int32_t(g.stride(*operands[k], cross));
    }
  }

  /// Tile t: its first element's offsets in every operand, and its elements inside the extents along the
  /// innermost (inner) and the cross dimension (cross), each at most the edge.
  KOKKOS_FORCEINLINE_FUNCTION void tile(std::uint32_t t, std::int64_t (&origin)[K], int& inner, int& cross) const {
    const std::uint32_t next = inner_tiles.quotient(t);
    const std::uint32_t first_inner = (t - next * inner_tiles.divisor) << edge_log2;
    const std::uint32_t beyond = cross_tiles.quotient(next);
    const std::uint32_t first_cross = (next - beyond * cross_tiles.divisor) << edge_log2;
    rest.offsets(beyond, origin);
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < K; ++k)
      origin[k] += std::int64_t(first_inner) * inner_stride[k] + std::int64_t(first_cross) * cross_stride[k];
    const std::uint32_t inner_left = inner_extent - first_inner, cross_left = cross_extent - first_cross;
    inner = int(inner_left < std::uint32_t(edge) ? inner_left : std::uint32_t(edge));
    cross = int(cross_left < std::uint32_t(edge) ? cross_left : std::uint32_t(edge));
  }
  /// Element (i, c) of a tile (i along the innermost, c along the cross dimension) in operand k, from its origin.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t at(int k, int i, int c) const {
    return std::int64_t(i) * inner_stride[k] + std::int64_t(c) * cross_stride[k];
  }
  /// Group g of a tile's edge x edge / 2^width_log2 (groups of 2^width_log2 elements along one side's contiguous
  /// dimension): where it starts along that side, in elements, and across it. Single elements: along fastest over
  /// the whole edge (a warp's 32 floats in one 128-byte line). Packs: a warp's 32 groups are 8 packs (128 bytes)
  /// along by 4 across, so that its scratch accesses down the columns of rows padded by one element fall in
  /// different banks (an edge holds at least 8 packs: the plan's edge x element size >= 128 bytes).
  KOKKOS_FORCEINLINE_FUNCTION void group(int g, int width_log2, int& along, int& across) const {
    const int per_side_log2 = edge_log2 - width_log2;  // groups along a side
    if (width_log2 == 0) {
      along = g & ((1 << per_side_log2) - 1);
      across = g >> per_side_log2;
    } else {
      const int warp = g >> 5, segments_log2 = per_side_log2 - 3;  // 8-pack segments along a side
      along = ((warp & ((1 << segments_log2) - 1)) << 3 | (g & 7)) << width_log2;
      across = (warp >> segments_log2) << 2 | (g >> 3 & 3);
    }
  }
};

/// Where row `row` of the normalized space starts in each of K operands: its coordinates over dimensions 1.. of
/// the geometry (rows and outer strides below 2^31).
template <int K>
using RowStarts = Coordinates<K, max_rank - 1>;

/// A thread's place in rows of per_row items (elements or packs) whose starts come from RowStarts: the row, the
/// item within it and the row's start in every operand, moved on by a stride of items across rows. `rows_of`
/// divides by per_row where per_row is at most the stride (short rows: several rows at a step).
template <int K>
struct RowCursor {
  std::int64_t per_row, at;
  std::uint32_t row;
  std::int64_t base[K];

  KOKKOS_FORCEINLINE_FUNCTION RowCursor(const RowStarts<K>& starts, std::int64_t per_row_, std::int64_t item)
      : per_row(per_row_), at(0), row(std::uint32_t(item / per_row_)) {
    at = item - std::int64_t(row) * per_row;
    starts.offsets(row, base);
  }
  /// Moves on by `by` items (by below 2^30): over one row where rows are longer than `by`, else over
  /// rows_of.quotient(at) of them.
  KOKKOS_FORCEINLINE_FUNCTION void advance(const RowStarts<K>& starts, const FastDivider& rows_of, std::int64_t by) {
    at += by;
    if (at < per_row) return;
    const std::uint32_t rows = per_row > by ? 1 : rows_of.quotient(std::uint32_t(at));
    row += rows;
    at -= std::int64_t(rows) * per_row;
    starts.offsets(row, base);
  }
};

/// A divider by rows of per_row items for RowCursor::advance with steps of `by` (unused where per_row > by).
inline FastDivider rows_divider(std::int64_t per_row, std::int64_t by) {
  return FastDivider(std::uint32_t(per_row <= by ? per_row : 1));
}

/// A device reduction's rows of packs in warps' units (DeviceReduction::row_units): unit u is packs [pack, pack +
/// device_row_unit_packs) of rows `row` and row + 1 (`two`: an odd count of rows leaves the last pair one), and the
/// rows' edges where pack is 0. The units go along a pair of rows, then on to the next pair.
struct RowUnits {
  FastDivider per_pair;    ///< units in a pair of rows
  std::uint32_t rows = 0;  ///< below 2^31, as the units

  struct Unit {
    std::uint32_t row;
    bool two;
    std::int32_t pack;
  };

  RowUnits() = default;
  RowUnits(std::int64_t rows_, std::int64_t row_packs)
      : per_pair(std::uint32_t(row_units_per_pair(row_packs))),
        rows(std::uint32_t(rows_)) {}

  KOKKOS_FORCEINLINE_FUNCTION Unit at(std::uint32_t u) const {
    const std::uint32_t pair = per_pair.quotient(u), row = 2 * pair;
    return {row, row + 1 < rows, std::int32_t(u - pair * per_pair.divisor) * device_row_unit_packs};
  }
};

/// How a device reduction reads each of the flattened rows (kstream/impl/plan.hpp, ReducePlan): `items` items, packs
/// of `width` elements from element `lead` (or single elements: width 1, lead 0), then the row's other `edges`
/// elements (lead before the packs, the rest after), one by one, by the team whose chunk holds the row's first item.
/// 16 bytes: a recorded reduction's functor stays under the 512 bytes from which Kokkos 5.2's HIP graph nodes
/// launch a team reduction through a functor buffer in device memory, a path that does not compile.
struct RowItems {
  std::int64_t items = 1;
  std::int32_t edges = 0;
  std::int16_t lead = 0, width = 1;

  RowItems() = default;
  /// Rows of row_length elements read in packs of `width` from element `lead` (width 1: single elements).
  RowItems(std::int64_t lead_, int width_, std::int64_t row_length)
      : items((row_length - lead_) / width_),
        edges(std::int32_t(row_length - items * width_)),
        lead(std::int16_t(lead_)),
        width(std::int16_t(width_)) {}

  /// The first row whose first item is item `item` or after (every row's items in turn).
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t row_from(std::int64_t item) const { return (item + items - 1) / items; }
  /// Element of its row of a row's edge j (0 <= j < edges).
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t column(std::int64_t j) const { return j < lead ? j : j + items * width; }
};

/// The operands' strides along every dimension of g, and their offsets at a flat index, for kernels that walk the
/// whole normalized space (general).
template <int K>
struct Strides {
  int dims = 0;
  std::int64_t extent[max_rank] = {};
  std::int64_t stride[K][max_rank] = {};

  Strides() = default;
  Strides(const Geometry& g, const Operand* const (&operands)[K]) : dims(g.dims) {
    if (dims == 0) {  // a single element: one dimension of one
      dims = extent[0] = 1;
      return;
    }
    for (int d = 0; d < dims; ++d) {
      extent[d] = g.extents[d];
      for (int k = 0; k < K; ++k) stride[k][d] = g.stride(*operands[k], d);
    }
  }

  /// Offsets of flat index i (innermost dimension fastest), 64-bit divisions.
  KOKKOS_INLINE_FUNCTION void offsets(std::int64_t i, std::int64_t (&offset)[K]) const {
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < K; ++k) offset[k] = 0;
    for (int d = 0; d < dims; ++d) {
      const std::int64_t next = i / extent[d], coordinate = i - next * extent[d];
      KSTREAM_DEVICE_UNROLL
      for (int k = 0; k < K; ++k) offset[k] += coordinate * stride[k][d];
      i = next;
    }
  }
};

/// Calls run(offset, length) for each run of elements [first, last) of the flattened space along its innermost
/// dimension (host): the coordinates of `first` once, then run by run, carrying into the outer dimensions. Whole
/// rows go along the next dimension in a loop of their own (short rows: the carry would cost more than the row).
template <int K, class Run>
void walk_runs(const Strides<K>& s, std::int64_t first, std::int64_t last, const Run& run) {
  if (first >= last) return;
  std::int64_t coordinate[max_rank] = {}, offset[K];
  s.offsets(first, offset);
  for (std::int64_t rest = first, d = 0; d < s.dims; ++d) {
    coordinate[d] = rest % s.extent[d];
    rest /= s.extent[d];
  }
  for (std::int64_t i = first; i < last;) {
    const std::int64_t length = std::min(s.extent[0] - coordinate[0], last - i);
    // A whole row steps along dimension 1, as many rows as that dimension and `last` allow; a part of a row steps
    // along dimension 0 by its length. Then the carry, from the dimension stepped along.
    const int along = coordinate[0] == 0 && length == s.extent[0] && s.dims > 1 ? 1 : 0;
    const std::int64_t step = along ? 1 : length;
    const std::int64_t runs = along ? std::min(s.extent[1] - coordinate[1], (last - i) / length) : 1;
    std::int64_t advance[K];
    for (int k = 0; k < K; ++k) advance[k] = step * s.stride[k][along];
    for (std::int64_t r = 0; r < runs; ++r) {
      run(offset, length);
      for (int k = 0; k < K; ++k) offset[k] += advance[k];
    }
    i += runs * length;
    coordinate[along] += runs * step;
    for (int d = along; d + 1 < s.dims && coordinate[d] == s.extent[d]; ++d) {
      coordinate[d] = 0;
      ++coordinate[d + 1];
      for (int k = 0; k < K; ++k) offset[k] += s.stride[k][d + 1] - s.extent[d] * s.stride[k][d];
    }
  }
}

/// Calls each_block(offset, length, rows) for each of blocks [first, last) of block_inner x block_cross elements of
/// the (innermost, cross) plane, the other dimensions outermost (the plan's body_items counts them): `rows` rows of
/// `length` elements along the innermost dimension from `offset`, one stride along the cross dimension apart
/// (clipped at the extents).
template <int K, class Block>
void walk_blocks(const Strides<K>& s, int cross, std::int64_t block_inner, std::int64_t block_cross, std::int64_t first,
                 std::int64_t last, const Block& each_block) {
  const std::int64_t inner_blocks = (s.extent[0] + block_inner - 1) / block_inner;
  const std::int64_t cross_blocks = (s.extent[cross] + block_cross - 1) / block_cross;
  for (std::int64_t block = first; block < last; ++block) {
    const std::int64_t inner = block % inner_blocks * block_inner;
    std::int64_t rest = block / inner_blocks;
    const std::int64_t along = rest % cross_blocks * block_cross;
    rest /= cross_blocks;
    std::int64_t offset[K];
    for (int k = 0; k < K; ++k) offset[k] = inner * s.stride[k][0] + along * s.stride[k][cross];
    for (int d = 1; d < s.dims; ++d) {
      if (d == cross) continue;
      const std::int64_t coordinate = rest % s.extent[d];
      rest /= s.extent[d];
      for (int k = 0; k < K; ++k) offset[k] += coordinate * s.stride[k][d];
    }
    each_block(offset, std::min(block_inner, s.extent[0] - inner), std::min(block_cross, s.extent[cross] - along));
  }
}

/// A block of walk_blocks as squares of edge x edge elements where edge > 0: square(offset) for each, at its first
/// row's first element, a row of squares at a time; the rest of the block (the elements past the last whole
/// square of a row, the rows past the last whole row of squares) as runs along the innermost: run(offset, length).
template <int K, class Square, class Run>
void split_block(const Strides<K>& s, int cross, const std::int64_t (&offset)[K], std::int64_t length,
                 std::int64_t rows, int edge, const Square& square, const Run& run) {
  const std::int64_t inner_squares = edge > 0 ? length / edge * edge : 0,
                     square_rows = edge > 0 ? rows / edge * edge : 0;
  std::int64_t at[K];
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int k = 0; k < K; ++k) at[k] = offset[k] + r * s.stride[k][cross];
    const std::int64_t done = r < square_rows ? inner_squares : 0;
    for (std::int64_t i = 0; i < done && r % edge == 0; i += edge) {
      std::int64_t corner[K];
      for (int k = 0; k < K; ++k) corner[k] = at[k] + i * s.stride[k][0];
      square(corner);
    }
    if (done == length) continue;
    for (int k = 0; k < K; ++k) at[k] += done * s.stride[k][0];
    run(at, length - done);
  }
}

}  // namespace kstream::impl

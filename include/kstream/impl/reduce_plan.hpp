#pragma once
// The plan of a reduction along dimensions (kstream::along): which dimensions are reduced, how the outputs and their
// reduced elements are shared among teams (device) or tiles (host), decided from plain facts in src/reduce_plan.cpp.
// The host tests call it with device facts; docs/engine.md has the table and the numbers.
//
// The result is described as an operand of the input's rank with stride 0 on the reduced dimensions (PyTorch's
// review_reduce_result) and normalized first: the reduced dimensions sort innermost, merge only with each other,
// and the kept ones follow in the result's order. Then, with `length` reduced elements for each of `outputs`:
//
//   condition (first match)                                         lanes
//   the inputs' unit stride runs along the innermost kept dimension outer: a device thread owns an output and
//     (its stride below the innermost reduced dimension's)            walks its reduced elements, its neighbours
//                                                                     own the adjacent outputs; a host tile keeps
//                                                                     a vector of adjacent outputs' accumulators
//   otherwise                                                       inner: a device output's reduce_lanes threads
//                                                                     read adjacent reduced elements; a host tile
//                                                                     walks each output's elements in turn
//
// A device thread alone on an output shorter than along_lane_bytes owns several (thread_outputs, a team's width
// apart), as many as the device's teams leave room for.
// An output's reduced elements are cut into `slices` of slice_length where the outputs alone would not fill the
// device (or a host tile would be longer than host_tile_items): each slice's partial result is folded with the
// others by a second kernel (device: fold_lanes threads an output, then a fixed tree; host: in slice order). Nothing
// depends on the thread count of a host, so a call gives the same bits on every run; on a device the slices depend
// on its concurrency too.
#include <cstdint>
#include <kstream/impl/operand.hpp>
#include <kstream/impl/overlap.hpp>
#include <kstream/impl/plan.hpp>

namespace kstream::impl {

/// The dimensions a reduction along dimensions reduces, in the input's numbering (kstream::along).
struct ReducedDims {
  int count = 0;
  int dims[max_rank] = {};
  bool has(int d) const {
    for (int k = 0; k < count; ++k)
      if (dims[k] == d) return true;
    return false;
  }
};

/// Device reductions along dimensions: teams of this many threads; each team folds its lanes' values in scratch.
inline constexpr int along_team_size = 256;
/// A device slice gives each of its threads at least this many elements of an output.
inline constexpr std::int64_t along_slice_per_thread = 32;
/// Inner device lanes: a thread takes at least this many bytes of an output's elements (of the first input: 16
/// floats, 8 doubles), so that a warp's rows stay in L1 while its threads walk them, with a shallow tree.
inline constexpr std::int64_t along_lane_bytes = 64;
/// A device thread that owns short outputs whole takes up to this many of them (a team's width apart), so that it
/// reads about along_lane_bytes of the first input, their loads in flight together.
inline constexpr int along_thread_outputs = 16;
/// ... and at least this many, or one: two a thread read no faster than one (docs/engine.md).
inline constexpr int along_thread_outputs_min = 4;
/// A host tile covers about this many elements (host_tile_items of the full reduction: a fixed length, so the
/// partial results do not depend on the thread count).
inline constexpr std::int64_t along_host_tile_items = 16384;
/// Adjacent outputs a host tile of an outer reduction accumulates at once (a row of up to this many is read whole),
/// and the elements its tile covers: slices of along_host_outer_items / outputs rows.
inline constexpr int along_host_outputs = 1024;
inline constexpr std::int64_t along_host_outer_items = 65536;

/// How a reduction along dimensions shares its work, as the kernels hold it: `outputs` outputs of `length`
/// elements, in blocks of block_outputs consecutive outputs (flat, innermost kept dimension first), each output's
/// elements in `slices` slices of slice_length; on a device reduce_lanes threads share an output's slice.
struct AlongLanes {
  std::int64_t outputs = 0, length = 0, slice_length = 0, slices = 1;
  int block_outputs = 1, reduce_lanes = 1;
  bool outer = false;
  int thread_outputs = 1;  ///< device: outputs a thread owns whole, the team's width apart (one slice, one lane)

  /// Where device thread `rank` of team `team` works: team t holds block t / slices over slice t % slices; the
  /// thread sits at output rank % block_outputs of the block (outer: adjacent threads, adjacent outputs) or
  /// rank / reduce_lanes (inner), and reads every reduce_lanes-th element of the slice from its lane. With
  /// thread_outputs > 1 it owns outputs rank, rank + team size, ... of the block.
  struct Place {
    std::int64_t output, slice, first, last;  ///< elements first, first + reduce_lanes, ... below last
    int block_output, lane;
  };
  KOKKOS_INLINE_FUNCTION Place place(std::int64_t team, int rank) const {
    Place at;
    const std::int64_t block = team / slices;
    at.slice = team - block * slices;
    at.block_output = outer ? rank % block_outputs : rank / reduce_lanes;
    at.lane = outer ? rank / block_outputs : rank % reduce_lanes;
    at.output = block * block_outputs + at.block_output;
    const std::int64_t start = at.slice * slice_length;
    at.first = start + at.lane;
    at.last = start + slice_length < length ? start + slice_length : length;
    return at;
  }
  /// Where host tile t works: outputs [first_output, last_output) over elements [first, last) of each.
  struct Tile {
    std::int64_t first_output, last_output, slice, first, last;
  };
  Tile tile(std::int64_t t) const {
    Tile at;
    const std::int64_t block = t / slices;
    at.slice = t - block * slices;
    at.first_output = block * block_outputs;
    at.last_output = at.first_output + block_outputs < outputs ? at.first_output + block_outputs : outputs;
    at.first = at.slice * slice_length;
    at.last = at.first + slice_length < length ? at.first + slice_length : length;
    return at;
  }
};

/// How a reduction along dimensions runs.
struct AlongPlan {
  Geometry geometry;         ///< dimensions [0, geometry.reduced) reduced, the others kept, innermost first
  std::int64_t outputs = 0;  ///< the kept extents' product (the result's elements)
  std::int64_t length = 0;   ///< elements reduced into each output
  bool outer = false;        ///< lanes along the innermost kept dimension (see the table above)
  int step_dim = 0;          ///< the dimension along which a thread's step reads consecutive elements
  int block_outputs = 1;     ///< consecutive outputs (flat, innermost kept dimension first) of one team or tile
  int reduce_lanes = 1;      ///< device: threads on one output's elements (block_outputs * reduce_lanes threads)
  int thread_outputs = 1;    ///< device: short outputs a thread owns whole (block_outputs = team_size * this)
  std::int64_t slices = 1;   ///< parts of each output's elements in separate teams or tiles (1: no second kernel)
  std::int64_t slice_length = 0;  ///< elements of one slice (the last may be shorter)
  std::int64_t blocks = 0;        ///< blocks of block_outputs outputs
  std::int64_t league = 0;        ///< teams or tiles: blocks * slices
  int team_size = 1;              ///< device: threads per team
  int fold_lanes = 1;             ///< device, sliced: threads on one output's slices in the fold (a power of two)
  std::int64_t fold_league = 0;   ///< device, sliced: teams of the fold (team_size / fold_lanes outputs each)
  bool device = false;            ///< planned for a device's kernel

  AlongLanes lanes() const {
    return {outputs, length, slice_length, slices, block_outputs, reduce_lanes, outer, thread_outputs};
  }
};

/// The dimensions [from, to) of g alone.
inline Geometry geometry_part(const Geometry& g, int from, int to) {
  Geometry part;
  for (int d = from; d < to; ++d) {
    part.extents[part.dims] = g.extents[d];
    part.axes[part.dims++] = g.axes[d];
  }
  return part;
}

/// Facts of the space a reduction along dimensions runs on.
struct AlongFacts {
  bool device = false;
  std::int64_t resident_threads = 1;   ///< device: its concurrency
  int team_size = along_team_size;     ///< device: threads per team (a power of two; tests run the device kernel on
                                       ///< host backends with small teams)
};

/// Fails with std::invalid_argument unless `dims` are distinct dimensions of a rank-`rank` input and at least one.
void check_reduced_dims(const char* op, const ReducedDims& dims, int rank);

/// The result of a reduction along `dims` as an operand of the inputs' rank, stride 0 on the reduced dimensions.
/// `result` holds the kept dimensions in order (rank - dims.count) or has the inputs' rank with extent 1 on the
/// reduced ones (keep-dims). Fails with std::invalid_argument naming the result's rank, a dimension whose extent
/// does not match, a result whose elements are not distinct, or one that may overlap an input. Names and labels:
/// the result first, then inputs[0, input_count), whose extents are the first input's (checked before).
Operand widened_result(const char* op, Names names, const ViewLabel* labels, const Operand& result,
                       const ReducedDims& dims, const Operand* inputs, int input_count);

/// The plan of a reduction of `operands` (the inputs, then a fused output if any) along `dims` into `widened`
/// (widened_result). Throws std::length_error where a device call's index math does not fit.
AlongPlan plan_along(const AlongFacts& facts, const ReducedDims& dims, const Operand& widened, const Operand* operands,
                     int count, const char* label);

/// Device: the largest team of a row kernel, the outer kernel's (its launch bounds: one such team an SM, at most 64
/// registers a thread on CUDA, as for four teams of 256).
inline constexpr int row_team_max = 1024;
/// Device: the most threads on one slice where the slices run inner (four such teams an SM).
inline constexpr int row_slice_lanes = 256;

/// Device: the loads a thread has in flight in a row kernel's pass 1 (16-byte packs where a slice is adjacent in x).
inline constexpr int row_in_flight = 4;
/// Device: the rounds of row_in_flight packs a thread of an inner slice takes: the plan gives a slice the power of
/// two nearest in ratio to length / (row_rounds x row_in_flight x pack elements) threads, but no fewer than half a
/// warp where one round would take more (each thread of a slice pays its fixed work, the tree and the row's
/// constants; below half a warp the rounds cost more: docs/engine.md).
inline constexpr int row_rounds = 2;
/// Device: a slice held on chip of at least this many bytes has x's whole packs copied into scratch at once where
/// the device copies without registers (RowFacts::async_copies; shorter slices read from L2 paid the extra scratch
/// pass: docs/engine.md).
inline constexpr std::int64_t row_copy_bytes = 4096;

/// Facts of the space a row operation runs on.
struct RowFacts {
  bool device = false;
  int warp = 32;                    ///< device: threads that run in lockstep (the smallest team)
  int team_max = row_team_max;      ///< device: the largest team (a power of two, at least warp)
  std::int64_t scratch_bytes = 0;   ///< device: team scratch a team may take
  int threads = 1;                  ///< host: the space's concurrency
  bool async_copies = false;        ///< device: copies from memory into team scratch that hold no registers (CUDA)
};

/// How a row operation runs. Device: a team holds team_size / lanes consecutive slices (flat, innermost kept
/// dimension first), `lanes` threads on each; outer: adjacent threads on adjacent slices, inner: on adjacent
/// elements of one.
struct RowPlan {
  Geometry geometry;               ///< dimensions [0, geometry.reduced) reduced (the slice), the others kept
  std::int64_t slices = 0;         ///< the kept extents' product
  std::int64_t length = 0;         ///< elements of a slice
  bool outer = false;              ///< device: x's unit stride runs along the kept dimensions
  bool turned = false;             ///< device: outer, out's along the reduced dimension (one): pass 2 through tiles
  bool on_chip = false;            ///< device: the slices read once, into team scratch
  bool copied = false;             ///< device: on chip and x's slice adjacent: its packs copied into scratch at once
  std::int64_t held = 0;           ///< device: a slice's elements kept in team scratch from pass 1 to pass 2: length
                                   ///< on chip; else, where x's slice is adjacent, the first whole packs that fit
                                   ///< (the rest read twice); else 0
  int team_size = 1;               ///< device: threads per team
  int lanes = 1;                   ///< device: threads per slice
  std::int64_t block = 1;          ///< host: adjacent slices a thread takes, read one while writing the one before
  bool streaming_stores = false;   ///< host: out written past the caches (host_streams)
  std::int64_t league = 0;         ///< teams (device) or blocks (host)
  std::int64_t scratch_bytes = 0;  ///< device: team scratch per team (the slices if on chip, then the statistics)
};

/// A turned plan's tile (RowPlan::turned): rounds of a slice's `lanes` threads it holds (two of 8-byte elements:
/// teams of 1024 then fit in 48 KiB), and the elements a row of it takes, with a pad that puts the next row's first
/// element in the next bank.
KOKKOS_INLINE_FUNCTION constexpr int row_tile_rounds(int element_bytes) { return element_bytes > 4 ? 2 : 4; }
KOKKOS_INLINE_FUNCTION constexpr int row_tile_pitch(int lanes, int element_bytes) {
  return row_tile_rounds(element_bytes) * lanes + (element_bytes < 4 ? 4 / element_bytes : 1);
}

/// Elements of team scratch that `length` elements of a slice take: whole packs, and one more pack, so that the
/// slice's first whole pack in memory starts a pack in scratch too.
KOKKOS_INLINE_FUNCTION constexpr std::int64_t row_cache_span(std::int64_t length, int element_bytes) {
  const int w = elements_per_pack(element_bytes);
  return w == 1 ? length : (length + w - 1) / w * w + w;
}

/// The plan of a row operation on `operands` (x, out, then the parameters widened to x's rank) along `dims`: a
/// slice's element takes element_bytes in team scratch, the statistics state_bytes. Normalized as a reduction into
/// out with stride 0 on the reduced dimensions. Throws std::length_error where the index math does not fit.
RowPlan plan_rows(const RowFacts& facts, const ReducedDims& dims, const Operand* operands, int count, int element_bytes,
                  int state_bytes, const char* label);

/// A parameter of a row operation (weight, bias: the reduced dimensions' shape, in order) as an operand of x's
/// rank with stride 0 on the kept dimensions. Fails with std::invalid_argument naming its rank or the dimension
/// whose extent does not match, or where it may share memory with `out`.
Operand widened_parameter(const char* op, const char* name, const ViewLabel& label, const Operand& parameter,
                          const ReducedDims& dims, const Operand& x, const Operand& out);

}  // namespace kstream::impl

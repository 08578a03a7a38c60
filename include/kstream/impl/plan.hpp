#pragma once
// The plan of an elementwise call (add, fma, transform, copy) on views of any rank: which access strategy runs
// and how it is launched, decided from plain facts about the call (the space, each operand's address, element
// size, extents and strides, the tile shape). One non-template function compiled once in src/plan.cpp; the tests
// call it with device facts on any host, so CI checks every decision. The numbers behind each row are in
// docs/engine.md.
//
// First the operands are normalized (normalize): their dimensions ordered by the output's strides, innermost
// first, extent-1 dimensions dropped, and neighbours merged where every operand's outer stride is its inner
// extent times its inner stride. Whole views of any layout, padded or not, become one dimension.
//
//   condition (first match)                                                               strategy
//   n == 0                                                                                nothing runs
//   one dimension left (rank 1, or views that merge into one):
//     device, default shape, some view strided, every stride < 2^31, and not elements of
//       fewer than 8 bytes whose operands fit the device's last-level cache              elements
//     every view contiguous, one element size that divides 16 bytes, every address equal
//       modulo 16 bytes (and a multiple of the element size)                              packed
//     device, elements of 1 or 2 bytes, every view contiguous and element-aligned, at most
//       max_shifted_inputs inputs, n long enough for one shifted pack                     shifted
//     every view contiguous                                                               contiguous
//     otherwise                                                                           strided
//   several dimensions, device, unit inner stride in every operand, rows of at least
//     a warp's packs, fewer than 2^31 rows: rows, each row planned by the table above     packed / shifted /
//     (packed and shifted only where every row starts at the first row's alignment)       contiguous, rows > 1
//   several dimensions, device, otherwise                                                 general
//   several dimensions, host: tiles of the flattened index, walked row by row             contiguous (unit
//                                                                                          inner strides) / general
//
// packed      each thread moves whole 16-byte packs: | head scalars | body of packs | tail scalars |.
// shifted     like packed for the output; each input's pack is built from the two aligned packs that hold its
//             elements, shifted in registers (16-bit views at unequal alignments).
// contiguous  single elements, one pack's worth per thread and input in flight, block-strided across the team
//             (each load instruction of a warp reads adjacent elements).
// strided     as contiguous, with the strides applied.
// elements    one element per index of a RangePolicy from a functor of pointers and 32-bit strides.
// general     a pack's worth of out's elements per index of a RangePolicy over the normalized dimensions, in
//             groups of general_lanes indices, each element's coordinates from divisions precomputed on the
//             host (32-bit where the count and every span fit);
//             where an input runs along another dimension than the output (a transpose, mixed layouts), in
//             tiles of the output's and that input's innermost dimensions (cross_dim).
// rows        (device) one team per tile of a row: the row's start from its coordinates, then the row's strategy.
//
// Launch: on a device one TeamPolicy team per tile (elements, general: a RangePolicy). On a host a RangePolicy of
// tiles, each one thread's plain loop: with the default shape one tile per thread; an OpenMP call whose operands
// take at most calling_thread_bytes runs on the calling thread; on Kokkos' default OpenMP instance, outside
// parallel regions, kstream opens the region itself, a mid-small call on threads_for(bytes) threads. Large
// contiguous host outputs that are not an input are written with streaming stores (kstream/streaming_stores.hpp).
//
// Reductions (plan_reduction, below): packs where every operand allows (rows: each row's whole packs, its edges
// one by one), single elements otherwise; on a device one team per chunk: in one launch while the chunks are no
// more than the teams that fill half the resident threads (one_launch_teams), beyond it the teams' partial results
// and a second kernel that folds them (one team up to one_team_fold_partials, Kokkos' parallel_reduce over more),
// rows of at least a warp's packs in warps' units of two rows (DeviceReduction::row_units), shorter rows of packs in
// chunks of four passes where those are many, else two (row_chunk_passes).
// device_reduction gives a call's chunks, passes, launches and fold.
#include <Kokkos_Macros.hpp>  // KOKKOS_INLINE_FUNCTION (the plan's fuzz target brings its own)
#include <cstdint>
#include <kstream/impl/operand.hpp>
#include <kstream/impl/tile_shape.hpp>
#include <string>

namespace kstream::impl {

enum class Strategy : std::uint8_t { packed, contiguous, shifted, strided, elements, general };

/// "packed", "contiguous", ... (for messages, tests and the benchmark's counters).
const char* strategy_name(Strategy strategy);

/// The iteration space of a call after normalization: dims dimensions, innermost first, each with its extent
/// and the view axis whose strides it moves along (the innermost of the axes merged into it).
struct Geometry {
  int dims = 0;     ///< 0: a single element
  int reduced = 0;  ///< reductions along dimensions: dimensions [0, reduced) are reduced (elementwise calls: 0)
  std::int64_t extents[max_rank] = {};
  std::int8_t axes[max_rank] = {};

  /// Elements: the product of the extents.
  std::int64_t size() const {
    std::int64_t n = 1;
    for (int d = 0; d < dims; ++d) n *= extents[d];
    return n;
  }
  /// Operand o's stride along dimension d.
  std::int64_t stride(const Operand& o, int d) const { return o.strides[axes[d]]; }
  /// Whether o's elements are adjacent along the innermost dimension (true for a single element).
  bool unit_inner(const Operand& o) const { return dims == 0 || stride(o, 0) == 1; }
};

/// Sorts the few dimension numbers order[0, count) by `before` (insertion sort: at most max_rank of them).
template <class Before>
void sort_dimensions(int* order, int count, const Before& before) {
  for (int i = 1; i < count; ++i)
    for (int j = i; j > 0 && before(order[j], order[j - 1]); --j) {
      const int kept = order[j];
      order[j] = order[j - 1];
      order[j - 1] = kept;
    }
}

/// The operands' common iteration space: `first` (the output, or a reduction's first view) orders the dimensions;
/// every operand has first's extents.
Geometry normalize(const Operand& first, const Operand* rest, int rest_count);

/// A device general call whose inputs do not all run along the output's innermost dimension goes in square tiles
/// (the output's innermost by the cross dimension), a team of transpose_team threads each: an input that runs
/// along the cross dimension is read along it into team scratch (rows padded by one element against bank
/// conflicts), and out is written along its innermost from there, so that every global read and write runs along
/// its operand's contiguous dimension. The edge (Plan::tile_edge, a power of two from transpose_min_edge to
/// transpose_max_edge) makes a tile row transpose_row_bytes of the operands' smallest element where the team's
/// scratch holds every such input at it. Each thread loads transpose_in_flight elements of each input before it
/// stores, or where the tile moves 16-byte packs (Plan::width) transpose_packs_in_flight(width) packs.
inline constexpr int transpose_team = 256, transpose_row_bytes = 256, transpose_min_edge = 32, transpose_max_edge = 128,
                     transpose_in_flight = 4;
/// Two packs of floats or doubles, one of 16-bit elements (computed in float: twice the registers).
KOKKOS_INLINE_FUNCTION constexpr int transpose_packs_in_flight(int width) {
  return width > 4 ? 1 : 2;
}
/// A host general call of that kind walks blocks of host_block_inner elements along the output's innermost
/// dimension by host_block_cross along the input's: the input's cache lines (16 floats) are read whole from L1
/// while the block's rows go by, where the output's order alone reads one element of each line per row. Where an
/// input's step along the innermost is a multiple of host_aliasing_bytes (a power-of-two pitch), the lines of one
/// block row all fall in one set of a 4 KiB-way L1 and evict each other: the block narrows to one cache line of
/// the output by host_aliased_cross rows, or host_aliased_square_inner elements by as many where the block goes in
/// squares transposed in registers (kstream/impl/host_square.hpp: every input along the innermost, or along the
/// cross dimension with the output's element size).
inline constexpr int host_block_inner = 128, host_block_cross = 16, host_aliased_cross = 256,
                     host_aliased_square_inner = 64;
inline constexpr std::int64_t host_aliasing_bytes = 4096, host_line_bytes = 64;

/// Inputs whose shifts a shifted plan holds; calls with more take the contiguous strategy.
inline constexpr int max_shifted_inputs = 8;

/// Everything the plan depends on.
struct CallFacts {
  const char* label = "kstream";  ///< names the call in errors
  bool device = false;            ///< the space's memory is not accessible from the host
  bool may_run_inline = false;    ///< a synchronous host space (OpenMP) whose short calls may run on the caller
  bool own_region = false;        ///< kstream may open the OpenMP region itself (and use fewer threads)
  int threads = 1;                ///< host: the space's concurrency
  std::int64_t cache_bytes = 0;   ///< device: bytes of its last-level cache (0 where unknown)
  int warp_size = 32;             ///< device: threads that issue together (a CUDA warp 32, a CDNA wavefront 64)
  std::int64_t scratch_bytes = 0;  ///< device: team scratch (level 0) a team may take
  TileShape shape{};
  bool default_shape = true;  ///< shape is the space's default_tile_shape
  Operand out{};
  const Operand* ins = nullptr;
  int inputs = 0;
};

/// What runs. Items are packs (packed, shifted) or single elements (the others).
struct Plan {
  Geometry geometry;          ///< the normalized iteration space
  std::int64_t rows = 1;      ///< rows of geometry.extents[0] elements the strategy runs over (1: one dimension)
  bool wide_indices = false;  ///< general: 64-bit index math (the count or a span does not fit 31 bits)
  std::int8_t cross_dim = -1;  ///< general: the dimension tiled with the innermost (an input's innermost), on a
                               ///< device tiles of tile_edge x tile_edge a team (league: tiles), on a host in
                               ///< blocks of block_inner x block_cross (body_items counts blocks); -1: in
                               ///< the flattened order
  std::uint32_t staged = 0;  ///< device tiles: bit k - 1 set for each input k read through team scratch
  int tile_edge = 0;         ///< device tiles: elements along each side of a tile
  int block_inner = 0, block_cross = 0;  ///< host blocks: elements along the innermost and the cross dimension
  Strategy strategy = Strategy::strided;
  std::int64_t head = 0;        ///< scalars before the body (packed, shifted)
  std::int64_t body_items = 0;  ///< items the tiles cover (rows: in each row; an item is a pack, a single element
                                ///< or, with a host cross_dim, a block)
  std::int64_t tail = 0;        ///< scalars after the body (packed, shifted)
  int width = 1;                ///< elements per item (device tiles: along each contiguous run, in whole packs)
  int items_in_flight = 1;      ///< device: items of each input a thread loads before it stores (a template value)
  int team_size = 1;            ///< device: threads per team; hosts: 1
  int chunks_per_thread = 1;    ///< device: load-store rounds of each thread in its tile
  std::int64_t host_tile_items = 0;  ///< host: items one tile (one thread's loop) covers
  std::int64_t league = 0;           ///< the launch's length in its policy's work items: teams of a TeamPolicy (a tile
                                     ///< each; rows: every row's tiles), indices of a RangePolicy, or host tiles
  int threads = 1;              ///< host: threads that run the tiles, 0 for the calling thread
  bool own_region = false;      ///< host: kstream opens the OpenMP region of `threads` threads itself
  bool streaming_stores = false;
  std::int8_t shifts[max_shifted_inputs] = {};  ///< shifted: each input's offset in its aligned pack

  /// Items one tile covers.
  std::int64_t tile_items() const {
    return host_tile_items > 0 ? host_tile_items : std::int64_t(team_size) * items_in_flight * chunks_per_thread;
  }
};

/// What a plan runs, for messages and kernel labels: "packed", "rows/packed" (each row so), "general" (the
/// flattened order), "general/tiles" and "general/blocks" (a transpose's device tiles and host blocks), ...
std::string plan_name(const Plan& p);

/// "<call>[<plan_name>]" ("kstream::add[rows/packed]"), the label of a call's kernel for Kokkos Tools: one string
/// for each distinct label, kept for the program's life.
const char* kernel_label(const char* call, const Plan& p);

/// The plan of a call. Throws std::invalid_argument for a bad tile shape and std::length_error where the call
/// needs more teams than a TeamPolicy holds.
Plan plan(const CallFacts& facts);

/// Whether a host call writes `out` with x86 streaming stores (kstream/streaming_stores.hpp): its elements
/// adjacent (unit_output) and aligned, not an input, by the process-wide mode and the operands' bytes.
bool host_streams(const Operand& out, bool unit_output, bool out_is_an_input, std::int64_t operand_bytes);

/// Bytes up to which an OpenMP call with the default shape runs on the calling thread (24 KiB per thread, at
/// least 256 KiB): shorter than waking and joining the threads.
constexpr std::int64_t calling_thread_bytes(int threads) {
  return 256 * 1024 > std::int64_t(24 * 1024) * threads ? 256 * 1024 : std::int64_t(24 * 1024) * threads;
}

/// Threads a host call of `bytes` wakes where it may use fewer than all `threads`: one per 128 KiB of operands,
/// rounded up to a power of two, at most all of them (fewer threads are woken and joined faster).
constexpr int threads_for(std::int64_t bytes, int threads) {
  const std::int64_t wanted = (bytes + 128 * 1024 - 1) / (128 * 1024);
  int k = 1;
  while (k < wanted && k < threads) k *= 2;
  return k < threads ? k : threads;
}

/// Elements of `element_bytes` in one 16-byte pack, or 1 where they do not tile it.
KOKKOS_INLINE_FUNCTION constexpr int elements_per_pack(int element_bytes) {
  return element_bytes < pack_bytes && pack_bytes % element_bytes == 0 ? pack_bytes / element_bytes : 1;
}

/// Elements a pack of out holds where every input has out's element size (one pack moves each), else 1.
template <class OutT, class... InTs>
inline constexpr int common_pack_elements = ((sizeof(InTs) == sizeof(OutT)) && ...)
                                                ? elements_per_pack(int(sizeof(OutT)))
                                                : 1;

/// The device's general kernel (GeneralFunctor) gives each index a pack's worth of out's elements (items_in_flight),
/// interleaved over groups of general_lanes adjacent indices: group g takes the general_lanes x items elements from
/// g x general_lanes x items on, its index t elements t % general_lanes, that + general_lanes, ... (a warp's loads
/// adjacent, a group's elements one run).
inline constexpr int general_lanes = 32;

/// How a reduction runs: over the normalized space, in rows of row_length elements (one row: a flat call), read
/// in 16-byte packs of `width` elements where every operand allows (width 1: single elements). Rows of packs:
/// each row's body of row_packs() whole packs starts row_lead elements in (an interior's rows start off a pack
/// boundary); the row's other elements, row_lead before the body and the rest after it, are its edges, read one
/// by one.
struct ReducePlan {
  Geometry geometry;
  std::int64_t n = 0, rows = 1, row_length = 0;
  int width = 1;
  std::int64_t row_lead = 0;  ///< rows of packs: elements of each row before its first whole pack
  bool narrow_rows = true;    ///< rows, outer extents and outer strides below 2^31 (device rows need it)

  /// Whole packs in each row (rows of packs).
  std::int64_t row_packs() const { return (row_length - row_lead) / width; }
};

/// The teams of `team_size` threads of a device reduction over `chunks` chunks in one launch, or 0 where it takes
/// two. The teams that fill half the device's resident threads (`resident_threads`, the space's concurrency: four
/// teams of 256 on each 2048-thread multiprocessor) run at once; while the chunks are no more, a team per chunk
/// and Kokkos' reduction over the teams replace the second kernel that folds the chunks' partial results. Its
/// order is fixed for a given league and device, as the fold's. Beyond, two launches are faster: teams that
/// looped over up to four chunks each in one launch were 3-9 % slower at 1024-2048 chunks.
std::int64_t one_launch_teams(std::int64_t chunks, int team_size, std::int64_t resident_threads);

/// Chunks of four passes for rows of packs take over from two where those are more than four for each resident
/// team (row_chunk_passes).
inline constexpr std::int64_t row_four_passes_per_team = 4;

/// Passes of packs in flight in one chunk of a device reduction over rows of packs, of `chunks` chunks of one
/// pass: one where those run in one launch (one_launch_teams); else four where chunks of four are more than
/// row_four_passes_per_team for each resident team, else two; chunks of several passes take two launches. Each
/// chunk finds its rows (divisions) and reads their edges after its packs (a second round trip): more passes
/// spread that over more packs.
int row_chunk_passes(std::int64_t chunks, int team_size, std::int64_t resident_threads);

/// Device reductions: teams of device_team_size threads, each thread with device_in_flight packs (or elements) of
/// each input in flight (kstream/impl/reduce_kernel.hpp).
inline constexpr int device_team_size = 256, device_in_flight = 4;
/// Device reductions over rows of at least device_row_lanes whole packs, in two launches: each warp reads units of
/// two consecutive rows' packs, device_row_unit_packs of each, and their edges with a row's first unit
/// (DeviceReduction::row_units; RowUnits in kstream/impl/index_math.hpp). A chunk is device_row_unit_sweeps sweeps
/// of a team's warps over consecutive units.
inline constexpr int device_row_lanes = 32, device_row_unit_packs = 2 * device_row_lanes, device_row_unit_sweeps = 2;
inline constexpr int device_row_units_per_chunk = device_team_size / device_row_lanes * device_row_unit_sweeps;
static_assert(device_team_size % device_row_lanes == 0, "a team is whole warps");
/// Warps' units in a pair of rows of `row_packs` whole packs.
constexpr std::int64_t row_units_per_pair(std::int64_t row_packs) {
  return (row_packs + device_row_unit_packs - 1) / device_row_unit_packs;
}
/// Warps' units over `rows` rows of `row_packs` whole packs: their pairs (an odd count's last pair one row).
constexpr std::int64_t row_unit_count(std::int64_t rows, std::int64_t row_packs) {
  return (rows + 1) / 2 * row_units_per_pair(row_packs);
}

/// Elements of one device chunk: `passes` passes of a team's packs in flight (a multiple of W, so packs never
/// straddle chunks); one pass but for rows of packs (row_chunk_passes). Host and device: a plain constexpr function
/// is host-only to nvcc (without --expt-relaxed-constexpr), and a call to it from a kernel is only a warning, after
/// which the kernel does not run the code that calls it.
KOKKOS_INLINE_FUNCTION constexpr std::int64_t device_chunk_items(int W, int passes = 1) {
  return std::int64_t(device_team_size) * device_in_flight * W * passes;
}
/// Device chunks (teams, partial results) of a reduction over n elements: at least one, so n == 0 gives the identity.
KOKKOS_INLINE_FUNCTION constexpr std::int64_t device_chunks(std::int64_t n, int W, int passes = 1) {
  return n <= 0 ? 1 : (n + device_chunk_items(W, passes) - 1) / device_chunk_items(W, passes);
}

/// How a device reduction runs (device_reduction): its chunks and whether they take one launch or two.
struct DeviceReduction {
  bool packed = false;         ///< the plan's packs (rows: each row's whole packs, its edges with them)
  std::int64_t covered = 0;    ///< elements the chunks cover (rows of packs: their whole packs')
  int passes = 1;              ///< passes of packs in flight in a chunk (row_chunk_passes; not with row_units)
  std::int64_t chunks = 1;     ///< chunks of that many passes, or of device_row_units_per_chunk units
  std::int64_t teams = 0;      ///< one launch of this many teams (one_launch_teams), or 0: a team per chunk, then a
                               ///< kernel that folds their partial results
  bool one_team_fold = false;  ///< two launches: one team folds the partials (else Kokkos' parallel_reduce)
  std::int64_t row_units = 0;  ///< rows of packs read in warps' units (two launches): the units, else 0 (the team's
                               ///< threads read consecutive packs or elements)
  int launches() const { return teams > 0 ? 1 : 2; }
};

/// Partial results that one team folds (the second of two launches) at most; Kokkos' parallel_reduce over more
/// spreads their reading over the device. One team (a plain kernel) was 2-5 % faster a call at 1024-4096
/// partials (dot and the fused form, 2^23-2^24 elements) and 0.5-1.2 % slower at 32768-65536 (2^27-2^28).
inline constexpr std::int64_t one_team_fold_partials = 16384;

/// A device reduction planned as `rp`, over elements of which W fill a 16-byte pack, on a device whose
/// concurrency is `resident_threads`: the chunks, their passes, how their rows are read and the launches, for the
/// kernels and for anyone who reports what ran.
DeviceReduction device_reduction(const ReducePlan& rp, int W, std::int64_t resident_threads);

/// Views a reduction takes: eight inputs and a fused output.
inline constexpr int max_reduction_operands = 9;

/// The plan of a reduction over `operands` (operands[orders] orders the dimensions): packs where every operand has
/// the same element size and unit inner stride, and every row of every operand starts at one offset from a 16-byte
/// boundary (none for one dimension) with a whole pack after it.
ReducePlan plan_reduction(const Operand* operands, int count, int orders = 0);

}  // namespace kstream::impl

// The plan of one call (kstream/impl/plan.hpp has the table; docs/engine.md the numbers).
#include <algorithm>
#include <bit>
#include <climits>
#include <kstream/impl/host_square.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/streaming_stores.hpp>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace kstream::impl {

Geometry normalize(const Operand& first, const Operand* rest, int rest_count) {
  Geometry g;
  if (first.rank == 1) {  // (every call of rank 1: kept short)
    g.dims = first.extents[0] == 1 ? 0 : 1;
    g.extents[0] = first.extents[0];
    return g;
  }
  const int count = 1 + rest_count;
  auto stride = [&](int k, int axis) { return k == 0 ? first.strides[axis] : rest[k - 1].strides[axis]; };
  int order[max_rank];
  int m = 0;
  for (int r = 0; r < first.rank; ++r) {
    if (first.extents[r] == 0) {  // nothing to do: one empty dimension
      g.dims = 1;
      g.axes[0] = std::int8_t(r);
      return g;
    }
    if (first.extents[r] != 1) order[m++] = r;
  }
  // Innermost first: by the first operand's strides, then the others', then the smaller extent, then the later axis.
  sort_dimensions(order, m, [&](int a, int b) {
    for (int k = 0; k < count; ++k)
      if (stride(k, a) != stride(k, b)) return stride(k, a) < stride(k, b);
    if (first.extents[a] != first.extents[b]) return first.extents[a] < first.extents[b];
    return a > b;
  });
  for (int j = 0; j < m; ++j) {
    const int axis = order[j];
    if (g.dims > 0) {
      const int d = g.dims - 1;
      bool merges = true;
      for (int k = 0; k < count && merges; ++k) merges = stride(k, axis) == g.extents[d] * stride(k, g.axes[d]);
      if (merges) {
        g.extents[d] *= first.extents[axis];
        continue;
      }
    }
    g.extents[g.dims] = first.extents[axis];
    g.axes[g.dims] = std::int8_t(axis);
    ++g.dims;
  }
  return g;
}

namespace {

/// Every operand of a call in one list, output first.
struct Operands {
  const CallFacts& call;
  int count() const { return 1 + call.inputs; }
  const Operand& operator[](int k) const { return k == 0 ? call.out : call.ins[k - 1]; }
};

/// Whether every row of every operand starts at its first row's offset from a 16-byte boundary: every stride of
/// the outer dimensions is a whole number of packs.
template <class List>
bool rows_share_alignment(const Geometry& g, const List& ops, int count) {
  for (int k = 0; k < count; ++k)
    for (int d = 1; d < g.dims; ++d)
      if (g.stride(ops[k], d) * ops[k].element_bytes % pack_bytes != 0) return false;
  return true;
}

/// Whether every outer extent and every operand's outer strides stay below 2^31 (rows' 32-bit index math).
template <class List>
bool fits_32bit_rows(const Geometry& g, const List& ops, int count) {
  for (int d = 1; d < g.dims; ++d) {
    if (g.extents[d] > INT32_MAX) return false;
    for (int k = 0; k < count; ++k)
      if (g.stride(ops[k], d) > INT32_MAX) return false;
  }
  return true;
}

/// The call along one dimension: n elements, each operand's stride along `axis` (-1: a single element). For rows,
/// n is a row's length and the addresses are the first row's.
struct Facts {
  const CallFacts& call;
  Operands ops;
  int axis;
  std::int64_t n;
  bool packs_allowed;  // rows: every row starts at the first row's alignment
  bool all_contiguous = true;
  bool one_element_size = true;
  std::int64_t operand_bytes = 0;  // every operand's elements once
  std::int64_t spanned = 0;        // every operand's span
  bool fits_32bit_strides = true;
  bool out_is_an_input = false;

  std::int64_t stride(const Operand& v) const { return axis < 0 ? 1 : v.strides[axis]; }

  Facts(const CallFacts& c, int axis_, std::int64_t n_, bool packs_allowed_)
      : call(c), ops{c}, axis(axis_), n(n_), packs_allowed(packs_allowed_) {
    for (int k = 0; k < ops.count(); ++k) {
      const Operand& v = ops[k];
      const std::int64_t s = stride(v);
      all_contiguous = all_contiguous && s == 1;
      one_element_size = one_element_size && v.element_bytes == c.out.element_bytes;
      operand_bytes += n * v.element_bytes;
      spanned += ((n - 1) * s + 1) * v.element_bytes;
      fits_32bit_strides = fits_32bit_strides && s >= INT32_MIN && s <= INT32_MAX;
      if (k > 0) out_is_an_input = out_is_an_input || v.address == c.out.address;
    }
  }
};

std::int64_t round_up(std::int64_t n, std::int64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

/// Elements from the 16-byte boundary at or before element e of v (contiguous) to that element.
int shift_at(const Operand& v, std::int64_t e) {
  return int(((v.address + std::uintptr_t(e) * std::uintptr_t(v.element_bytes)) % pack_bytes) / v.element_bytes);
}

// Device, default shape, strided: one element per index, except elements under 8 bytes whose operands fit the
// device's cache (there the tiled kernel's elements in flight feed the cache's bandwidth).
bool runs_as_elements(const Facts& f) {
  const CallFacts& c = f.call;
  if (!c.device || !c.default_shape || f.all_contiguous || !f.fits_32bit_strides) return false;
  return c.out.element_bytes >= 8 || f.spanned > c.cache_bytes;
}

bool packable(const Facts& f, int width) {
  const CallFacts& c = f.call;
  if (!f.packs_allowed || !f.all_contiguous || !f.one_element_size || width == 1) return false;
  const std::uintptr_t misalignment = c.out.address % pack_bytes;
  if (misalignment % std::uintptr_t(c.out.element_bytes) != 0) return false;
  for (int k = 0; k < c.inputs; ++k)
    if (c.ins[k].address % pack_bytes != misalignment) return false;
  return true;
}

// The shifted body starts at the output's first 16-byte boundary, or one pack later where an input's first
// aligned pack would begin before its first element, and ends where the last pack's second aligned input pack
// still ends inside every input (element first + (p + 1) W - shift + W - 1 <= n - 1). False: no such body.
bool shifted_partition(const Facts& f, int width, Plan& p) {
  const CallFacts& c = f.call;
  if (!c.device || c.out.element_bytes >= 4 || !f.packs_allowed || !f.all_contiguous || !f.one_element_size ||
      width == 1 || c.inputs > max_shifted_inputs)
    return false;
  if (c.out.address % c.out.element_bytes != 0) return false;
  for (int k = 0; k < c.inputs; ++k)
    if (c.ins[k].address % c.ins[k].element_bytes != 0) return false;
  const std::int64_t boundary =
      std::int64_t((pack_bytes - c.out.address % pack_bytes) % pack_bytes) / c.out.element_bytes;
  int largest_shift = 0;
  for (int k = 0; k < c.inputs; ++k) largest_shift = std::max(largest_shift, shift_at(c.ins[k], boundary));
  const std::int64_t first = boundary + (boundary < largest_shift ? width : 0);
  const std::int64_t body = std::max<std::int64_t>(0, (f.n - first - width) / width);
  if (body == 0) return false;
  p.head = first;
  p.body_items = body;
  p.tail = f.n - first - body * width;
  for (int k = 0; k < c.inputs; ++k) p.shifts[k] = std::int8_t(shift_at(c.ins[k], first));
  return true;
}

/// Host threads and whether kstream opens the region: the default shape puts a short OpenMP call on the calling
/// thread and a mid-small one on only as many threads as its bytes pay for.
void plan_host_threads(const CallFacts& c, std::int64_t operand_bytes, Plan& p) {
  p.threads = std::max(1, c.threads);
  if (c.default_shape && c.may_run_inline && p.threads > 1) {
    if (operand_bytes <= calling_thread_bytes(p.threads)) {
      p.threads = 0;
    } else if (c.own_region) {
      p.threads = threads_for(operand_bytes, p.threads);
    }
  }
  p.own_region = c.own_region && p.threads > 0;
}

/// The table's one-dimension rows (a flat call, or one row of a rows call) into p.
void plan_along(const Facts& f, Plan& p) {
  const CallFacts& c = f.call;
  const int width = f.one_element_size ? elements_per_pack(c.out.element_bytes) : 1;
  p.body_items = f.n;
  if (runs_as_elements(f)) {
    p.strategy = Strategy::elements;
    p.league = f.n;
    return;
  }
  if (packable(f, width)) {
    p.strategy = Strategy::packed;
    p.width = width;
    const std::int64_t misalignment = std::int64_t(c.out.address % pack_bytes);
    p.head = std::min<std::int64_t>(f.n, ((pack_bytes - misalignment) % pack_bytes) / c.out.element_bytes);
    p.body_items = (f.n - p.head) / width;
    p.tail = f.n - p.head - p.body_items * width;
  } else if (shifted_partition(f, width, p)) {
    p.strategy = Strategy::shifted;
    p.width = width;
  } else {
    p.strategy = f.all_contiguous ? Strategy::contiguous : Strategy::strided;
  }
  const bool unit_output = f.stride(c.out) == 1;
  p.streaming_stores = p.strategy != Strategy::strided && !c.device &&
                       host_streams(c.out, unit_output, f.out_is_an_input, f.operand_bytes);

  // Single-element strategies keep one pack's worth of elements in flight; packs_in_flight > 1 repeats that
  // (more chunks), as shifted packs do. Only packed packs keep several packs in flight.
  const bool packs_in_flight = p.strategy == Strategy::packed;
  if (c.device) {
    p.team_size = c.shape.team_size;
    p.items_in_flight = packs_in_flight                   ? c.shape.packs_in_flight
                        : p.strategy == Strategy::shifted ? 1
                                                          : elements_per_pack(c.out.element_bytes);
    p.chunks_per_thread = c.shape.chunks_per_thread * (packs_in_flight ? 1 : c.shape.packs_in_flight);
  } else {
    plan_host_threads(c, f.operand_bytes, p);
    std::int64_t tile = c.shape.tile_packs() * (packs_in_flight ? 1 : elements_per_pack(c.out.element_bytes));
    if (c.default_shape) tile = (p.body_items + std::max(p.threads, 1) - 1) / std::max(p.threads, 1);
    p.host_tile_items = std::max<std::int64_t>(tile, 1);
  }
  p.league = std::max<std::int64_t>(1, (p.body_items + p.tile_items() - 1) / p.tile_items());
}

/// Several dimensions on a device: rows of the table's strategies where every operand's rows are long runs of
/// adjacent elements (false where they are not: the call runs general).
bool plan_device_rows(const CallFacts& c, Plan& p) {
  const Geometry& g = p.geometry;
  const Operands ops{c};
  for (int k = 0; k < ops.count(); ++k)
    if (!g.unit_inner(ops[k])) return false;
  const std::int64_t row = g.extents[0], rows = g.size() / row;
  // A row shorter than a warp's packs runs general.
  if (row * c.out.element_bytes < std::int64_t(c.warp_size) * pack_bytes || rows > INT32_MAX ||
      !fits_32bit_rows(g, ops, ops.count()))
    return false;
  plan_along(Facts(c, g.axes[0], row, rows_share_alignment(g, ops, ops.count())), p);
  if (p.strategy == Strategy::packed) {  // packed rows keep one pack in flight per round, as the other rows
    p.chunks_per_thread *= p.items_in_flight;
    p.items_in_flight = 1;
  }
  if (c.default_shape) {  // a team no larger than its row: whole warps, at most the default's threads
    const std::int64_t per_thread = std::int64_t(p.items_in_flight) * p.chunks_per_thread;
    const std::int64_t threads = (p.body_items + per_thread - 1) / per_thread;
    p.team_size = int(std::min<std::int64_t>(p.team_size, round_up(threads, c.warp_size)));
  }
  p.league = std::max<std::int64_t>(1, (p.body_items + p.tile_items() - 1) / p.tile_items());
  if (p.league * rows > INT_MAX) return false;
  p.league *= rows;
  p.rows = rows;
  return true;
}

/// Whether an operand runs along dimension d (unit stride) and not along the innermost.
bool runs_across(const Geometry& g, const Operand& op, int d) {
  return g.stride(op, 0) != 1 && g.stride(op, d) == 1;
}

/// The dimension an input runs along (unit stride) where the output runs along its innermost and that input does
/// not (a transpose, a mixed layout): the general call's tiles take it with the innermost; -1 where none.
std::int8_t cross_dimension(const CallFacts& c, const Geometry& g) {
  const Operands ops{c};
  if (g.stride(c.out, 0) != 1) return -1;
  for (int k = 1; k < ops.count(); ++k)
    for (int d = 1; d < g.dims; ++d)
      if (runs_across(g, ops[k], d)) return std::int8_t(d);
  return -1;
}

/// Whether device tiles may move whole 16-byte packs (Plan::width): one element size, every operand aligned to
/// a pack, out and the inputs read from memory along the innermost dimension, the staged inputs along the cross
/// one, and every other stride whole packs, so that each run of a pack's elements along those dimensions starts
/// on a pack boundary.
bool tiles_in_packs(const Geometry& g, const Operands& ops, int cross, std::uint32_t staged) {
  const int width = elements_per_pack(ops[0].element_bytes);
  if (width == 1) return false;
  for (int k = 0; k < ops.count(); ++k) {
    const int along = k > 0 && (staged >> (k - 1) & 1) ? cross : 0;
    if (ops[k].element_bytes != ops[0].element_bytes || ops[k].address % pack_bytes != 0 ||
        g.stride(ops[k], along) != 1)
      return false;
    for (int d = 0; d < g.dims; ++d)
      if (d != along && g.stride(ops[k], d) % width != 0) return false;
  }
  return true;
}

/// Several dimensions that do not run as rows on a device: general, 32-bit index math where it fits.
void plan_device_general(const CallFacts& c, Plan& p) {
  const Operands ops{c};
  const Geometry& g = p.geometry;
  p.strategy = Strategy::general;
  p.body_items = g.size();
  p.items_in_flight = elements_per_pack(c.out.element_bytes);  // the flattened order: groups of general_lanes
  const std::int64_t group = std::int64_t(general_lanes) * p.items_in_flight;
  p.league = (p.body_items + group - 1) / group * general_lanes;
  p.wide_indices = p.body_items > INT32_MAX;
  for (int d = 0; d < g.dims; ++d) p.wide_indices = p.wide_indices || g.extents[d] > INT32_MAX;
  for (int k = 0; k < ops.count(); ++k) {
    std::int64_t last = 0;  // the span in elements, from the element at 0 to the farthest
    for (int d = 0; d < g.dims; ++d) last += (g.extents[d] - 1) * g.stride(ops[k], d);
    p.wide_indices = p.wide_indices || last > INT32_MAX;
  }
  if (p.wide_indices) return;
  p.cross_dim = cross_dimension(c, g);
  if (p.cross_dim < 0) return;
  // The edge: tile rows of transpose_row_bytes of the smallest element, halved while the inputs along the cross
  // dimension do not all fit the team's scratch; at the smallest edge they go through it in order while it holds.
  const auto along_cross = [&](int k) { return runs_across(g, ops[k], p.cross_dim); };
  const auto staged_bytes = [&](int k, int edge) {
    return std::int64_t(edge) * (edge + 1) * ops[k].element_bytes + 16;
  };
  int smallest = ops[0].element_bytes;
  for (int k = 1; k < ops.count(); ++k) smallest = std::min(smallest, ops[k].element_bytes);
  int edge =
      std::clamp(int(std::bit_floor(unsigned(transpose_row_bytes / smallest))), transpose_min_edge, transpose_max_edge);
  for (; edge > transpose_min_edge; edge /= 2) {
    std::int64_t all = 0;
    for (int k = 1; k < ops.count(); ++k) all += along_cross(k) ? staged_bytes(k, edge) : 0;
    if (all <= c.scratch_bytes) break;
  }
  const std::int64_t tiles = round_up(g.extents[0], edge) / edge * (round_up(g.extents[p.cross_dim], edge) / edge) *
                             (p.body_items / g.extents[0] / g.extents[p.cross_dim]);
  if (tiles > INT_MAX) {  // more teams than a TeamPolicy holds: the untiled order
    p.cross_dim = -1;
    return;
  }
  p.league = tiles;
  p.team_size = transpose_team;
  p.items_in_flight = transpose_in_flight;
  p.tile_edge = edge;
  std::int64_t scratch = 0;
  for (int k = 1; k < ops.count(); ++k) {
    if (along_cross(k) && scratch + staged_bytes(k, edge) <= c.scratch_bytes) {
      p.staged |= 1u << (k - 1);
      scratch += staged_bytes(k, edge);
    }
  }
  p.width = tiles_in_packs(g, ops, p.cross_dim, p.staged) ? elements_per_pack(c.out.element_bytes) : 1;
  if (p.width > 1) p.items_in_flight = transpose_packs_in_flight(p.width);
}

/// Several dimensions on a host: tiles of the flattened index, each one thread's walk row by row.
void plan_host_walk(const CallFacts& c, Plan& p) {
  const Operands ops{c};
  const Geometry& g = p.geometry;
  std::int64_t n = g.size();
  bool unit = true, out_is_an_input = false;
  std::int64_t operand_bytes = 0;
  for (int k = 0; k < ops.count(); ++k) {
    unit = unit && g.unit_inner(ops[k]);
    operand_bytes += n * ops[k].element_bytes;
    if (k > 0) out_is_an_input = out_is_an_input || ops[k].address == c.out.address;
  }
  p.strategy = unit ? Strategy::contiguous : Strategy::general;
  p.rows = n / g.extents[0];
  p.body_items = n;
  p.streaming_stores = !c.device && host_streams(c.out, g.unit_inner(c.out), out_is_an_input, operand_bytes);
  plan_host_threads(c, operand_bytes, p);
  std::int64_t tile = c.shape.tile_packs() * elements_per_pack(c.out.element_bytes);
  if (!unit) p.cross_dim = cross_dimension(c, g);
  if (p.cross_dim >= 0) {  // tiles of whole blocks (walk_blocks): body_items and the tile count blocks
    bool aliased = false, squares = host_square_edge(c.out.element_bytes) > 0;
    for (int k = 1; k < ops.count(); ++k) {
      aliased = aliased ||
                (g.stride(ops[k], 0) != 1 && g.stride(ops[k], 0) * ops[k].element_bytes % host_aliasing_bytes == 0);
      squares = squares && (g.stride(ops[k], 0) == 1 ||
                            (ops[k].element_bytes == c.out.element_bytes && g.stride(ops[k], p.cross_dim) == 1));
    }
    p.block_inner = !aliased  ? host_block_inner
                    : squares ? host_aliased_square_inner
                              : int(std::max<std::int64_t>(1, host_line_bytes / c.out.element_bytes));
    p.block_cross = aliased ? host_aliased_cross : host_block_cross;
    p.body_items = n = round_up(g.extents[0], p.block_inner) / p.block_inner *
                       (round_up(g.extents[p.cross_dim], p.block_cross) / p.block_cross) *
                       (n / g.extents[0] / g.extents[p.cross_dim]);
    tile = std::max<std::int64_t>(1, tile / (std::int64_t(p.block_inner) * p.block_cross));
  }
  if (c.default_shape) tile = (n + std::max(p.threads, 1) - 1) / std::max(p.threads, 1);
  p.host_tile_items = std::max<std::int64_t>(tile, 1);
  p.league = (n + p.host_tile_items - 1) / p.host_tile_items;
}

/// The teams of team_size threads that fill half a device's resident threads (at least one).
std::int64_t resident_teams(int team_size, std::int64_t resident_threads) {
  return std::max<std::int64_t>(1, resident_threads / (2 * std::int64_t(team_size)));
}

}  // namespace

bool host_streams(const Operand& out, bool unit_output, bool out_is_an_input, std::int64_t operand_bytes) {
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__)
  if (out_is_an_input || !unit_output) return false;  // an aliased output is re-read right away
  if (elements_per_pack(out.element_bytes) == 1 || out.address % out.element_bytes != 0) return false;
  switch (streaming_stores()) {
    case StreamingStores::never:
      return false;
    case StreamingStores::always:
      return true;
    case StreamingStores::automatic:
      return operand_bytes >= 2 * last_level_cache_bytes();
  }
#endif
  static_cast<void>(out);
  static_cast<void>(unit_output);
  static_cast<void>(out_is_an_input);
  static_cast<void>(operand_bytes);
  return false;
}

std::int64_t one_launch_teams(std::int64_t chunks, int team_size, std::int64_t resident_threads) {
  return chunks <= resident_teams(team_size, resident_threads) ? chunks : 0;
}

int row_chunk_passes(std::int64_t chunks, int team_size, std::int64_t resident_threads) {
  if (one_launch_teams(chunks, team_size, resident_threads) > 0) return 1;
  return (chunks + 3) / 4 > row_four_passes_per_team * resident_teams(team_size, resident_threads) ? 4 : 2;
}

DeviceReduction device_reduction(const ReducePlan& rp, int W, std::int64_t resident_threads) {
  DeviceReduction d;
  d.packed = W > 1 && rp.width == W;
  const bool rows = rp.rows > 1;
  d.covered = rows && d.packed ? rp.rows * rp.row_packs() * W : rp.n;
  const std::int64_t one_pass = device_chunks(d.covered, W);  // chunks of one pass: one launch or two
  d.passes = rows && d.packed ? row_chunk_passes(one_pass, device_team_size, resident_threads) : 1;
  d.chunks = device_chunks(d.covered, W, d.passes);
  d.teams = one_launch_teams(one_pass, device_team_size, resident_threads);
  // Rows of at least a warp's packs, past one launch: warps' units of two rows (docs/engine.md). The team's threads
  // on consecutive packs cross into the next row at almost every step there, and each such step divides; a chunk
  // of one pass runs in one launch, whose kernel has no launch bounds.
  if (rows && d.packed && d.teams == 0 && rp.row_packs() >= device_row_lanes) {
    const std::int64_t units = row_unit_count(rp.rows, rp.row_packs());
    if (units < INT32_MAX) {
      d.row_units = units;
      d.chunks = (units + device_row_units_per_chunk - 1) / device_row_units_per_chunk;
    }
  }
  d.one_team_fold = d.teams == 0 && d.chunks <= one_team_fold_partials;
  return d;
}

const char* strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::packed:
      return "packed";
    case Strategy::contiguous:
      return "contiguous";
    case Strategy::shifted:
      return "shifted";
    case Strategy::strided:
      return "strided";
    case Strategy::elements:
      return "elements";
    case Strategy::general:
      return "general";
  }
  return "unknown";
}

std::string plan_name(const Plan& p) {
  const std::string strategy = strategy_name(p.strategy);
  if (p.strategy == Strategy::general)
    return p.cross_dim < 0 ? strategy : strategy + (p.tile_edge > 0 ? "/tiles" : "/blocks");
  return p.rows > 1 ? "rows/" + strategy : strategy;
}

const char* kernel_label(const char* call, const Plan& p) {
  static std::mutex lock;
  static std::set<std::string> labels;
  std::string label = std::string(call) + "[" + plan_name(p) + "]";
  const std::lock_guard<std::mutex> hold(lock);
  return labels.insert(std::move(label)).first->c_str();
}

Plan plan(const CallFacts& c) {
  validate(c.shape, c.label);
  Plan p;
  p.geometry = normalize(c.out, c.ins, c.inputs);
  const Geometry& g = p.geometry;
  if (g.size() == 0) {
    p.league = 0;
    return p;
  }
  if (g.dims <= 1) {
    plan_along(Facts(c, g.dims == 0 ? -1 : g.axes[0], g.size(), true), p);
  } else if (!c.device) {
    plan_host_walk(c, p);
  } else if (!plan_device_rows(c, p)) {
    const Geometry kept = g;
    p = Plan{};
    p.geometry = kept;
    plan_device_general(c, p);
  }
  if (c.device && p.league > INT_MAX && p.strategy != Strategy::elements && p.strategy != Strategy::general)
    throw std::length_error(std::string(c.label) + ": " + std::to_string(g.size()) +
                            " elements need more teams than a TeamPolicy holds; use a larger tile shape");
  return p;
}

ReducePlan plan_reduction(const Operand* operands, int count, int orders) {
  ReducePlan r;
  Operand rest[max_reduction_operands - 1];
  if (count < 1 || count > max_reduction_operands)
    throw std::invalid_argument("kstream: a reduction takes 1 to " + std::to_string(max_reduction_operands) + " views");
  for (int k = 0, j = 0; k < count; ++k)
    if (k != orders) rest[j++] = operands[k];
  r.geometry = normalize(operands[orders], rest, count - 1);
  const Geometry& g = r.geometry;
  r.n = g.size();
  r.row_length = g.dims <= 1 ? r.n : g.extents[0];
  r.rows = g.dims <= 1 || r.n == 0 ? 1 : r.n / r.row_length;
  const int width = elements_per_pack(operands[0].element_bytes);
  // Every operand's rows start `offset` bytes past a pack boundary (a whole number of elements; none for one row).
  const std::uintptr_t offset = operands[0].address % pack_bytes;
  bool packs = width > 1 && rows_share_alignment(g, operands, count) &&
               offset % std::uintptr_t(operands[0].element_bytes) == 0 && (r.rows > 1 || offset == 0);
  for (int k = 0; k < count; ++k) {
    const Operand& o = operands[k];
    packs = packs && o.element_bytes == operands[0].element_bytes && o.address % pack_bytes == offset &&
            (g.unit_inner(o) || r.row_length <= 1);
  }
  const std::int64_t lead = offset == 0 ? 0 : std::int64_t(pack_bytes - offset) / operands[0].element_bytes;
  if (packs && (r.rows == 1 || r.row_length >= lead + width)) {  // rows: at least one whole pack each
    r.width = width;
    r.row_lead = lead;  // (0 for one row: its start is aligned)
  }
  r.narrow_rows = r.rows <= INT32_MAX && fits_32bit_rows(g, operands, count);
  return r;
}

}  // namespace kstream::impl

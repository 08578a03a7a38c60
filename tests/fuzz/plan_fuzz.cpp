// libFuzzer target on the plan (scripts/fuzz.sh builds and runs it; CI runs it for a bounded time from the
// committed corpus in tests/fuzz/corpus). From random facts (rank 1 to 8, extents, strides, offsets, element
// sizes, inputs, device or host, tile shape) it plans a call with the library's own plan() and checks, and walks
// what each kernel would touch with the engine's own index arithmetic (kstream/impl/index_math.hpp). It aborts
// unless:
//   - every element of the output is written exactly once, at the position of its multi-index;
//   - every input is read at the element of the same multi-index, and no address leaves any operand's elements;
//   - every 16-byte pack a plan moves is aligned and lies inside its view; a plan's head, body and tail cover
//     each row;
//   - the aliasing checks are sound: distinct_elements never claims distinct elements that are not, overlap_of
//     never says none (or exact) of views that share an element (at another index);
//   - a reduction's plan covers every element once in rows, packed only where every row start is aligned;
//   - a reduction along dimensions (random reduced sets, device or host facts) puts every input element into
//     the one output of its kept coordinates exactly once, each output stored once per slice, no address outside
//     the inputs' elements.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <kstream/impl/host_square.hpp>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/overlap.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

namespace {

using namespace kstream;
using namespace kstream::impl;

[[noreturn]] void fail(const char* what, std::int64_t a = 0, std::int64_t b = 0) {
  std::fprintf(stderr, "plan_fuzz: %s (%lld, %lld)\n", what, (long long)a, (long long)b);
  std::abort();
}
#define CHECK(condition, ...) \
  if (!(condition)) fail(#condition __VA_OPT__(, ) __VA_ARGS__)

/// Reads the fuzzer's bytes as small numbers (zeros once they run out).
struct Bytes {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  unsigned next(unsigned below) { return below == 0 ? 0 : (at < size ? data[at++] : 0) % below; }
};

constexpr std::int64_t max_elements = 1 << 12;

/// An operand's element offsets (bytes from the call's base) at every multi-index, the last index fastest.
std::vector<std::int64_t> element_bytes_of(const Operand& o, std::uintptr_t base) {
  std::vector<std::int64_t> list;
  const std::int64_t n = o.size();
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i, offset = 0;
    for (int d = o.rank - 1; d >= 0; --d) {
      offset += (rest % o.extents[d]) * o.strides[d];
      rest /= o.extents[d];
    }
    list.push_back(std::int64_t(o.address - base) + offset * o.element_bytes);
  }
  return list;
}

/// The call under test: operands in one arena (output first), their elements by multi-index, and which input
/// element goes with which output element.
struct Call {
  std::vector<Operand> ops;  // out, inputs
  std::uintptr_t base = std::uintptr_t(1) << 40;
  std::vector<std::vector<std::int64_t>> elements;   // per operand, by flat multi-index
  std::map<std::int64_t, std::int64_t> out_index;    // output byte offset -> flat multi-index
  std::vector<int> writes;                           // per flat multi-index
  std::vector<std::set<std::int64_t>> element_sets;  // per operand

  void prepare() {
    for (const Operand& o : ops) {
      elements.push_back(element_bytes_of(o, base));
      element_sets.emplace_back(elements.back().begin(), elements.back().end());
    }
    for (std::size_t i = 0; i < elements[0].size(); ++i) out_index[elements[0][i]] = std::int64_t(i);
    writes.assign(elements[0].size(), 0);
  }
  /// One element of the call: operand k's element at offset `bytes` (from its own first element's address).
  void touch(std::int64_t out_bytes, const std::vector<std::int64_t>& in_bytes) {
    const auto found = out_index.find(out_bytes);
    CHECK(found != out_index.end(), out_bytes);
    const std::int64_t i = found->second;
    ++writes[i];
    for (std::size_t k = 1; k < ops.size(); ++k)
      CHECK(in_bytes[k - 1] == elements[k][i], in_bytes[k - 1], elements[k][i]);
  }
  void all_written_once() const {
    for (std::size_t i = 0; i < writes.size(); ++i) CHECK(writes[i] == 1, std::int64_t(i), writes[i]);
  }
  std::int64_t at(int k, std::int64_t element_offset) const {
    return std::int64_t(ops[k].address - base) + element_offset * ops[k].element_bytes;
  }
};

/// f(std::integral_constant<int, K>{}) for K = count operands, 2 to 5 (5: more).
template <class F>
void with_operands(int count, const F& f) {
  switch (count) {
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    default:
      return f(std::integral_constant<int, 5>{});
  }
}

/// A 16-byte pack of operand k at byte offset `bytes`: aligned and made of the operand's elements.
void check_pack(const Call& c, int k, std::int64_t bytes) {
  CHECK((c.base + std::uintptr_t(bytes)) % pack_bytes == 0, bytes);
  for (int b = 0; b < pack_bytes; b += c.ops[k].element_bytes)
    CHECK(c.element_sets[k].count(bytes + b) == 1, bytes + b);
}

/// The one-dimension table's partition of a row of `length` elements whose operands start at byte offsets
/// `starts` (stride along the row: `strides`, in elements): what the tiled, elements and host kernels touch.
void walk_row(Call& c, const Plan& p, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& strides,
              std::int64_t length, bool device) {
  const int K = int(c.ops.size());
  auto element = [&](std::int64_t e) {
    std::vector<std::int64_t> in(K - 1);
    for (int k = 1; k < K; ++k) in[k - 1] = starts[k] + e * strides[k] * c.ops[k].element_bytes;
    c.touch(starts[0] + e * strides[0] * c.ops[0].element_bytes, in);
  };
  if (p.strategy == Strategy::packed || p.strategy == Strategy::shifted) {
    CHECK(p.head + p.body_items * p.width + p.tail == length, p.head + p.body_items * p.width + p.tail, length);
    for (std::int64_t e = 0; e < p.head; ++e) element(e);
    for (std::int64_t item = 0; item < p.body_items; ++item) {
      const std::int64_t first = p.head + item * p.width;
      check_pack(c, 0, starts[0] + first * c.ops[0].element_bytes);
      for (int k = 1; k < K; ++k) {
        const std::int64_t bytes = starts[k] + first * c.ops[k].element_bytes;
        if (p.strategy == Strategy::packed) {
          check_pack(c, k, bytes);
        } else {  // the two aligned packs a shifted pack is built from, the second only where shifted
          const int shift = p.shifts[k - 1];
          CHECK(int(((c.base + std::uintptr_t(bytes)) % pack_bytes) / c.ops[k].element_bytes) == shift, shift);
          check_pack(c, k, bytes - shift * c.ops[k].element_bytes);
          if (shift != 0) check_pack(c, k, bytes - shift * c.ops[k].element_bytes + pack_bytes);
        }
      }
      for (int lane = 0; lane < p.width; ++lane) element(first + lane);
    }
    for (std::int64_t e = p.head + p.body_items * p.width; e < length; ++e) element(e);
  } else {
    CHECK(p.body_items == length, p.body_items, length);
    for (std::int64_t e = 0; e < length; ++e) element(e);
  }
  // The launch covers the body: teams (or tiles) times their items, with the guard.
  if (p.strategy != Strategy::elements) {
    const std::int64_t tiles = device ? p.league / std::max<std::int64_t>(p.rows, 1) : p.league;
    CHECK(tiles * p.tile_items() >= p.body_items || p.body_items == 0, tiles * p.tile_items(), p.body_items);
    CHECK(p.body_items == 0 || (tiles - 1) * p.tile_items() < p.body_items, tiles, p.body_items);
  }
}

void check_elementwise(Call& c, const CallFacts& facts) {
  Plan p;
  try {
    p = plan(facts);
  } catch (const std::invalid_argument&) {
    return;  // a bad tile shape
  } catch (const std::length_error&) {
    return;  // more teams than a TeamPolicy holds
  }
  const int K = int(c.ops.size());
  const Geometry& g = p.geometry;
  CHECK(g.size() == c.ops[0].size(), g.size(), c.ops[0].size());
  if (g.size() == 0) {
    CHECK(p.league == 0, p.league);
    return;
  }
  const Operand* pointers[9];
  for (int k = 0; k < K; ++k) pointers[k] = &c.ops[k];
  std::vector<std::int64_t> starts(K), strides(K);
  for (int k = 0; k < K; ++k) starts[k] = c.at(k, 0);
  if (g.dims <= 1) {
    for (int k = 0; k < K; ++k) strides[k] = g.dims == 0 ? 1 : g.stride(c.ops[k], 0);
    walk_row(c, p, starts, strides, g.size(), facts.device);
  } else if (facts.device && p.strategy != Strategy::general) {  // rows, each from its coordinates
    CHECK(p.rows == g.size() / g.extents[0], p.rows);
    // The row kernels are compiled for one pack (shifted, packed) or one pack's worth of elements in flight.
    CHECK(p.items_in_flight == (p.strategy == Strategy::contiguous ? elements_per_pack(c.ops[0].element_bytes) : 1),
          p.items_in_flight);
    CHECK(p.league % p.rows == 0, p.league, p.rows);
    for (int k = 0; k < K; ++k) strides[k] = 1;
    auto rows = [&](auto tag) {
      constexpr int N = decltype(tag)::value;
      const Operand* const(&list)[N] = *reinterpret_cast<const Operand* const(*)[N]>(&pointers);
      const RowStarts<N> row_starts(g, list, 1);
      for (std::int64_t row = 0; row < p.rows; ++row) {
        std::int64_t offset[N];
        row_starts.offsets(std::uint32_t(row), offset);
        std::vector<std::int64_t> at(K);
        for (int k = 0; k < K; ++k) at[k] = c.at(k, offset[k]);
        walk_row(c, p, at, strides, g.extents[0], true);
      }
    };
    with_operands(K, rows);
  } else {  // general (device) or the host's tiles walked row by row
    auto walk = [&](auto tag) {
      constexpr int N = decltype(tag)::value;
      const Operand* const(&list)[N] = *reinterpret_cast<const Operand* const(*)[N]>(&pointers);
      auto visit = [&](const std::int64_t(&offset)[N]) {
        std::vector<std::int64_t> in(K - 1);
        for (int k = 1; k < K; ++k) in[k - 1] = c.at(k, offset[k]);
        c.touch(c.at(0, offset[0]), in);
      };
      if (facts.device && p.cross_dim >= 0) {  // square tiles of the innermost and the cross dimension, a team each
        CHECK(!p.wide_indices && p.league < (std::int64_t(1) << 31) && p.team_size == transpose_team &&
                  p.items_in_flight == (p.width > 1 ? transpose_packs_in_flight(p.width) : transpose_in_flight),
              p.league);
        for (int k = 1; k < N; ++k)  // only inputs along the cross dimension go through scratch
          CHECK(!(p.staged >> (k - 1) & 1) || (g.stride(*list[k], p.cross_dim) == 1 && g.stride(*list[k], 0) != 1), k);
        const TiledCoordinates<N> tiled(g, p.cross_dim, p.tile_edge, list);
        CHECK(p.tile_edge >= transpose_min_edge && p.tile_edge <= transpose_max_edge &&
                  (p.tile_edge & (p.tile_edge - 1)) == 0,
              p.tile_edge);
        std::int64_t scratch = 0;  // the staged inputs fit the team's scratch
        for (int k = 1; k < N; ++k)
          scratch += (p.staged >> (k - 1) & 1)
                         ? std::int64_t(p.tile_edge) * (p.tile_edge + 1) * list[k]->element_bytes + 16
                         : 0;
        CHECK(scratch <= facts.scratch_bytes, scratch);
        // Groups of p.width elements (TileFunctor: packs where the plan says, a group cut short by the view's
        // edge element by element): out and the inputs read from memory along the innermost, the staged inputs
        // along the cross dimension; every whole group a pack inside its view.
        CHECK(p.width == 1 || p.width == elements_per_pack(c.ops[0].element_bytes), p.width);
        const int width_log2 = std::countr_zero(unsigned(p.width)), groups = p.tile_edge * p.tile_edge / p.width;
        const auto staged = [&](int k) { return k > 0 && (p.staged >> (k - 1) & 1); };
        for (std::int64_t t = 0; t < p.league; ++t) {
          std::int64_t origin[N];
          int inner = 0, cross = 0;
          tiled.tile(std::uint32_t(t), origin, inner, cross);
          CHECK(inner >= 1 && inner <= p.tile_edge && cross >= 1 && cross <= p.tile_edge, inner, cross);
          for (int g = 0; g < groups; ++g) {
            int along = 0, across = 0;
            tiled.group(g, width_log2, along, across);
            CHECK(along < p.tile_edge && across < p.tile_edge && along % p.width == 0, along, across);
            for (int k = 1; k < N && p.width > 1; ++k)  // the staging: along the cross dimension
              if (staged(k) && across < inner && along + p.width <= cross)
                check_pack(c, k, c.at(k, origin[k] + tiled.at(k, across, along)));
            if (along >= inner || across >= cross) continue;  // the writing: along the innermost
            for (int k = 0; k < N && p.width > 1; ++k)
              if (!staged(k) && along + p.width <= inner)
                check_pack(c, k, c.at(k, origin[k] + tiled.at(k, along, across)));
            for (int j = 0; j < p.width && along + j < inner; ++j) {
              std::int64_t offset[N];
              for (int k = 0; k < N; ++k) offset[k] = origin[k] + tiled.at(k, along + j, across);
              visit(offset);
            }
          }
        }
      } else if (facts.device) {
        const int items = p.items_in_flight;  // GeneralFunctor's order: groups of general_lanes indices
        const std::int64_t group = std::int64_t(general_lanes) * items;
        CHECK(p.body_items == g.size() && items == elements_per_pack(c.ops[0].element_bytes) &&
                  p.league == (g.size() + group - 1) / group * general_lanes,
              p.league, items);
        const Coordinates<N, max_rank> narrow(g, list, 0);
        const Strides<N> wide(g, list);
        for (std::int64_t t = 0; t < p.league; ++t)
          for (int a = 0; a < items; ++a) {
            const std::int64_t i = t / general_lanes * group + a * general_lanes + t % general_lanes;
            if (i >= p.body_items) continue;
            std::int64_t offset[N], check[N];
            wide.offsets(i, offset);
            if (!p.wide_indices) {
              narrow.offsets(std::uint32_t(i), check);
              for (int k = 0; k < N; ++k) CHECK(check[k] == offset[k], check[k], offset[k]);
            }
            visit(offset);
          }
      } else {  // the host's tiles: of the flattened index, or of blocks along the cross dimension
        const Strides<N> s(g, list);
        const auto each = [&](const std::int64_t(&offset)[N], std::int64_t length) {
          for (std::int64_t j = 0; j < length; ++j) {
            std::int64_t at[N];
            for (int k = 0; k < N; ++k) at[k] = offset[k] + j * s.stride[k][0];
            visit(at);
          }
        };
        CHECK(p.cross_dim < 0 || p.body_items < g.size(), p.body_items);  // whole blocks of several elements
        for (std::int64_t tile = 0; tile < p.league; ++tile) {
          const std::int64_t first = tile * p.host_tile_items;
          const std::int64_t last = std::min(p.body_items, first + p.host_tile_items);
          if (p.cross_dim >= 0) {
            CHECK(p.block_inner >= 1 && p.block_cross >= 1, p.block_inner, p.block_cross);
            // each block in squares of the output's host edge (as HostWalkFunctor where its layouts allow)
            const int edge = host_square_edge(list[0]->element_bytes), cross = p.cross_dim;
            const auto square = [&](const std::int64_t(&corner)[N]) {
              for (int c = 0; c < edge; ++c)
                for (int i = 0; i < edge; ++i) {
                  std::int64_t at[N];
                  for (int k = 0; k < N; ++k) at[k] = corner[k] + c * s.stride[k][cross] + i * s.stride[k][0];
                  visit(at);
                }
            };
            walk_blocks(s, cross, p.block_inner, p.block_cross, first, last,
                        [&](const std::int64_t(&offset)[N], std::int64_t length, std::int64_t rows) {
                          split_block(s, cross, offset, length, rows, edge, square, each);
                        });
          } else {
            walk_runs(s, first, last, each);
          }
        }
        CHECK((p.league - 1) * p.host_tile_items < p.body_items, p.league);
      }
    };
    switch (K) {
      case 2:
        walk(std::integral_constant<int, 2>{});
        break;
      case 3:
        walk(std::integral_constant<int, 3>{});
        break;
      case 4:
        walk(std::integral_constant<int, 4>{});
        break;
      default:
        walk(std::integral_constant<int, 5>{});
        break;
    }
  }
  c.all_written_once();
}

/// The aliasing checks against brute force over the elements' bytes.
void check_overlap(const Call& c) {
  const auto& out = c.elements[0];
  std::set<std::int64_t> out_bytes;
  bool repeats = false;
  for (const std::int64_t e : out)
    for (int b = 0; b < c.ops[0].element_bytes; ++b) repeats = !out_bytes.insert(e + b).second || repeats;
  if (repeats) CHECK(!distinct_elements(c.ops[0]));
  if (!distinct_elements(c.ops[0])) return;
  for (std::size_t k = 1; k < c.ops.size(); ++k) {
    const Overlap o = overlap_of(c.ops[0], c.ops[k]);
    bool shares = false, shares_elsewhere = false;
    std::map<std::int64_t, std::size_t> byte_index;  // output byte -> flat index
    for (std::size_t i = 0; i < out.size(); ++i)
      for (int b = 0; b < c.ops[0].element_bytes; ++b) byte_index[out[i] + b] = i;
    for (std::size_t i = 0; i < c.elements[k].size(); ++i)
      for (int b = 0; b < c.ops[k].element_bytes; ++b) {
        const auto found = byte_index.find(c.elements[k][i] + b);
        if (found == byte_index.end()) continue;
        shares = true;
        shares_elsewhere = shares_elsewhere || found->second != i || c.ops[k].element_bytes != c.ops[0].element_bytes ||
                           c.elements[k][i] != out[i];
      }
    if (o == Overlap::none) CHECK(!shares, std::int64_t(k));
    if (o == Overlap::exact) CHECK(!shares_elsewhere, std::int64_t(k));
  }
}

/// A device reduction over rows: chunks of 256 x 4 x W elements of the flattened rows (rows of packs: of their
/// whole packs, in chunks of one, two and four passes, as row_chunk_passes gives large calls), 256 threads each, every
/// thread's items one team apart, its row from a RowCursor, then the edges of the rows whose first pack the chunk
/// holds; and rows of at least a warp's packs in warps' units (RowUnits, DeviceReduction::row_units), as
/// DeviceReduceTiles reads them. Every element once, at the operands' elements of its multi-index (the first
/// operand orders the dimensions here); packs aligned in every operand.
void check_reduction(Call& c) {
  const int count = int(c.ops.size());
  const ReducePlan r = plan_reduction(c.ops.data(), count, 0);
  CHECK(r.n == c.ops[0].size(), r.n);
  if (r.n == 0) return;
  CHECK(r.rows * r.row_length == r.n, r.rows, r.row_length);
  if (r.width > 1) {  // every row lead elements before a pack boundary, every operand contiguous along its rows
    for (const Operand& o : c.ops) {
      CHECK(std::int64_t((o.address + std::uintptr_t(r.row_lead * o.element_bytes)) % pack_bytes) == 0, r.row_lead);
      CHECK(r.geometry.unit_inner(o) || r.row_length <= 1);
    }
    CHECK(r.rows > 1 || r.row_lead == 0, r.row_lead);
    CHECK(r.rows == 1 || (r.row_packs() >= 1 && r.row_lead < r.width), r.row_length, r.row_lead);
  }
  if (r.rows == 1 || !r.narrow_rows || count > 5) return;
  const int V = r.width, threads = 256, W = elements_per_pack(c.ops[0].element_bytes);
  const RowItems row = V > 1 ? RowItems(r.row_lead, V, r.row_length) : RowItems(0, 1, r.row_length);
  CHECK(row.items == (V > 1 ? r.row_packs() : r.row_length), row.items);
  const std::int64_t per_row = row.items, covered = r.rows * per_row * V, lead = row.lead;
  FastDivider rows_of;
  std::vector<int> seen;
  std::int64_t chunk = 0;
  bool units = false;
  auto walk = [&](auto tag) {
    constexpr int N = decltype(tag)::value;
    const Operand* list[N];
    for (int k = 0; k < N; ++k) list[k] = &c.ops[k];
    const RowStarts<N> starts(r.geometry, list, 1);
    const auto visit = [&](const std::int64_t(&base)[N], std::int64_t e) {  // element e of the row at base
      CHECK(e >= 0 && e < r.row_length, e);
      const std::int64_t out = c.at(0, base[0] + e * r.geometry.stride(c.ops[0], 0));
      const auto found = c.out_index.find(out);
      CHECK(found != c.out_index.end(), out);
      ++seen[std::size_t(found->second)];
      for (int k = 1; k < N; ++k)
        CHECK(c.at(k, base[k] + e * r.geometry.stride(c.ops[k], 0)) == c.elements[k][found->second]);
    };
    const auto check_packs = [&](const std::int64_t(&base)[N], std::int64_t at) {  // pack `at` of the row at base
      if (V > 1)
        for (int k = 0; k < N; ++k) check_pack(c, k, c.at(k, base[k] + lead + at * V));
      for (int lane = 0; lane < V; ++lane) visit(base, lead + at * V + lane);
    };
    if (units) {  // chunks of 16 units, warps (32 threads) 8 units apart
      const RowUnits of(r.rows, per_row);
      const std::int64_t count = row_unit_count(r.rows, per_row);
      for (std::int64_t first = 0; first < count; first += device_row_units_per_chunk)
        for (int warp = 0; warp < threads / device_row_lanes; ++warp)
          for (std::int64_t u = first + warp; u < std::min(count, first + device_row_units_per_chunk);
               u += threads / device_row_lanes) {
            const RowUnits::Unit unit = of.at(std::uint32_t(u));
            CHECK(unit.row < r.rows && unit.pack < per_row && row.edges <= device_row_lanes, std::int64_t(unit.row),
                  unit.pack);
            for (int j = 0; j < (unit.two ? 2 : 1); ++j) {
              std::int64_t base[N];
              starts.offsets(unit.row + std::uint32_t(j), base);
              for (int lane = 0; lane < device_row_lanes; ++lane) {
                for (int s = 0; s < 2; ++s)
                  if (unit.pack + s * device_row_lanes + lane < per_row)
                    check_packs(base, unit.pack + s * device_row_lanes + lane);
                if (unit.pack == 0 && lane < row.edges) visit(base, row.column(lane));
              }
            }
          }
      return;
    }
    for (std::int64_t first = 0; first < covered; first += chunk) {
      const std::int64_t last = std::min(covered, first + chunk), end = last / V;
      for (int rank = 0; rank < threads; ++rank) {
        std::int64_t item = first / V + rank;
        if (item >= end) continue;
        RowCursor<N> cursor(starts, per_row, item);
        for (; item < end; item += threads) {
          check_packs(cursor.base, cursor.at);
          cursor.advance(starts, rows_of, threads);
        }
      }
      if (V == 1 || row.edges == 0) continue;
      const std::int64_t from = row.row_from(first / V), edge_count = (row.row_from(last / V) - from) * row.edges;
      CHECK(edge_count < INT32_MAX, edge_count);
      for (std::int64_t j = 0; j < edge_count; ++j) {
        std::int64_t base[N];
        starts.offsets(std::uint32_t(from + j / row.edges), base);
        visit(base, row.column(j % row.edges));
      }
    }
  };
  // rows of packs: one pass, two and four, then (rows of a warp's packs) units
  for (int passes = 1; passes <= (V > 1 ? 8 : 1); passes *= 2) {
    units = passes == 8;
    if (units && per_row < device_row_lanes) break;
    chunk = std::int64_t(threads) * 4 * W * passes;
    rows_of = rows_divider(per_row, threads);
    seen.assign(std::size_t(r.n), 0);
    with_operands(count, walk);
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == 1, std::int64_t(i), passes);
  }
}

/// A reduction along the dimensions in `reduced` of inputs ops[1..] into ops[0] with stride 0 on them (its kept
/// dimensions' layout its own), walked as DeviceAlongTiles (AlongLanes::place, Coordinates) or HostAlongTiles
/// (AlongLanes::tile, walk_runs) read it: every input element once, in the output of its kept coordinates, with
/// every input at its element of the same multi-index; each output's slices stored once; on a device the fold's
/// teams (FoldAlong) reading each partial once and writing each output once.
void check_along(Call& c, const ReducedDims& reduced, bool device, int team_size) {
  Operand widened = c.ops[0], kept_only;
  kept_only.address = widened.address;
  kept_only.element_bytes = widened.element_bytes;
  kept_only.rank = 0;
  for (int d = 0; d < widened.rank; ++d) {
    if (reduced.has(d)) {
      widened.strides[d] = 0;
    } else {
      kept_only.extents[kept_only.rank] = widened.extents[d];
      kept_only.strides[kept_only.rank++] = widened.strides[d];
    }
  }
  if (!distinct_elements(kept_only)) return;  // refused by the checks
  if (!distinct_elements(c.ops[1])) return;   // (elements are told apart by input 0's addresses here)
  const int count = int(c.ops.size()) - 1;
  AlongPlan p;
  try {
    p = plan_along(AlongFacts{device, std::int64_t(1) << (team_size % 16), 1 << (team_size % 9)}, reduced, widened,
                   c.ops.data() + 1, count, "fuzz");
  } catch (const std::length_error&) {
    return;
  }
  const std::int64_t n = c.ops[1].size();
  CHECK(p.outputs * p.length == n || n == 0, p.outputs, p.length);
  if (p.outputs == 0) return;
  std::map<std::int64_t, std::int64_t> in_index;  // input 0's byte offset -> flat multi-index
  for (std::size_t i = 0; i < c.elements[1].size(); ++i) in_index[c.elements[1][i]] = std::int64_t(i);
  std::vector<int> seen(std::size_t(n), 0);
  std::map<std::int64_t, int> stores;  // output * slices + slice -> stores
  const Geometry& g = p.geometry;
  const Geometry kept = geometry_part(g, g.reduced, g.dims), across = geometry_part(g, 0, g.reduced);
  // Element offsets[k] of every input and the widened result's offset `at` for an output.
  const auto visit = [&](const std::vector<std::int64_t>& offsets, std::int64_t at) {
    const auto found = in_index.find(c.at(1, offsets[0]));
    CHECK(found != in_index.end(), offsets[0]);
    const std::int64_t i = found->second;
    ++seen[std::size_t(i)];
    for (int k = 1; k < count; ++k) CHECK(c.at(k + 1, offsets[k]) == c.elements[k + 1][i], std::int64_t(k), i);
    std::int64_t expected = 0, rest = i;  // the widened result's offset of i's multi-index
    for (int d = widened.rank - 1; d >= 0; --d) {
      expected += rest % widened.extents[d] * widened.strides[d];
      rest /= widened.extents[d];
    }
    CHECK(expected == at, expected, at);
  };
  const AlongLanes lanes = p.lanes();
  auto walk = [&](auto tag) {
    constexpr int K = decltype(tag)::value - 1;  // inputs; the result last
    const Operand* list[K + 1];
    const Operand* inputs[K];
    for (int k = 0; k < K; ++k) list[k] = inputs[k] = &c.ops[k + 1];
    list[K] = &widened;
    std::vector<std::int64_t> offsets(K);
    if (device) {
      CHECK(p.block_outputs * p.reduce_lanes == p.team_size * p.thread_outputs, p.block_outputs, p.reduce_lanes);
      CHECK(p.thread_outputs == 1 || (p.reduce_lanes == 1 && p.slices == 1 && g.reduced <= 1), p.thread_outputs,
            p.slices);
      Geometry table = g;  // as DeviceAlongTiles: one table of every dimension
      if (g.reduced == 1) table.extents[0] = 1;
      const Coordinates<K + 1, max_rank> coordinates(table, list, 0);
      for (std::int64_t team = 0; team < p.league; ++team)
        for (int rank = 0; rank < p.team_size; ++rank) {
          const AlongLanes::Place at = lanes.place(team, rank);
          CHECK(at.lane < p.reduce_lanes && at.block_output < p.block_outputs, at.lane, at.block_output);
          for (int owned = 0; owned < p.thread_outputs; ++owned) {  // (the Apart launch: a team's width apart)
            const std::int64_t output = at.output + std::int64_t(owned) * p.team_size;
            if (output >= p.outputs) continue;
            std::int64_t base[K + 1];
            coordinates.offsets(std::uint32_t(output), g.reduced, g.dims, base);
            if (at.lane == 0) ++stores[output * p.slices + at.slice];
            for (std::int64_t j = at.first; j < at.last; j += p.reduce_lanes) {
              std::int64_t step[K + 1] = {};
              if (g.reduced <= 1) {
                for (int k = 0; k < K; ++k) step[k] = g.dims > 0 ? j * g.stride(*list[k], 0) : 0;
              } else {
                coordinates.offsets(std::uint32_t(j), 0, g.reduced, step);
              }
              for (int k = 0; k < K; ++k) offsets[k] = base[k] + step[k];
              visit(offsets, base[K]);
            }
          }
        }
    } else {
      const Strides<K + 1> outputs(kept, list);
      const Strides<K> elements(across, inputs);
      for (std::int64_t t = 0; t < p.league; ++t) {
        const AlongLanes::Tile tile = lanes.tile(t);
        std::int64_t o = tile.first_output;
        walk_runs(outputs, tile.first_output, tile.last_output,
                  [&](const std::int64_t(&offset)[K + 1], std::int64_t run) {
                    CHECK(!p.outer || run <= along_host_outputs, run);
                    for (std::int64_t a = 0; a < run; ++a, ++o) {
                      ++stores[o * p.slices + tile.slice];
                      walk_runs(elements, tile.first, tile.last, [&](const std::int64_t(&at)[K], std::int64_t length) {
                        for (std::int64_t e = 0; e < length; ++e) {
                          for (int k = 0; k < K; ++k)
                            offsets[k] = offset[k] + a * outputs.stride[k][0] + at[k] + e * elements.stride[k][0];
                          visit(offsets, offset[K] + a * outputs.stride[K][0]);
                        }
                      });
                    }
                  });
      }
    }
  };
  with_operands(count + 1, walk);
  for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == 1, std::int64_t(i), seen[i]);
  CHECK(std::int64_t(stores.size()) == p.outputs * p.slices, std::int64_t(stores.size()), p.outputs * p.slices);
  for (const auto& [key, times] : stores) CHECK(times == 1, key, times);
  if (device && p.slices > 1) {  // the fold's teams (FoldAlong): every partial read once, every output written once
    CHECK(p.fold_lanes >= 1 && p.fold_lanes <= p.team_size && (p.fold_lanes & (p.fold_lanes - 1)) == 0, p.fold_lanes,
          p.team_size);
    std::vector<int> read(std::size_t(p.outputs * p.slices), 0), written(std::size_t(p.outputs), 0);
    for (std::int64_t team = 0; team < p.fold_league; ++team)
      for (int rank = 0; rank < p.team_size; ++rank) {
        const int lane = rank % p.fold_lanes, block_output = rank / p.fold_lanes;
        const std::int64_t o = team * (p.team_size / p.fold_lanes) + block_output;
        if (o >= p.outputs) continue;
        if (lane == 0) ++written[std::size_t(o)];
        for (std::int64_t s = lane; s < p.slices; s += p.fold_lanes) ++read[std::size_t(o * p.slices + s)];
      }
    for (std::size_t i = 0; i < read.size(); ++i) CHECK(read[i] == 1, std::int64_t(i), read[i]);
    for (std::size_t o = 0; o < written.size(); ++o) CHECK(written[o] == 1, std::int64_t(o), written[o]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{data, size};
  Call c;
  const int rank = 1 + int(in.next(8));
  const int inputs = 1 + int(in.next(4));
  const int element_bytes[] = {1, 2, 4, 8};
  const int bytes = element_bytes[in.next(4)];
  const bool device = in.next(2) == 1;
  Operand shape;
  shape.rank = rank;
  std::int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    const unsigned pick = in.next(16);  // mostly small, some 0 and 1, some long rows
    shape.extents[d] = pick < 2 ? pick : pick < 12 ? pick - 1 : 60 + 37 * (pick - 12);
    if (n * std::max<std::int64_t>(shape.extents[d], 1) > max_elements) shape.extents[d] = 1;
    n *= std::max<std::int64_t>(shape.extents[d], 1);
  }
  std::int64_t arena = 0;
  for (int k = 0; k <= inputs; ++k) {
    Operand o = shape;
    o.element_bytes = in.next(5) == 0 ? element_bytes[in.next(4)] : bytes;
    // A layout: dimensions packed in some order, each padded by a few elements or scaled, or raw strides.
    const unsigned kind = in.next(4);
    int order[max_rank];
    for (int d = 0; d < rank; ++d) order[d] = d;
    for (int d = rank - 1; d > 0; --d) std::swap(order[d], order[in.next(d + 1)]);
    if (in.next(2)) std::reverse(order, order + rank);  // LayoutRight-like or LayoutLeft-like
    std::int64_t next = kind == 3 ? 1 + in.next(3) : 1;
    for (int d = 0; d < rank; ++d) {
      o.strides[order[d]] = kind == 2 ? std::int64_t(in.next(9)) : next;
      next *= std::max<std::int64_t>(o.extents[order[d]], 1) + (kind == 1 ? in.next(3) : 0);
    }
    // Inputs and the output in one arena: apart, or the same storage (aliasing, overlaps).
    const std::int64_t offset = in.next(3) == 0 && k > 0 ? in.next(64) : arena + in.next(16);
    o.address = c.base + std::uintptr_t(offset * o.element_bytes / std::max(1, bytes)) + (in.next(6) == 0 ? 1 : 0);
    if (in.next(8) == 0 && k > 0) o = c.ops[0];  // exact aliasing
    arena = std::max<std::int64_t>(arena, offset + o.span_bytes() / std::max(1, o.element_bytes) + 16);
    c.ops.push_back(o);
  }
  c.prepare();
  check_overlap(c);
  if (distinct_elements(c.ops[0])) check_reduction(c);
  // An elementwise call that passes the checks: distinct output elements, every input apart or exactly aliased,
  // elements aligned to their size (as Kokkos' views are).
  if (!distinct_elements(c.ops[0])) return 0;
  for (std::size_t k = 1; k < c.ops.size(); ++k) {
    const Overlap o = overlap_of(c.ops[0], c.ops[k]);
    if (o != Overlap::none && o != Overlap::exact) return 0;
  }
  for (const Operand& o : c.ops)
    if (o.address % std::uintptr_t(o.element_bytes) != 0) return 0;
  CallFacts facts;
  facts.label = "fuzz";
  facts.device = device;
  facts.threads = 1 + int(in.next(16));
  facts.may_run_inline = !device && in.next(2);
  facts.own_region = facts.may_run_inline && in.next(2);
  facts.cache_bytes = in.next(2) ? std::int64_t(50) << 20 : 4096;
  facts.default_shape = in.next(3) != 0;
  facts.shape = facts.default_shape ? (device ? TileShape{256, 1, 1} : TileShape{1, 4, 256})
                                    : TileShape{int(device ? 32 * (1 + in.next(8)) : 1 + in.next(4)),
                                                supported_packs_in_flight[in.next(4)], int(1 + in.next(4))};
  facts.out = c.ops[0];
  facts.ins = c.ops.data() + 1;
  facts.inputs = inputs;
  facts.warp_size =
      in.next(2) ? 64 : 32;  // a CUDA warp or a CDNA wavefront (read last: older inputs keep their meaning)
  facts.scratch_bytes = device ? (facts.warp_size == 64 ? 64 : 48) << 10 : 0;  // an MI250X's, an H200's
  check_elementwise(c, facts);
  // A reduction of the inputs along a random set of dimensions into the output's kept dimensions (read last).
  ReducedDims reduced;
  for (int d = 0; d < rank; ++d)
    if (in.next(2)) reduced.dims[reduced.count++] = d;
  if (reduced.count == 0) reduced.dims[reduced.count++] = int(in.next(unsigned(rank)));
  check_along(c, reduced, in.next(2) == 1, int(in.next(64)));
  return 0;
}

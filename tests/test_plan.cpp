// The plan (kstream/impl/plan.hpp): every row of its condition -> strategy table, for device and host facts, on
// any build. Plain facts in, plain numbers out: no kernel runs here.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <kstream/impl/host_square.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <kstream/streaming_stores.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace kstream::test {
namespace {

using impl::Operand;
using impl::Plan;
using impl::Strategy;

constexpr std::int64_t h200_cache = std::int64_t(50) << 20;
constexpr TileShape device_default{256, 1, 1};
constexpr TileShape host_default{1, 4, 256};

/// A rank-1 operand of `bytes`-byte elements at `offset` elements past a 16-byte boundary (its extent: the call's n).
Operand at(int bytes, std::int64_t offset = 0, std::int64_t stride = 1) {
  return impl::flat_operand(std::uintptr_t(1) << 20 | std::uintptr_t(offset * bytes), bytes, 0, stride);
}

struct Call {
  std::int64_t n;
  Operand out;
  std::vector<Operand> ins;
  bool device = true;
  TileShape shape = device_default;
  int threads = 16;
  bool may_run_inline = false;
  bool own_region = false;

  Plan plan() const {
    impl::CallFacts c;
    c.label = "test";
    c.device = device;
    c.may_run_inline = may_run_inline;
    c.own_region = own_region;
    c.threads = threads;
    c.cache_bytes = device ? h200_cache : 0;
    c.shape = shape;
    c.default_shape = shape == (device ? device_default : host_default);
    c.out = out;
    c.out.extents[0] = n;
    std::vector<Operand> sized = ins;
    for (Operand& o : sized) o.extents[0] = n;
    c.ins = sized.data();
    c.inputs = int(ins.size());
    return impl::plan(c);
  }
};

std::string strategy_of(const Call& call) {
  return impl::strategy_name(call.plan().strategy);
}

TEST(Plan, EmptyCallsLaunchNothing) {
  EXPECT_EQ(Call({.n = 0, .out = at(4), .ins = {at(4), at(4)}}).plan().league, 0);
  Call host{.n = 0, .out = at(8), .ins = {at(8)}};
  host.device = false;
  host.shape = host_default;
  EXPECT_EQ(host.plan().league, 0);
}

TEST(Plan, EquallyAlignedContiguousViewsMovePacks) {
  const Plan p = Call({.n = 1003, .out = at(4, 1), .ins = {at(4, 1), at(4, 1)}}).plan();
  EXPECT_EQ(p.strategy, Strategy::packed);
  EXPECT_EQ(p.width, 4);
  EXPECT_EQ(p.head, 3);  // up to the next 16-byte boundary
  EXPECT_EQ(p.body_items, 250);
  EXPECT_EQ(p.tail, 0);
  EXPECT_EQ(p.items_in_flight, 1);
  EXPECT_EQ(p.league, 1);  // 250 packs in one tile of 256
  // fma of doubles beyond the device's cache, aligned: packed too (no special case).
  const std::int64_t big = h200_cache / 16;
  EXPECT_EQ(strategy_of({.n = big, .out = at(8), .ins = {at(8), at(8), at(8)}}), "packed");
  // Explicit packs in flight size the packed kernel's register arrays.
  Call explicit_shape{.n = 100000, .out = at(4), .ins = {at(4), at(4)}};
  explicit_shape.shape = {128, 4, 2};
  const Plan e = explicit_shape.plan();
  EXPECT_EQ(e.items_in_flight, 4);
  EXPECT_EQ(e.chunks_per_thread, 2);
  EXPECT_EQ(e.tile_items(), 128 * 4 * 2);
  EXPECT_EQ(e.league, (25000 + 1023) / 1024);
}

TEST(Plan, UnequallyAlignedViewsKeepAPacksWorthOfElementsInFlight) {
  const Plan p = Call({.n = 5000, .out = at(4, 3), .ins = {at(4, 1), at(4, 2)}}).plan();
  EXPECT_EQ(p.strategy, Strategy::contiguous);
  EXPECT_EQ(p.items_in_flight, 4);  // four floats: one pack's worth
  EXPECT_EQ(p.body_items, 5000);
  EXPECT_EQ(p.head + p.tail, 0);
  EXPECT_EQ(strategy_of({.n = 5000, .out = at(8, 1), .ins = {at(8, 0), at(8, 1), at(8, 1)}}), "contiguous");
  // packs_in_flight > 1 repeats the pack's worth (more chunks) instead of widening the register arrays.
  Call explicit_shape{.n = 5000, .out = at(8, 1), .ins = {at(8), at(8)}};
  explicit_shape.shape = {64, 4, 3};
  const Plan e = explicit_shape.plan();
  EXPECT_EQ(e.items_in_flight, 2);
  EXPECT_EQ(e.chunks_per_thread, 12);
  // Mixed element sizes never move packs.
  EXPECT_EQ(strategy_of({.n = 5000, .out = at(8), .ins = {at(4), at(4)}}), "contiguous");
}

TEST(Plan, UnequallyAligned16BitViewsShiftPacksOnDevicesOnly) {
  const Plan p = Call({.n = 1000, .out = at(2, 3), .ins = {at(2, 1), at(2, 2)}}).plan();
  EXPECT_EQ(p.strategy, Strategy::shifted);
  EXPECT_EQ(p.width, 8);
  // The output's first 16-byte boundary is 5 elements in, but there x's pack would start before x (its shift is
  // 6): the body starts one pack later.
  EXPECT_EQ(p.head, 13);
  EXPECT_EQ(p.shifts[0], 6);
  EXPECT_EQ(p.shifts[1], 7);
  EXPECT_EQ(p.head + p.body_items * 8 + p.tail, 1000);
  Call host{.n = 1000, .out = at(2, 3), .ins = {at(2, 1), at(2, 2)}};
  host.device = false;
  host.shape = host_default;
  EXPECT_EQ(strategy_of(host), "contiguous");
  EXPECT_EQ(strategy_of({.n = 1000, .out = at(4, 3), .ins = {at(4, 1), at(4, 2)}}), "contiguous") << "floats";
  EXPECT_EQ(strategy_of({.n = 1000, .out = at(2, 3), .ins = std::vector<Operand>(9, at(2, 1))}), "contiguous")
      << "more inputs than a shifted plan holds";
  EXPECT_EQ(strategy_of({.n = 9, .out = at(2, 3), .ins = {at(2, 1), at(2, 2)}}), "contiguous") << "too short";
}

TEST(Plan, StridedDeviceCallsRunOneElementPerIndexExceptSmallElementsWithinTheCache) {
  const std::int64_t small = 1000, past_cache = h200_cache / 8;  // floats at stride 2: 3 x 8 bytes per element
  EXPECT_EQ(strategy_of({.n = small, .out = at(8, 0, 2), .ins = {at(8, 0, 2), at(8, 0, 2)}}), "elements");
  const Plan in_cache = Call({.n = small, .out = at(4, 0, 2), .ins = {at(4, 0, 2), at(4, 0, 2)}}).plan();
  EXPECT_EQ(in_cache.strategy, Strategy::strided);
  EXPECT_EQ(in_cache.items_in_flight, 4);  // every float of a pack in flight feeds the cache's bandwidth
  EXPECT_EQ(strategy_of({.n = past_cache, .out = at(4, 0, 2), .ins = {at(4, 0, 2), at(4, 0, 2)}}), "elements");
  EXPECT_EQ(strategy_of({.n = small, .out = at(8), .ins = {at(8), at(8, 0, 3)}}), "elements") << "one strided input";
  EXPECT_EQ(strategy_of({.n = 2, .out = at(8), .ins = {at(8, 0, std::int64_t(INT32_MAX) + 1)}}), "strided")
      << "a stride past 32 bits";
  Call explicit_shape{.n = small, .out = at(8, 0, 2), .ins = {at(8, 0, 2)}};
  explicit_shape.shape = {128, 1, 1};
  EXPECT_EQ(strategy_of(explicit_shape), "strided");
  Call host{.n = small, .out = at(8, 0, 2), .ins = {at(8, 0, 2)}};
  host.device = false;
  host.shape = host_default;
  EXPECT_EQ(strategy_of(host), "strided");
}

TEST(Plan, HostTilesOnePerThreadOrTheCallingThread) {
  Call host{.n = 1000003, .out = at(4), .ins = {at(4), at(4)}};
  host.device = false;
  host.shape = host_default;
  Plan p = host.plan();
  EXPECT_EQ(p.threads, 16);
  EXPECT_EQ(p.league, 16);
  EXPECT_EQ(p.items_in_flight, 1);
  EXPECT_GE(p.tile_items() * 16, p.body_items);
  // OpenMP (may run inline): operands of at most calling_thread_bytes run on the calling thread.
  host.may_run_inline = true;
  host.n = impl::calling_thread_bytes(16) / 12;  // an add of floats moves 12 bytes per element
  EXPECT_EQ(host.plan().threads, 0);
  host.n += 1;
  EXPECT_EQ(host.plan().threads, 16) << "not kstream's own region: all threads";
  EXPECT_FALSE(host.plan().own_region);
  host.own_region = true;  // kstream's own region: one thread per 128 KiB, a power of two
  EXPECT_EQ(host.plan().threads, 4);
  EXPECT_TRUE(host.plan().own_region);
  EXPECT_EQ(host.plan().league, 4);
  host.n = 1000003;
  EXPECT_EQ(host.plan().threads, 16);
  EXPECT_TRUE(host.plan().own_region);
  host.n = impl::calling_thread_bytes(16) / 12;
  EXPECT_FALSE(host.plan().own_region) << "the calling thread needs no region";
  host.n += 1;
  host.threads = 1;
  EXPECT_EQ(host.plan().threads, 1) << "one thread: nothing to wake";
  // An explicit shape sets the tile: team_size x packs_in_flight x chunks packs.
  host.threads = 16;
  host.n = 100000;
  host.shape = {1, 2, 8};
  p = host.plan();
  EXPECT_EQ(p.threads, 16);
  EXPECT_EQ(p.tile_items(), 16);
  host.out = at(4, 1);  // single elements: the tile holds as many elements as its packs would
  EXPECT_EQ(host.plan().tile_items(), 64);
}

TEST(Plan, HostStreamingStoresFollowModeStrategyAndAliasing) {
  Call host{.n = 1 << 20, .out = at(4), .ins = {at(4), at(4)}};
  host.device = false;
  host.shape = host_default;
  host.out.address += 1 << 24;  // three distinct arrays at equal alignment
  host.ins[0].address += 2 << 24;
  set_streaming_stores(StreamingStores::always);
  EXPECT_EQ(host.plan().streaming_stores, true) << "packed";
  host.out.address += 4;
  EXPECT_EQ(host.plan().strategy, Strategy::contiguous);
  EXPECT_EQ(host.plan().streaming_stores, true) << "unequally aligned, element-aligned output";
  host.out = host.ins[1];
  EXPECT_EQ(host.plan().streaming_stores, false) << "out is an input";
  host.out = at(4, 0, 2);
  EXPECT_EQ(host.plan().streaming_stores, false) << "strided";
  Call device{.n = 1 << 20, .out = at(4), .ins = {at(4), at(4)}};
  EXPECT_EQ(device.plan().streaming_stores, false) << "devices never stream";
  set_streaming_stores(StreamingStores::never);
  host.out = at(4, 4);
  EXPECT_EQ(host.plan().strategy, Strategy::packed);
  EXPECT_EQ(host.plan().streaming_stores, false) << "never";
  set_streaming_stores(StreamingStores::automatic);
  host.n = 16;
  EXPECT_EQ(host.plan().streaming_stores, false) << "automatic: fits in cache";
}

TEST(Plan, BadShapesAndTooManyTeamsAreRejected) {
  Call call{.n = 100, .out = at(4), .ins = {at(4)}};
  call.shape = {1, 3, 1};
  try {
    call.plan();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("packs_in_flight = 3"), std::string::npos) << e.what();
  }
  Call huge{.n = std::int64_t(1) << 42, .out = at(4, 1), .ins = {at(4)}};
  huge.shape = {1, 1, 1};
  EXPECT_THROW(huge.plan(), std::length_error);
}

// The shifted partition: for 2-byte elements at every address offset of the output and two inputs and every n up
// to 80, every load (one or two aligned 16-byte input packs per output pack) lies inside its input view and is
// 16-byte aligned, every output pack lies inside the output and is aligned, and head + body + tail cover n.
TEST(Plan, EveryShiftedPackStaysInsideItsView) {
  constexpr int W = 8;
  int with_body = 0;
  for (int out_offset = 0; out_offset < W; ++out_offset) {
    for (int x_offset = 0; x_offset < W; ++x_offset) {
      for (int y_offset = 0; y_offset < W; ++y_offset) {
        for (std::int64_t n = 1; n <= 80; ++n) {
          const Call call{.n = n, .out = at(2, out_offset), .ins = {at(2, x_offset), at(2, y_offset)}};
          const Plan p = call.plan();
          const std::string what = "n=" + std::to_string(n) + " offsets out " + std::to_string(out_offset) + " x " +
                                   std::to_string(x_offset) + " y " + std::to_string(y_offset);
          if (p.strategy != Strategy::shifted) continue;
          ++with_body;
          ASSERT_EQ(p.head + p.body_items * W + p.tail, n) << what;
          ASSERT_LT(p.head, 2 * W) << what;
          ASSERT_LT(p.tail, 2 * W) << what;
          for (std::int64_t item = 0; item < p.body_items; ++item) {
            const std::int64_t e = p.head + item * W;
            ASSERT_EQ((call.out.address + e * 2) % 16, 0u) << what;
            ASSERT_LE(e + W, n) << what;
            for (int k = 0; k < 2; ++k) {
              const int shift = p.shifts[k];
              ASSERT_EQ(shift, int(((call.ins[k].address + std::uintptr_t(p.head) * 2) % 16) / 2)) << what;
              const std::int64_t first = e - shift, end = first + (shift == 0 ? W : 2 * W);
              ASSERT_EQ((call.ins[k].address + first * 2) % 16, 0u) << what;
              ASSERT_GE(first, 0) << what;
              ASSERT_LE(end, n) << what;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(with_body, 20000);  // most cases past a few packs run the shifted body
}

// ---- several dimensions ----

/// A rank-R operand of `bytes`-byte elements: extents, strides (elements) and an offset (elements) past a 16-byte
/// boundary.
template <std::size_t R>
Operand tensor(int bytes, const std::array<std::int64_t, R>& extents, const std::array<std::int64_t, R>& strides,
               std::int64_t offset = 0) {
  Operand o;
  o.address = (std::uintptr_t(1) << 30) + std::uintptr_t(offset * bytes);
  o.element_bytes = bytes;
  o.rank = int(R);
  for (std::size_t r = 0; r < R; ++r) {
    o.extents[r] = extents[r];
    o.strides[r] = strides[r];
  }
  return o;
}

/// A HIP device's facts: an MI250X GCD (CDNA2, 64-wide wavefronts, 8 MiB of L2).
constexpr int cdna_wavefront = 64;
constexpr std::int64_t mi250x_cache = std::int64_t(8) << 20;

impl::Plan plan_nd(const Operand& out, const std::vector<Operand>& ins, bool device = true,
                   TileShape shape = device_default, int warp_size = 32, std::int64_t scratch_bytes = 0) {
  impl::CallFacts c;
  c.scratch_bytes = scratch_bytes;
  c.label = "test";
  c.device = device;
  c.threads = 16;
  c.warp_size = warp_size;
  c.cache_bytes = device ? (warp_size == cdna_wavefront ? mi250x_cache : h200_cache) : 0;
  c.shape = shape;
  c.default_shape = shape == (device ? device_default : host_default);
  c.out = out;
  c.ins = ins.data();
  c.inputs = int(ins.size());
  return impl::plan(c);
}

TEST(Normalize, WholeViewsOfEveryLayoutBecomeOneDimension) {
  const std::array<std::int64_t, 3> e{4, 5, 6};
  const Operand right = tensor<3>(4, e, {30, 6, 1}), left = tensor<3>(4, e, {1, 4, 20});
  for (const Operand& o : {right, left}) {
    const impl::Geometry g = impl::normalize(o, &o, 1);
    EXPECT_EQ(g.dims, 1);
    EXPECT_EQ(g.extents[0], 120);
    EXPECT_EQ(g.stride(o, 0), 1);
  }
  // Extent-1 dimensions go, whatever their strides; a padded layout keeps its rows.
  const Operand padded = tensor<4>(4, {4, 1, 5, 6}, {40, 7, 8, 1});
  const impl::Geometry g = impl::normalize(padded, nullptr, 0);
  ASSERT_EQ(g.dims, 2);
  EXPECT_EQ(g.extents[0], 6);
  EXPECT_EQ(g.extents[1], 20);  // 4 x 5 rows, 8 elements apart
  EXPECT_EQ(g.stride(padded, 1), 8);
  // LayoutRight and LayoutLeft operands of one call do not merge: the output's order, innermost first.
  const impl::Geometry mixed = impl::normalize(right, &left, 1);
  ASSERT_EQ(mixed.dims, 3);
  EXPECT_EQ(mixed.axes[0], 2);
  EXPECT_EQ(mixed.axes[2], 0);
  // Empty views: one empty dimension; all extents 1: a single element.
  EXPECT_EQ(impl::normalize(tensor<2>(4, {3, 0}, {1, 3}), nullptr, 0).size(), 0);
  EXPECT_EQ(impl::normalize(tensor<3>(4, {1, 1, 1}, {9, 3, 1}), nullptr, 0).dims, 0);
}

TEST(Plan, InteriorsRunAsPackedRowsOnDevices) {
  // The interior (1..510)^3 of a 512^3 LayoutRight float field: rows of 510 floats, each 4 bytes past a pack
  // boundary (the pitch is 2048 bytes): packed rows with 3 head and 3 tail scalars and 126 packs.
  const std::array<std::int64_t, 3> e{510, 510, 510}, s{512 * 512, 512, 1};
  const std::int64_t first = 512 * 512 + 512 + 1;
  const Operand out = tensor<3>(4, e, s, first), x = tensor<3>(4, e, s, first), y = tensor<3>(4, e, s, first);
  const Plan p = plan_nd(out, {x, y});
  EXPECT_EQ(impl::plan_name(p), "rows/packed");
  EXPECT_EQ(p.rows, 510 * 510);
  EXPECT_EQ(p.head, 3);
  EXPECT_EQ(p.body_items, 126);
  EXPECT_EQ(p.tail, 3);
  EXPECT_EQ(p.team_size, 128) << "a team no larger than its row";
  EXPECT_EQ(p.league, 510 * 510);
  // An explicit shape's packs in flight become rounds: the row kernels hold one pack in flight per round.
  const Plan shaped = plan_nd(out, {x, y}, true, TileShape{32, 4, 2});
  EXPECT_EQ(shaped.items_in_flight, 1);
  EXPECT_EQ(shaped.chunks_per_thread, 8);
  EXPECT_EQ(shaped.team_size, 32);
  EXPECT_EQ(shaped.league, 510 * 510);  // 126 packs in one tile of 32 x 8
  // Rows at different offsets from a pack boundary (a pitch of 513 floats): single elements.
  const std::array<std::int64_t, 3> odd{513 * 513, 513, 1};
  const Plan q = plan_nd(tensor<3>(4, e, odd, 1), {tensor<3>(4, e, odd, 1), tensor<3>(4, e, odd, 1)});
  EXPECT_EQ(impl::plan_name(q), "rows/contiguous");
  EXPECT_EQ(q.team_size, 128);  // 510 floats, four per thread
  // Short rows run general, as do transposes and strided rows; a count past 2^31 takes 64-bit index math.
  const std::array<std::int64_t, 3> small{100, 100, 100};
  const Operand short_rows = tensor<3>(4, small, {102 * 102, 102, 1}, 1);
  EXPECT_EQ(impl::plan_name(plan_nd(short_rows, {short_rows})), "general");
  const Operand left = tensor<3>(4, small, {1, 100, 10000});
  const Plan t = plan_nd(tensor<3>(4, small, {10000, 100, 1}), {left});
  EXPECT_EQ(impl::plan_name(t), "general/tiles");
  EXPECT_FALSE(t.wide_indices);
  EXPECT_EQ(t.cross_dim, 2) << "tiles of the output's rows and the input's (the output's outermost dimension)";
  EXPECT_EQ(t.tile_edge, 32) << "no scratch for 64 x 65 floats: the smallest edge";
  EXPECT_EQ(t.league, 4 * 4 * 100) << "tiles of 32 x 32: 100 in 4 along each of the two";
  EXPECT_EQ(t.team_size, 256);
  EXPECT_EQ(t.staged, 0u) << "no team scratch in these facts: the input is read from memory";
  const Plan strided_rows = plan_nd(tensor<3>(4, small, {10000, 100, 1}), {tensor<3>(4, small, {60000, 600, 2})});
  EXPECT_EQ(impl::plan_name(strided_rows), "general");
  EXPECT_EQ(strided_rows.cross_dim, -1) << "no input runs along another dimension";
  EXPECT_EQ(strided_rows.items_in_flight, 4) << "a pack's worth of floats an index";
  EXPECT_EQ(strided_rows.league, 7813 * 32) << "groups of 32 indices, 128 elements each, the last one partial";
  const Plan halves = plan_nd(tensor<3>(2, small, {10000, 100, 1}), {tensor<3>(2, small, {60000, 600, 2})});
  EXPECT_EQ(halves.items_in_flight, 8) << "a pack's worth of 16-bit elements an index";
  EXPECT_EQ(halves.league, 3907 * 32);
  const std::array<std::int64_t, 2> big{50000, 50000};
  EXPECT_TRUE(plan_nd(tensor<2>(4, big, {50000, 1}), {tensor<2>(4, big, {1, 50000})}).wide_indices);
  // Whole views of any rank take the one-dimension table.
  EXPECT_EQ(impl::plan_name(plan_nd(tensor<3>(4, small, {10000, 100, 1}), {tensor<3>(4, small, {10000, 100, 1})})),
            "packed");
}

TEST(Plan, RowsTakeWholeWavefrontsOnHipDevices) {
  // Rows of 280 floats, 288 apart (every row start aligned): 70 packs a row. A team is whole warps on CUDA and
  // whole wavefronts on CDNA, no larger than its row needs.
  const std::array<std::int64_t, 2> e{1000, 280}, s{288, 1};
  const Operand rows = tensor<2>(4, e, s);
  const Plan cuda = plan_nd(rows, {rows, rows});
  const Plan hip = plan_nd(rows, {rows, rows}, true, device_default, cdna_wavefront);
  ASSERT_EQ(impl::plan_name(cuda), "rows/packed");
  ASSERT_EQ(impl::plan_name(hip), "rows/packed");
  EXPECT_EQ(cuda.body_items, 70);
  EXPECT_EQ(cuda.team_size, 96);
  EXPECT_EQ(hip.team_size, 128);
  EXPECT_EQ(hip.league, 1000) << "one team per row";
  // A row must hold a warp's packs: 200 floats (800 bytes) are rows on CUDA (512), general on CDNA (1024).
  const Operand shorter = tensor<2>(4, {1000, 200}, {208, 1});
  EXPECT_EQ(impl::plan_name(plan_nd(shorter, {shorter})), "rows/packed");
  EXPECT_EQ(impl::plan_name(plan_nd(shorter, {shorter}, true, device_default, cdna_wavefront)), "general");
}

TEST(Plan, DeviceTilesOfRowsOf256BytesStageTheInputsAlongTheCrossDimensionWhileScratchHolds) {
  // out runs along the 300 extent; in0 with it, in1..in7 along the 1000 extent (a transpose of each).
  const std::array<std::int64_t, 2> e{1000, 300};
  const Operand out = tensor<2>(8, e, {300, 1}), left = tensor<2>(8, e, {1, 1000});
  const std::vector<Operand> ins{out, left, left, left, left, left, left, left};
  const Plan cuda = plan_nd(out, ins, true, device_default, 32, 48 << 10);
  EXPECT_EQ(impl::plan_name(cuda), "general/tiles");
  EXPECT_EQ(cuda.cross_dim, 1);
  EXPECT_EQ(cuda.league, 10 * 32) << "300 in 10 tiles of 32, 1000 in 32";
  EXPECT_EQ(cuda.tile_edge, 32) << "32 doubles: a row of 256 bytes";
  EXPECT_EQ(cuda.staged, 0b111110u) << "32 x 33 doubles and 16 bytes of alignment each: five in 48 KiB";
  const Plan mi250x = plan_nd(out, ins, true, device_default, cdna_wavefront, 64 << 10);
  EXPECT_EQ(mi250x.tile_edge, 32);
  EXPECT_EQ(mi250x.staged, 0b11111110u) << "seven in 64 KiB";
  // Packs (Plan::width) where every run of a pack's elements starts on a pack boundary: here every stride but the
  // unit ones is a whole number of packs, and the staged inputs run along the cross dimension.
  EXPECT_EQ(mi250x.width, 2) << "doubles in 16-byte packs on both sides of the scratch";
  EXPECT_EQ(mi250x.items_in_flight, 2) << "two packs of doubles in flight a thread";
  EXPECT_EQ(cuda.width, 1) << "in7 and in8 not staged: read across the innermost, element by element";
  EXPECT_EQ(cuda.items_in_flight, impl::transpose_in_flight);
  const auto single = [&](const Operand& o, const Operand& x) {
    const Plan q = plan_nd(o, {x}, true, device_default, 32, 48 << 10);
    return impl::plan_name(q) == "general/tiles" && q.width == 1 && q.items_in_flight == impl::transpose_in_flight;
  };
  EXPECT_FALSE(single(out, left));
  EXPECT_TRUE(single(tensor<2>(8, {1000, 301}, {301, 1}), tensor<2>(8, {1000, 301}, {1, 1000})))
      << "rows of 301 doubles: every other row starts between packs";
  EXPECT_TRUE(single(tensor<2>(8, e, {300, 1}, 1), left)) << "out one element past a pack boundary";
  EXPECT_TRUE(single(tensor<2>(4, e, {300, 1}), tensor<2>(8, e, {1, 1000}))) << "floats from doubles";
  // Smaller elements take longer edges where the scratch holds every input along the cross dimension.
  const auto of = [&](int bytes, int inputs, std::int64_t scratch, int warp) {
    const std::vector<Operand> list(std::size_t(inputs), tensor<2>(bytes, e, {1, 1000}));
    return plan_nd(tensor<2>(bytes, e, {300, 1}), list, true, device_default, warp, scratch);
  };
  const Plan floats = of(4, 1, 48 << 10, 32);
  EXPECT_EQ(floats.tile_edge, 64) << "64 floats: 256 bytes; 64 x 65 of them in 48 KiB";
  EXPECT_EQ(floats.league, 5 * 16) << "300 in 5 tiles of 64, 1000 in 16";
  EXPECT_EQ(floats.staged, 1u);
  EXPECT_EQ(floats.width, 4);
  EXPECT_EQ(floats.items_in_flight, 2) << "two packs of floats in flight a thread";
  EXPECT_EQ(of(4, 2, 48 << 10, 32).tile_edge, 64);
  EXPECT_EQ(of(4, 3, 48 << 10, 32).tile_edge, 32) << "three of 64 x 65 floats exceed 48 KiB";
  EXPECT_EQ(of(4, 3, 48 << 10, 32).staged, 0b111u);
  EXPECT_EQ(of(4, 3, 64 << 10, cdna_wavefront).tile_edge, 64) << "they fit 64 KiB";
  const Plan halves = of(2, 1, 48 << 10, 32);
  EXPECT_EQ(halves.tile_edge, 128) << "128 16-bit elements: 256 bytes; 128 x 129 of them in 48 KiB";
  EXPECT_EQ(halves.width, 1) << "rows of 300 16-bit elements: every other row starts between packs";
  const Plan aligned_halves = plan_nd(tensor<2>(2, {1000, 304}, {304, 1}), {tensor<2>(2, {1000, 304}, {1, 1000})}, true,
                                      device_default, 32, 48 << 10);
  EXPECT_EQ(aligned_halves.width, 8);
  EXPECT_EQ(aligned_halves.items_in_flight, 1) << "one pack of 16-bit elements in flight a thread (computed in float)";
  EXPECT_EQ(halves.league, 3 * 8);
  EXPECT_EQ(of(2, 2, 64 << 10, cdna_wavefront).tile_edge, 64) << "two of 128 x 129 exceed 64 KiB";
  EXPECT_EQ(of(1, 1, 48 << 10, 32).tile_edge, 128) << "at most 128";
  EXPECT_EQ(of(4, 1, 0, 32).tile_edge, 32) << "no scratch: nothing staged, the smallest edge";
  EXPECT_EQ(of(4, 1, 0, 32).staged, 0u);
}

TEST(Plan, HostCallsOfSeveralDimensionsWalkTilesOfTheFlattenedIndex) {
  const std::array<std::int64_t, 3> e{6, 7, 130}, s{9 * 140, 140, 1};
  const Operand a = tensor<3>(8, e, s, 3);
  Plan p = plan_nd(a, {a, a}, false, host_default);
  EXPECT_EQ(impl::plan_name(p), "rows/contiguous");
  EXPECT_EQ(p.rows, 42);
  EXPECT_EQ(p.league, 16);
  EXPECT_GE(p.host_tile_items * p.league, 6 * 7 * 130);
  const Operand left = tensor<3>(8, e, {1, 6, 42});
  EXPECT_EQ(impl::plan_name(plan_nd(a, {left}, false, host_default)), "general/blocks");
  p = plan_nd(a, {a}, false, TileShape{1, 2, 8});  // an explicit shape: tiles of 16 packs' worth of elements
  EXPECT_EQ(p.host_tile_items, 32);
  // An input along another dimension (a transpose, a mixed layout): blocks of that dimension and the output's rows.
  p = plan_nd(a, {a, left}, false, host_default);
  EXPECT_EQ(impl::plan_name(p), "general/blocks");
  EXPECT_EQ(p.cross_dim, 2) << "left runs along the output's outermost dimension (extent 6)";
  EXPECT_EQ(p.body_items, 2 * 1 * 7) << "130 in blocks of 128, 6 in one block of 16, times 7";
  EXPECT_GE(p.host_tile_items * p.league, p.body_items);
  EXPECT_LT(p.host_tile_items * (p.league - 1), p.body_items);
  const std::array<std::int64_t, 2> wide{1000, 300};
  p = plan_nd(tensor<2>(4, wide, {300, 1}), {tensor<2>(4, wide, {1, 1000})}, false, TileShape{1, 2, 512});
  EXPECT_EQ(p.cross_dim, 1);
  EXPECT_EQ(p.body_items, 3 * 63) << "300 in blocks of 128, 1000 in blocks of 16";
  EXPECT_EQ(p.host_tile_items, 2) << "an explicit shape of 1024 packs, 4096 floats: two blocks of 2048";
  EXPECT_EQ(p.block_inner, 128);
  EXPECT_EQ(p.block_cross, 16);
  // A pitch of 4 KiB (1024 floats, 512 doubles): 64 elements of the output by 256 rows where the block goes in
  // squares (an input across of the output's element size), else one line of the output by 256 rows.
  const bool squares = impl::host_square_edge(4) > 0 && impl::host_square_edge(8) > 0;
  const std::array<std::int64_t, 2> pow2{1024, 300};
  p = plan_nd(tensor<2>(4, pow2, {300, 1}), {tensor<2>(4, pow2, {1, 1024})}, false, host_default);
  EXPECT_EQ(p.block_inner, squares ? 64 : 16);
  EXPECT_EQ(p.block_cross, 256);
  EXPECT_EQ(p.body_items, (squares ? 5 : 19) * 4) << "300 in blocks of 64 (16), 1024 in blocks of 256";
  const std::array<std::int64_t, 2> pow2_doubles{512, 300};
  p = plan_nd(tensor<2>(8, pow2_doubles, {300, 1}), {tensor<2>(8, pow2_doubles, {1, 512})}, false, host_default);
  EXPECT_EQ(p.block_inner, squares ? 64 : 8);
  EXPECT_EQ(p.block_cross, 256);
  p = plan_nd(tensor<2>(4, pow2_doubles, {300, 1}), {tensor<2>(8, pow2_doubles, {1, 512})}, false, host_default);
  EXPECT_EQ(p.block_inner, 16) << "doubles across into floats: rows, one line of the output";
  const Operand strided = tensor<3>(8, e, {2 * 9 * 140, 2 * 140, 2});
  EXPECT_EQ(plan_nd(a, {strided}, false, host_default).cross_dim, -1) << "no input runs along another dimension";
}

TEST(Plan, DeviceReductionsRunInOneLaunchWhileEveryChunkHasAResidentTeam) {
  constexpr std::int64_t h200 = 132 * 2048, a100 = 108 * 2048;  // Kokkos::Cuda::concurrency(): SMs x threads
  EXPECT_EQ(impl::one_launch_teams(1, 256, h200), 1);
  EXPECT_EQ(impl::one_launch_teams(512, 256, h200), 512) << "2^21 floats: 512 chunks of 4096, a team each";
  EXPECT_EQ(impl::one_launch_teams(528, 256, h200), 528) << "four teams on each of 132 multiprocessors";
  EXPECT_EQ(impl::one_launch_teams(529, 256, h200), 0) << "two launches: per-chunk teams, then the fold";
  EXPECT_EQ(impl::one_launch_teams(1024, 256, h200), 0) << "2^22 floats";
  EXPECT_EQ(impl::one_launch_teams(432, 256, a100), 432) << "a GPU with fewer multiprocessors: fewer teams";
  EXPECT_EQ(impl::one_launch_teams(433, 256, a100), 0);
  EXPECT_EQ(impl::one_launch_teams(1, 256, 256), 1) << "a device of fewer threads than a team: one team";
  EXPECT_EQ(impl::one_launch_teams(2, 256, 256), 0);
}

TEST(Plan, DeviceRowReductionsBeyondOneLaunchTakeFourPassesAChunkWhereThoseAreManyElseTwo) {
  constexpr std::int64_t h200 = 132 * 2048, a100 = 108 * 2048;
  // Chunks of one pass of rows of packs: the interior 510^3 of a 512^3 float field, 510^2 rows of 126 packs.
  const std::int64_t interior = (510 * 510 * 126 * 4 + 4095) / 4096;
  EXPECT_EQ(impl::row_chunk_passes(interior, 256, h200), 4) << "8002 chunks of four passes";
  EXPECT_EQ(impl::row_chunk_passes(4 * 2112 + 1, 256, h200), 4) << "2113 chunks of four: more than four a team";
  EXPECT_EQ(impl::row_chunk_passes(4 * 2112, 256, h200), 2) << "2112 chunks of four: four for each of 528 teams";
  EXPECT_EQ(impl::row_chunk_passes(2113, 256, h200), 2);
  EXPECT_EQ(impl::row_chunk_passes(529, 256, h200), 2) << "one pass beyond one launch: two passes";
  EXPECT_EQ(impl::row_chunk_passes(528, 256, h200), 1) << "528 chunks of one pass run in one launch";
  // The interior 254^3 of a 256^3 field: doubles (rows of 126 packs of two) and floats in two passes.
  EXPECT_EQ(impl::row_chunk_passes((254 * 254 * 126 * 2 + 2047) / 2048, 256, h200), 2);
  EXPECT_EQ(impl::row_chunk_passes((254 * 254 * 62 * 4 + 4095) / 4096, 256, h200), 2);
  EXPECT_EQ(impl::row_chunk_passes(100, 256, h200), 1);
  EXPECT_EQ(impl::row_chunk_passes(4 * 1728 + 1, 256, a100), 4) << "fewer multiprocessors: more passes sooner";
  EXPECT_EQ(impl::row_chunk_passes(4 * 1728, 256, a100), 2);
  EXPECT_EQ(impl::row_chunk_passes(433, 256, a100), 2);
  EXPECT_EQ(impl::row_chunk_passes(432, 256, a100), 1);
}

// What a device reduction runs, from its plan and the device: the kernels take these chunks, launches and fold,
// and the suite reports the launches (docs/results.md's launch floor counts the call's Kokkos launches).
TEST(Plan, DeviceReductionsTakeTheirChunksPassesLaunchesAndFoldFromThePlan) {
  constexpr std::int64_t h200 = 132 * 2048, a100 = 108 * 2048;
  const auto flat = [](int bytes, std::int64_t n, std::int64_t offset = 0) {
    const Operand x = tensor<1>(bytes, {n}, {1}, offset);
    const Operand xy[] = {x, x};
    return impl::plan_reduction(xy, 2);
  };
  impl::DeviceReduction d = impl::device_reduction(flat(4, std::int64_t(1) << 21), 4, h200);
  EXPECT_TRUE(d.packed);
  EXPECT_EQ(d.covered, std::int64_t(1) << 21);
  EXPECT_EQ(d.chunks, 512) << "2^21 floats: chunks of 4096";
  EXPECT_EQ(d.passes, 1);
  EXPECT_EQ(d.teams, 512);
  EXPECT_EQ(d.launches(), 1);
  d = impl::device_reduction(flat(4, std::int64_t(1) << 23), 4, h200);
  EXPECT_EQ(d.chunks, 2048);
  EXPECT_EQ(d.teams, 0);
  EXPECT_EQ(d.launches(), 2) << "2^23 floats: a team per chunk, then the fold";
  EXPECT_TRUE(d.one_team_fold) << "2048 partials: one team folds them";
  EXPECT_EQ(impl::device_reduction(flat(8, std::int64_t(1) << 20), 2, h200).launches(), 1) << "2^20 doubles";
  EXPECT_EQ(impl::device_reduction(flat(8, std::int64_t(1) << 21), 2, h200).launches(), 2) << "2^21 doubles";
  EXPECT_EQ(impl::device_reduction(flat(4, std::int64_t(1) << 21), 4, a100).launches(), 2)
      << "fewer multiprocessors: two launches sooner";
  EXPECT_TRUE(impl::device_reduction(flat(4, std::int64_t(1) << 26), 4, h200).one_team_fold) << "16384 partials";
  d = impl::device_reduction(flat(4, (std::int64_t(1) << 26) + 1), 4, h200);
  EXPECT_EQ(d.chunks, 16385);
  EXPECT_FALSE(d.one_team_fold) << "more partials: Kokkos' parallel_reduce folds them";
  d = impl::device_reduction(flat(4, (std::int64_t(1) << 23) + 7, 1), 4, h200);
  EXPECT_FALSE(d.packed) << "an unaligned vector: single elements";
  EXPECT_EQ(d.covered, (std::int64_t(1) << 23) + 7);
  EXPECT_EQ(d.chunks, 2049) << "chunks of 4096 elements all the same";
  d = impl::device_reduction(flat(4, 0), 4, h200);
  EXPECT_EQ(d.chunks, 1) << "the identity from one team";
  EXPECT_EQ(d.launches(), 1);
  // Rows of packs: the interior 510^3 of a 512^3 float field, 510^2 rows of 126 whole packs from element 3 (their
  // edges go with them), past one launch: warps' units of two rows by 64 packs (two a pair of rows), 16 a chunk.
  const Operand field = tensor<3>(4, {510, 510, 510}, {512 * 512, 512, 1}, 512 * 512 + 512 + 1);
  const Operand fields[] = {field, field, field};
  d = impl::device_reduction(impl::plan_reduction(fields, 2), 4, h200);
  EXPECT_TRUE(d.packed);
  EXPECT_EQ(d.covered, std::int64_t(510) * 510 * 126 * 4);
  EXPECT_EQ(d.row_units, 510 * 510 / 2 * 2);
  EXPECT_EQ(d.chunks, (d.row_units + 15) / 16);
  EXPECT_EQ(d.launches(), 2);
  EXPECT_TRUE(d.one_team_fold);
  EXPECT_EQ(impl::device_reduction(impl::plan_reduction(fields, 3, 2), 4, h200).row_units, d.row_units)
      << "a fused output's rows alike";
  // Rows of 62 packs (the 254^3 interior of a 256^3 field): a unit a pair of rows; its doubles' 126 packs: two.
  const Operand mid = tensor<3>(4, {254, 254, 254}, {256 * 256, 256, 1}, 256 * 256 + 256 + 1);
  const Operand mids[] = {mid, mid};
  d = impl::device_reduction(impl::plan_reduction(mids, 2), 4, h200);
  EXPECT_EQ(d.row_units, 254 * 254 / 2);
  EXPECT_EQ(d.chunks, (254 * 254 / 2 + 15) / 16);
  const Operand mid8 = tensor<3>(8, {254, 254, 254}, {256 * 256, 256, 1}, 256 * 256 + 256 + 1);
  const Operand mid8s[] = {mid8, mid8};
  EXPECT_EQ(impl::device_reduction(impl::plan_reduction(mid8s, 2), 2, h200).row_units, 254 * 254);
  // Chunks of one pass (the 126^3 interior of a 128^3 field: 126^2 rows of 30 packs, 466 chunks) run in one launch,
  // the team's threads on consecutive packs.
  const Operand small = tensor<3>(4, {126, 126, 126}, {128 * 128, 128, 1}, 128 * 128 + 128 + 1);
  const Operand smalls[] = {small, small};
  d = impl::device_reduction(impl::plan_reduction(smalls, 2), 4, h200);
  EXPECT_TRUE(d.packed);
  EXPECT_EQ(d.passes, 1);
  EXPECT_EQ(d.launches(), 1);
  EXPECT_EQ(d.row_units, 0);
  // Rows of fewer packs than a warp past one launch (2^17 rows of 100 floats, 24 packs from element 3): the team's
  // threads in chunks of two passes.
  const Operand shorts = tensor<2>(4, {std::int64_t(1) << 17, 100}, {104, 1}, 1);
  const Operand shortss[] = {shorts, shorts};
  d = impl::device_reduction(impl::plan_reduction(shortss, 2), 4, h200);
  EXPECT_EQ(d.row_units, 0);
  EXPECT_EQ(d.passes, 2);
  EXPECT_EQ(d.chunks, (d.covered + 2 * 4096 - 1) / (2 * 4096));
  EXPECT_EQ(d.launches(), 2);
  // Rows of single elements (a pitch that moves each row's alignment) cover every element, in passes of one.
  const Operand odd = tensor<2>(4, {1000, 1000}, {1001, 1});
  const Operand odds[] = {odd, odd};
  d = impl::device_reduction(impl::plan_reduction(odds, 2), 4, h200);
  EXPECT_FALSE(d.packed);
  EXPECT_EQ(d.covered, 1000 * 1000);
  EXPECT_EQ(d.passes, 1);
  EXPECT_EQ(d.chunks, (1000 * 1000 + 4095) / 4096);
}

TEST(Plan, ReductionsReadPacksWhereEveryRowStartsAtOneOffsetFromAPack) {
  const std::array<std::int64_t, 2> e{100, 64};
  const Operand aligned[] = {tensor<2>(4, e, {68, 1}), tensor<2>(4, e, {68, 1}, 4)};
  impl::ReducePlan r = impl::plan_reduction(aligned, 2);
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.rows, 100);
  EXPECT_EQ(r.row_length, 64);
  const Operand pitch_65[] = {tensor<2>(4, e, {65, 1}), tensor<2>(4, e, {65, 1})};
  EXPECT_EQ(impl::plan_reduction(pitch_65, 2).width, 1);
  EXPECT_EQ(r.row_lead, 0);
  EXPECT_EQ(r.row_packs(), 16);
  // Rows one element past a pack boundary (an interior's): 15 whole packs from element 3, edges 0-2 and 63.
  const Operand offset[] = {tensor<2>(4, e, {68, 1}, 1), tensor<2>(4, e, {68, 1}, 1)};
  r = impl::plan_reduction(offset, 2);
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.row_lead, 3);
  EXPECT_EQ(r.row_packs(), 15);
  const Operand apart[] = {tensor<2>(4, e, {68, 1}, 1), tensor<2>(4, e, {68, 1}, 2)};
  EXPECT_EQ(impl::plan_reduction(apart, 2).width, 1) << "rows at different offsets from a pack";
  const Operand no_pack[] = {tensor<2>(4, {100, 6}, {68, 1}, 1), tensor<2>(4, {100, 6}, {68, 1}, 1)};
  EXPECT_EQ(impl::plan_reduction(no_pack, 2).width, 1) << "rows of 6 from element 1 hold no whole pack";
  const Operand one_row[] = {tensor<2>(4, {1, 64}, {68, 1}, 1), tensor<2>(4, {1, 64}, {68, 1}, 1)};
  EXPECT_EQ(impl::plan_reduction(one_row, 2).width, 1) << "one dimension: packs from an aligned start only";
  const Operand whole[] = {tensor<2>(8, e, {1, 100}), tensor<2>(8, e, {1, 100})};
  r = impl::plan_reduction(whole, 2);
  EXPECT_EQ(r.rows, 1);
  EXPECT_EQ(r.width, 2);
  // The fused form orders by its output, the last operand.
  const Operand fused[] = {tensor<2>(8, e, {64, 1}), tensor<2>(8, e, {1, 100})};
  EXPECT_EQ(impl::plan_reduction(fused, 2, 1).geometry.axes[0], 0);
  EXPECT_EQ(impl::plan_reduction(fused, 2, 0).geometry.axes[0], 1);
}

// Reductions along dimensions (kstream/impl/reduce_plan.hpp).

/// `in` reduced along `dims`: the widened result (stride 0 on the reduced dimensions, the kept ones a dense
/// LayoutRight result of doubles), planned with device (resident threads) or host facts.
impl::AlongPlan plan_along(const Operand& in, std::initializer_list<int> dims, std::int64_t resident_threads = 0) {
  impl::ReducedDims reduced;
  for (const int d : dims) reduced.dims[reduced.count++] = d;
  Operand widened = in;
  widened.address = std::uintptr_t(1) << 40;
  widened.element_bytes = 8;
  std::int64_t next = 1;
  for (int r = in.rank - 1; r >= 0; --r) {
    widened.strides[r] = reduced.has(r) ? 0 : next;
    if (!reduced.has(r)) next *= in.extents[r];
  }
  const impl::AlongFacts facts{resident_threads > 0, resident_threads};
  return impl::plan_along(facts, reduced, widened, &in, 1, "test");
}

constexpr std::int64_t h200_threads = 132 * 2048, a100_threads = 108 * 2048, mi250x_threads = 110 * 2560;

/// What every plan holds: lanes that fill a team, slices that cover each output's elements once, its league.
void expect_consistent(const impl::AlongPlan& p, bool device) {
  if (device) {
    EXPECT_EQ(p.block_outputs * p.reduce_lanes, p.team_size * p.thread_outputs);
    EXPECT_TRUE(p.thread_outputs == 1 || (p.reduce_lanes == 1 && p.slices == 1 && p.geometry.reduced <= 1))
        << "several outputs a thread only where a thread owns each whole";
  }
  EXPECT_EQ(p.blocks, (p.outputs + p.block_outputs - 1) / p.block_outputs);
  EXPECT_GE(p.slices * p.slice_length, p.length);
  EXPECT_LT((p.slices - 1) * p.slice_length, std::max<std::int64_t>(p.length, 1));
  if (device && p.slices > 1) {
    EXPECT_EQ(p.slice_length % (p.reduce_lanes * impl::device_in_flight), 0)
        << "every slice starts at lane 0, each thread with whole groups of loads in flight";
    // The fold: a power of two of threads an output, device_in_flight of its partials each at least (or the team),
    // teams that cover the outputs once.
    EXPECT_EQ(p.fold_lanes & (p.fold_lanes - 1), 0);
    EXPECT_LE(p.fold_lanes, p.team_size);
    EXPECT_TRUE(p.fold_lanes == p.team_size || p.fold_lanes * impl::device_in_flight >= p.slices);
    EXPECT_TRUE(p.fold_lanes == 1 || (p.fold_lanes / 2) * impl::device_in_flight < p.slices);
    const std::int64_t outputs_a_team = p.team_size / p.fold_lanes;
    EXPECT_EQ(p.fold_league, (p.outputs + outputs_a_team - 1) / outputs_a_team);
  }
  EXPECT_EQ(p.league, p.blocks * p.slices);
}

TEST(AlongPlan, TheResultsZeroStridesSortTheReducedDimensionsInnermostAndMergeOnlyThem) {
  // A LayoutRight 6 x 7 x 8 field summed over its last two axes: one reduced dimension of 56 (they merge), the
  // kept axis outer; over its middle axis: reduced 7 (stride 8) innermost, then the kept 8 and 6 (no merge).
  const Operand field = tensor<3>(4, {6, 7, 8}, {56, 8, 1});
  const impl::AlongPlan last_two = plan_along(field, {1, 2}, h200_threads);
  ASSERT_EQ(last_two.geometry.dims, 2);
  EXPECT_EQ(last_two.geometry.reduced, 1);
  EXPECT_EQ(last_two.geometry.extents[0], 56);
  EXPECT_EQ(last_two.outputs, 6);
  EXPECT_EQ(last_two.length, 56);
  EXPECT_FALSE(last_two.outer);
  const impl::AlongPlan middle = plan_along(field, {1}, h200_threads);
  ASSERT_EQ(middle.geometry.dims, 3);
  EXPECT_EQ(middle.geometry.reduced, 1);
  EXPECT_EQ(middle.geometry.axes[0], 1);
  EXPECT_EQ(middle.geometry.axes[1], 2);
  EXPECT_TRUE(middle.outer) << "the kept last axis has the unit stride";
  // Every dimension: one output, the full reduction's normalization (one dimension of every element).
  const impl::AlongPlan all = plan_along(field, {0, 1, 2}, h200_threads);
  EXPECT_EQ(all.outputs, 1);
  EXPECT_EQ(all.geometry.dims, impl::plan_reduction(&field, 1).geometry.dims);
  EXPECT_EQ(all.geometry.extents[0], 336);
  for (const auto& p : {last_two, middle, all}) expect_consistent(p, true);
}

TEST(AlongPlan, MultivectorColumnsAndRowsOnDevices) {
  const std::int64_t n = std::int64_t(1) << 22;
  for (const std::int64_t k : {1, 2, 4, 8, 16, 64, 1024}) {
    const Operand right = tensor<2>(4, {n / k, k}, {k, 1}), left = tensor<2>(4, {n / k, k}, {1, n / k});
    // Columns of LayoutRight: outer, a thread per column in a row of threads, the team's rows share the column.
    const impl::AlongPlan columns = plan_along(right, {0}, h200_threads);
    EXPECT_EQ(columns.outer, k > 1) << k;
    if (k > 1) {
      EXPECT_EQ(columns.block_outputs, std::min<std::int64_t>(k, 256)) << k;
    }
    // Columns of LayoutLeft: inner, a team's 256 threads along a column (each column millions of elements).
    const impl::AlongPlan left_columns = plan_along(left, {0}, h200_threads);
    EXPECT_FALSE(left_columns.outer);
    EXPECT_EQ(left_columns.reduce_lanes, 256) << k;
    // Few columns: slices, so that the teams fill the device (1056 teams of 256 on an H200) and no more, each
    // thread with at least along_slice_per_thread elements (2^22 elements: 512 teams).
    for (const auto& p : {columns, left_columns}) {
      expect_consistent(p, true);
      if (k <= 16) {
        EXPECT_EQ(p.league, 512) << k;
      }
      EXPECT_LT(p.league, h200_threads / 256 + p.blocks) << k;
      if (p.slices > 1) {
        EXPECT_GE(p.slice_length / p.reduce_lanes, impl::along_slice_per_thread) << k;
      }
    }
    if (k == 1) {
      EXPECT_EQ(left_columns.slices, 512) << "one column of 2^22: 32 elements a thread";
      EXPECT_EQ(left_columns.fold_lanes, 128) << "four partials a thread";
      EXPECT_EQ(left_columns.fold_league, 1);
    }
    if (k == 16) {
      EXPECT_EQ(left_columns.slices, 32) << "16 columns of 2^18: 2^18 / (256 x 32), by the elements a thread";
      EXPECT_EQ(left_columns.fold_lanes, 8) << "32 slices, four a thread";
      EXPECT_EQ(left_columns.fold_league, 1) << "16 outputs of 8 threads in one team";
    }
    // Rows of LayoutRight: inner, lanes along a row as long as it has elements for them.
    const impl::AlongPlan rows = plan_along(right, {1}, h200_threads);
    EXPECT_FALSE(rows.outer && k > 1);
    expect_consistent(rows, true);
    if (k >= 64) {
      EXPECT_EQ(rows.reduce_lanes, k * 4 / impl::along_lane_bytes) << "along_lane_bytes a thread: 16 floats";
    } else {
      EXPECT_EQ(rows.reduce_lanes, 1) << "a thread per row of " << k;
    }
    // Doubles: 8 a thread (a thread's rows of 16 doubles left a warp's rows to fall out of L1).
    const impl::AlongPlan double_rows = plan_along(tensor<2>(8, {n / k, k}, {k, 1}), {1}, h200_threads);
    EXPECT_EQ(double_rows.reduce_lanes, std::min<std::int64_t>(256, std::max<std::int64_t>(1, k / 8))) << k;
    EXPECT_EQ(rows.slices, 1) << "millions of rows fill the device alone";
    // Rows under along_lane_bytes: several a thread while the blocks still fill an H200's 1056 teams of 256 (2^22
    // elements: rows of 1 take 8, not 16; rows of 4 would take 2, fewer than along_thread_outputs_min: one).
    const std::int64_t owned = k == 1 ? 8 : k == 2 ? 4 : 1;
    EXPECT_EQ(rows.thread_outputs, owned) << k;
    EXPECT_EQ(rows.block_outputs, 256 * owned / rows.reduce_lanes) << k;
    const impl::AlongPlan left_rows = plan_along(left, {1}, h200_threads);
    EXPECT_TRUE(left_rows.outer) << k;
    EXPECT_EQ(left_rows.thread_outputs, owned) << k << " (outer: a thread walks its rows' elements)";
    expect_consistent(left_rows, true);
  }
}

TEST(AlongPlan, ShortRowsTakeSeveralOutputsAThreadWhileTheTeamsFillTheDevice) {
  const std::int64_t n = std::int64_t(1) << 24;
  struct Case {
    int bytes;
    std::int64_t k, owned;
  };
  // along_lane_bytes (64) of the first input a thread, at most along_thread_outputs, at least
  // along_thread_outputs_min (else one).
  for (const Case c : {Case{4, 1, 16}, Case{4, 2, 8}, Case{4, 3, 4}, Case{4, 4, 4}, Case{4, 8, 1}, Case{4, 16, 1},
                       Case{8, 1, 8}, Case{8, 2, 4}, Case{8, 4, 1}, Case{8, 8, 1}, Case{2, 1, 16}, Case{2, 8, 4}}) {
    for (const bool right : {true, false}) {
      const std::int64_t rows = n / c.k;
      const Operand x = right ? tensor<2>(c.bytes, {rows, c.k}, {c.k, 1}) : tensor<2>(c.bytes, {rows, c.k}, {1, rows});
      const impl::AlongPlan p = plan_along(x, {1}, h200_threads);
      EXPECT_EQ(p.thread_outputs, c.owned) << c.bytes << " bytes, rows of " << c.k << (right ? " right" : " left");
      EXPECT_EQ(p.slices, 1);
      expect_consistent(p, true);
    }
  }
  // Fewer rows: as many a thread as leave 1056 teams of 256 (2^21 rows of one float: 4; 2^20 would leave room for
  // two: one).
  EXPECT_EQ(plan_along(tensor<2>(4, {1 << 21, 1}, {1, 1}), {1}, h200_threads).thread_outputs, 4);
  EXPECT_EQ(plan_along(tensor<2>(4, {1 << 20, 1}, {1, 1}), {1}, h200_threads).thread_outputs, 1);
  // Two reduced dimensions that do not merge: one output a thread (the kernel walks them by coordinates).
  const impl::AlongPlan apart = plan_along(tensor<3>(4, {1 << 20, 2, 2}, {4, 1, 1 << 22}), {1, 2}, h200_threads);
  EXPECT_EQ(apart.geometry.reduced, 2);
  EXPECT_EQ(apart.thread_outputs, 1);
  // Hosts: one output at a time, as before.
  EXPECT_EQ(plan_along(tensor<2>(4, {n, 1}, {1, 1}), {1}).thread_outputs, 1);
}

TEST(AlongPlan, SlicesDependOnTheDeviceNotOnAHostsThreads) {
  const Operand left = tensor<2>(8, {1 << 24, 4}, {1, 1 << 24});
  const impl::AlongPlan h200 = plan_along(left, {0}, h200_threads), a100 = plan_along(left, {0}, a100_threads);
  const impl::AlongPlan mi250x = plan_along(left, {0}, mi250x_threads);
  EXPECT_GT(h200.slices, a100.slices) << "more multiprocessors, more slices";
  for (const auto& p : {h200, a100, mi250x}) expect_consistent(p, true);
  // Hosts: tiles of a fixed length whatever the thread count (the plan has no thread count).
  const impl::AlongPlan host = plan_along(left, {0});
  EXPECT_EQ(host.slice_length, impl::along_host_tile_items);
  EXPECT_EQ(host.slices, (std::int64_t(1) << 24) / impl::along_host_tile_items);
  EXPECT_EQ(host.block_outputs, 1);
  expect_consistent(host, false);
  // Host outer: a vector of up to along_host_outputs adjacent outputs, slices of a tile's elements.
  const Operand right = tensor<2>(4, {4096, 1000}, {1000, 1});
  const impl::AlongPlan outer = plan_along(right, {0});
  EXPECT_TRUE(outer.outer);
  EXPECT_EQ(outer.block_outputs, 1000) << "a whole row of outputs";
  EXPECT_EQ(outer.slice_length, impl::along_host_outer_items / 1000);
  EXPECT_EQ(outer.step_dim, outer.geometry.reduced) << "the step runs along the outputs";
  expect_consistent(outer, false);
  // Short host rows: a tile holds many outputs.
  const impl::AlongPlan short_rows = plan_along(right, {1});
  EXPECT_EQ(short_rows.slices, 1);
  EXPECT_EQ(short_rows.block_outputs, impl::along_host_tile_items / 1000);
}

TEST(AlongPlan, EmptyReducedDimensionsGiveTheIdentityAndEmptyKeptOnesNothing) {
  const impl::AlongPlan none_reduced = plan_along(tensor<2>(4, {0, 5}, {5, 1}), {0}, h200_threads);
  EXPECT_EQ(none_reduced.outputs, 5);
  EXPECT_EQ(none_reduced.length, 0);
  EXPECT_EQ(none_reduced.slices, 1);
  expect_consistent(none_reduced, true);
  const impl::AlongPlan no_outputs = plan_along(tensor<2>(4, {0, 5}, {5, 1}), {1}, h200_threads);
  EXPECT_EQ(no_outputs.outputs, 0);
  EXPECT_EQ(no_outputs.league, 0);
}

TEST(AlongPlan, DeviceIndexMathBeyond32BitsIsRefused) {
  const std::int64_t big = std::int64_t(1) << 32;
  // 2^32 outputs of two elements: refused on a device, planned on a host.
  const Operand wide = tensor<2>(4, {big, 2}, {2, 1});
  EXPECT_THROW(plan_along(wide, {1}, h200_threads), std::length_error);
  EXPECT_NO_THROW(plan_along(wide, {1}));
  // One reduced dimension of 2^32 elements: 64-bit offsets along it are fine; a kept stride of 2^32 is not.
  EXPECT_NO_THROW(plan_along(tensor<2>(4, {big, 2}, {2, 1}), {0}, h200_threads));
  EXPECT_THROW(plan_along(tensor<2>(4, {big, 2}, {1, big}), {0}, h200_threads), std::length_error);
}

}  // namespace
}  // namespace kstream::test

// The plan (kstream/impl/plan.hpp): every row of its condition -> strategy table, for device and host facts, on
// any build. Plain facts in, plain numbers out: no kernel runs here.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <kstream/impl/plan.hpp>
#include <kstream/streaming_stores.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace kstream::test {
namespace {

using impl::OperandFacts;
using impl::Plan;
using impl::Strategy;

constexpr std::int64_t h200_cache = std::int64_t(50) << 20;
constexpr TileShape device_default{256, 1, 1};
constexpr TileShape host_default{1, 4, 256};

/// An operand of `bytes`-byte elements at `offset` elements past a 16-byte boundary.
OperandFacts at(int bytes, std::int64_t offset = 0, std::int64_t stride = 1) {
  return {std::uintptr_t(1) << 20 | std::uintptr_t(offset * bytes), stride, bytes};
}

struct Call {
  std::int64_t n;
  OperandFacts out;
  std::vector<OperandFacts> ins;
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
    c.n = n;
    c.out = out;
    c.ins = ins.data();
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
  EXPECT_EQ(strategy_of({.n = 1000, .out = at(2, 3), .ins = std::vector<OperandFacts>(9, at(2, 1))}), "contiguous")
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

}  // namespace
}  // namespace kstream::test

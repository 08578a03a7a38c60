// Both store paths of the engine give exact results: plain stores and (host x86) streaming stores, forced with
// kstream::set_streaming_stores; the policy's decisions: aliasing, size, device spaces and strategy.
#include <cmath>
#include <kstream/kstream.hpp>
#include <string>
#include <vector>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class StreamingStoreTest : public ::testing::Test {
 protected:
  void TearDown() override { kstream::set_streaming_stores(StreamingStores::automatic); }
};
TYPED_TEST_SUITE(StreamingStoreTest, AllCases, CaseNames);

/// Streaming stores exist where the engine runs on an x86 host (contiguous views, equally aligned or not).
template <class C>
constexpr bool may_stream = !on_device<C> && KSTREAM_HOST_STREAMING_STORES;

/// Whether kstream writes this call's output with streaming stores (its plan's say).
template <class Exec, class OutView, class... InViews>
bool streams(const OutView& out, const InViews&... ins) {
  return impl::plan_of(Exec(), default_tile_shape<Exec>(), out, ins...).streaming_stores;
}

TYPED_TEST(StreamingStoreTest, BothStorePathsAreExactAtEdgeSizesAndPlacements) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  // The default shape, and on a host tiles of one pack's worth of elements: every tile then starts at another
  // alignment of the output, so an unequally aligned call runs its scalar edges and packs in each tile.
  std::vector<TileShape> shapes = {default_tile_shape<Exec>()};
  if (!on_device<TypeParam>) shapes.push_back(TileShape{1, 1, 1});
  for (const StreamingStores mode : {StreamingStores::always, StreamingStores::never}) {
    kstream::set_streaming_stores(mode);
    for (const TileShape& shape : shapes) {
      const std::string how = std::string(mode == StreamingStores::always ? " streaming" : " plain") + " tiles of " +
                              std::to_string(shape.tile_packs()) + " packs";
      for (const std::int64_t n : edge_sizes(tile_elements<TypeParam>())) {
        // One-pack tiles repeat their alignment pattern every few tiles: the largest size adds nothing there.
        if (shape != default_tile_shape<Exec>() && n > 100 * tile_elements<TypeParam>()) continue;
        for (const auto& [inputs, out] : standard_placements<3>()) {
          ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out};
          EXPECT_EQ(run_case<TypeParam>(
                        c, [&](auto exec, auto o, auto a, auto b, auto cc) { kstream::fma(exec, a, b, cc, o, shape); },
                        [](T a, T b, T cc) { return std::fma(a, b, cc); }),
                    "")
              << c.describe() << how;
          ElementwiseCase<2> a{.n = n, .inputs = {inputs[0], inputs[1]}, .out = out};
          EXPECT_EQ(run_case<TypeParam>(
                        a, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                        [](T x, T y) { return T(x + y); }),
                    "")
              << a.describe() << how;
        }
      }
    }
  }
}

TYPED_TEST(StreamingStoreTest, AliasedOutputFallsBackToPlainStoresAndStaysExact) {
  using T = typename TypeParam::value_type;
  kstream::set_streaming_stores(StreamingStores::always);
  for (const int alias : {0, 1}) {
    ElementwiseCase<2> c{.n = 4 * tile_elements<TypeParam>() + 3, .alias = alias};
    EXPECT_EQ(run_case<TypeParam>(
                  c,
                  [](auto exec, auto o, auto x, auto y) {
                    EXPECT_FALSE(streams<decltype(exec)>(o, x, y)) << "out aliases an input";
                    kstream::add(exec, x, y, o);
                  },
                  [](T x, T y) { return T(x + y); }),
              "")
        << c.describe();
  }
}

TYPED_TEST(StreamingStoreTest, PolicyFollowsModeSizeAliasingAndStrategy) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using Unmanaged = Kokkos::View<T*, typename TypeParam::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Strided =
      Kokkos::View<T*, Kokkos::LayoutStride, typename TypeParam::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // The decision reads only extents and addresses: views of any extent over a small buffer are enough.
  Kokkos::View<T*, typename TypeParam::memory_space> buffer("buffer", 64);
  const std::int64_t huge = 4 * kstream::last_level_cache_bytes() / std::int64_t(sizeof(T));
  const Unmanaged x(buffer.data(), huge), y(buffer.data() + 16, huge), out(buffer.data() + 32, huge);
  const Unmanaged small_x(buffer.data(), 64 / 4), small_out(buffer.data() + 32, 64 / 4);
  const Unmanaged shifted_out(buffer.data() + 33, huge);

  kstream::set_streaming_stores(StreamingStores::automatic);
  EXPECT_EQ(streams<Exec>(out, x, y), may_stream<TypeParam>) << "large, packed, not aliased";
  EXPECT_FALSE(streams<Exec>(small_out, small_x, small_x)) << "fits in cache";
  EXPECT_FALSE(streams<Exec>(x, x, y)) << "out is an input";
  EXPECT_EQ(streams<Exec>(shifted_out, x, y), may_stream<TypeParam>)
      << "unequally aligned: the output streams at its own alignment";
  EXPECT_FALSE(streams<Exec>(shifted_out, shifted_out, y)) << "unequally aligned, out is an input";
  EXPECT_FALSE(streams<Exec>(Strided(buffer.data(), Kokkos::LayoutStride(huge / 2, 2)),
                                          Strided(buffer.data() + 1, Kokkos::LayoutStride(huge / 2, 2)),
                                          Strided(buffer.data() + 5, Kokkos::LayoutStride(huge / 2, 2))))
      << "strided: no packs";
  kstream::set_streaming_stores(StreamingStores::always);
  EXPECT_EQ(streams<Exec>(small_out, small_x, small_x), may_stream<TypeParam>) << "forced";
  kstream::set_streaming_stores(StreamingStores::never);
  EXPECT_FALSE(streams<Exec>(out, x, y)) << "switched off";
  EXPECT_EQ(kstream::streaming_stores(), StreamingStores::never);
}

}  // namespace
}  // namespace kstream::test

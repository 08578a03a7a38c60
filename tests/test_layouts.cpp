// Every operand layout the engine's strategies must handle, on every backend: each combination of element offsets
// of each operand (0..3 for float, 0..1 for double: every position inside a 16-byte pack), at sizes around pack
// and tile edges, for every packs_in_flight; strides 1..3, equal and mixed. Tiled results are compared bit for
// bit with the scalar reference, and the guards around every view must stay untouched.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <kstream/kstream.hpp>
#include <vector>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class LayoutTest : public ::testing::Test {};
TYPED_TEST_SUITE(LayoutTest, AllCases, CaseNames);

/// Shapes with small tiles (so tile edges come at small n), one per packs_in_flight value.
template <class C>
std::vector<TileShape> small_tile_shapes() {
  std::vector<TileShape> shapes;
  for (const int packs : supported_packs_in_flight) shapes.push_back({on_device<C> ? 32 : 1, packs, 2});
  return shapes;
}

template <class C>
std::vector<std::int64_t> sizes_around(const TileShape& shape) {
  constexpr std::int64_t per_pack = pack_bytes / std::int64_t(sizeof(typename C::value_type));
  const std::int64_t tile = shape.tile_packs() * per_pack;  // elements in one tile of the packed strategy
  return {1, per_pack + 1, tile - 1, tile + 1, 2 * tile + per_pack + 3};
}

/// Calls `check(inputs, out)` for every assignment of offsets 0..max_offset to the Arity inputs and the output.
template <std::size_t Arity, class Check>
void for_every_offset_combination(std::int64_t max_offset, Check&& check) {
  std::array<std::int64_t, Arity + 1> offset{};
  while (true) {
    std::array<Placement, Arity> inputs;
    for (std::size_t k = 0; k < Arity; ++k) inputs[k] = {offset[k], 1};
    check(inputs, Placement{offset[Arity], 1});
    std::size_t k = 0;
    while (k <= Arity && offset[k] == max_offset) offset[k++] = 0;
    if (k > Arity) return;
    ++offset[k];
  }
}

template <class C>
std::int64_t max_offset_in_pack() {
  return pack_bytes / std::int64_t(sizeof(typename C::value_type)) - 1;
}

template <class T>
struct ScaleBy3 {
  KOKKOS_INLINE_FUNCTION T operator()(T x) const { return T(3) * x; }
};

TYPED_TEST(LayoutTest, AddAtEveryOffsetCombinationSizeAndPacksInFlight) {
  using T = typename TypeParam::value_type;
  int cases = 0;
  for_every_offset_combination<2>(max_offset_in_pack<TypeParam>(), [&](const auto& inputs, Placement out) {
    for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
      for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
        ElementwiseCase<2> c{.n = n, .inputs = inputs, .out = out, .seed = std::uint64_t(++cases)};
        EXPECT_EQ(run_case<TypeParam>(
                      c, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                      [](T x, T y) { return T(x + y); }),
                  "")
            << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
      }
    }
  });
}

TYPED_TEST(LayoutTest, FmaAtEveryOffsetCombinationSizeAndPacksInFlight) {
  using T = typename TypeParam::value_type;
  int cases = 0;
  for_every_offset_combination<3>(max_offset_in_pack<TypeParam>(), [&](const auto& inputs, Placement out) {
    for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
      for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
        ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out, .seed = std::uint64_t(++cases)};
        EXPECT_EQ(run_case<TypeParam>(
                      c, [&](auto exec, auto o, auto a, auto b, auto cc) { kstream::fma(exec, a, b, cc, o, shape); },
                      [](T a, T b, T cc) { return std::fma(a, b, cc); }),
                  "")
            << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
      }
    }
  });
}

TYPED_TEST(LayoutTest, TransformOfOneAndFourInputsAtEveryOffsetCombination) {
  using T = typename TypeParam::value_type;
  const std::int64_t max_offset = max_offset_in_pack<TypeParam>();
  for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
    for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
      for_every_offset_combination<1>(max_offset, [&](const auto& inputs, Placement out) {
        ElementwiseCase<1> c{.n = n, .inputs = inputs, .out = out};
        EXPECT_EQ(run_case<TypeParam>(
                      c, [&](auto exec, auto o, auto x) { kstream::transform(exec, shape, o, ScaleBy3<T>{}, x); },
                      ScaleBy3<T>{}),
                  "")
            << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
      });
      // Four inputs: the output's offset against each input offset in turn (the others at 0 and at the output's).
      for (std::int64_t out_offset = 0; out_offset <= max_offset; ++out_offset) {
        for (std::size_t moved = 0; moved < 4; ++moved) {
          for (std::int64_t offset = 0; offset <= max_offset; ++offset) {
            ElementwiseCase<4> c{.n = n, .out = {out_offset, 1}};
            for (std::size_t k = 0; k < 4; ++k) c.inputs[k] = {k == moved ? offset : out_offset, 1};
            EXPECT_EQ(
                run_case<TypeParam>(
                    c, [&](auto exec, auto o, auto... ins) { kstream::transform(exec, shape, o, FmaPlus{}, ins...); },
                    FmaPlus{}),
                "")
                << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
          }
        }
      }
    }
  }
}

TYPED_TEST(LayoutTest, StridesOneToThreeEqualAndMixed) {
  using T = typename TypeParam::value_type;
  for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
    for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
      for (std::int64_t sx = 1; sx <= 3; ++sx) {
        for (std::int64_t sy = 1; sy <= 3; ++sy) {
          for (std::int64_t so = 1; so <= 3; ++so) {
            ElementwiseCase<2> add_case{.n = n, .inputs = {Placement{1, sx}, Placement{0, sy}}, .out = {2, so}};
            EXPECT_EQ(run_tiled_and_naive<TypeParam>(
                          add_case, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                          [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); },
                          [](T x, T y) { return T(x + y); }),
                      "")
                << add_case.describe() << " packs_in_flight=" << shape.packs_in_flight;
          }
          ElementwiseCase<3> fma_case{
              .n = n, .inputs = {Placement{0, sx}, Placement{3, sy}, Placement{1, sx}}, .out = {0, sy}};
          EXPECT_EQ(
              run_tiled_and_naive<TypeParam>(
                  fma_case, [&](auto exec, auto o, auto a, auto b, auto c) { kstream::fma(exec, a, b, c, o, shape); },
                  [](auto exec, auto o, auto a, auto b, auto c) { kstream::naive::fma(exec, a, b, c, o); },
                  [](T a, T b, T c) { return std::fma(a, b, c); }),
              "")
              << fma_case.describe() << " packs_in_flight=" << shape.packs_in_flight;
        }
      }
    }
  }
}

/// kstream::fma and its naive twin with their default shapes on case c, against std::fma: "" or what was wrong.
template <class C>
std::string default_shape_fma_error(const ElementwiseCase<3>& c) {
  using T = typename C::value_type;
  return run_tiled_and_naive<C>(
      c, [](auto exec, auto o, auto a, auto b, auto cc) { kstream::fma(exec, a, b, cc, o); },
      [](auto exec, auto o, auto a, auto b, auto cc) { kstream::naive::fma(exec, a, b, cc, o); },
      [](T a, T b, T cc) { return std::fma(a, b, cc); });
}

// The default shapes (what users get) on the benchmark's layouts, at a size that spans many tiles.
TYPED_TEST(LayoutTest, DefaultShapeOnTheBenchmarkLayouts) {
  const std::int64_t n = 3 * tile_elements<TypeParam>() + 5;
  const std::vector<std::pair<std::array<Placement, 3>, Placement>> layouts = {
      {{Placement{1, 1}, Placement{1, 1}, Placement{1, 1}}, {1, 1}},  // offset1
      {{Placement{1, 1}, Placement{2, 1}, Placement{3, 1}}, {1, 1}},  // offsets123 (fma)
      {{Placement{0, 2}, Placement{0, 2}, Placement{0, 2}}, {0, 2}},  // stride2
      {{Placement{0, 3}, Placement{0, 3}, Placement{0, 3}}, {0, 3}},  // stride3
  };
  for (const auto& [inputs, out] : layouts) {
    ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out};
    EXPECT_EQ(default_shape_fma_error<TypeParam>(c), "") << c.describe();
  }
}

// Strided operands spanning more than a device's cache, default shape: on a device every element type runs one
// element per index (the elements strategy), floats included; on a host the tile path (device_cache_bytes is 0
// there, so the size is the tile-spanning one). Equal and unequal strides, an odd tail.
TYPED_TEST(LayoutTest, DefaultShapeOnStridedOperandsBeyondTheDeviceCache) {
  using T = typename TypeParam::value_type;
  const std::int64_t cache = impl::device_cache_bytes(typename TypeParam::execution_space());
  // fma's four operands at stride 3 span 12 n sizeof(T) bytes: a third past the cache.
  const std::int64_t n =
      std::max<std::int64_t>(3 * tile_elements<TypeParam>(), cache / (9 * std::int64_t(sizeof(T)))) + 7;
  ElementwiseCase<3> fma_case{.n = n, .inputs = {Placement{0, 3}, Placement{1, 3}, Placement{2, 3}}, .out = {1, 3}};
  EXPECT_EQ(default_shape_fma_error<TypeParam>(fma_case), "") << fma_case.describe();
  ElementwiseCase<2> add_case{.n = n, .inputs = {Placement{3, 2}, Placement{0, 3}}, .out = {2, 4}};
  EXPECT_EQ(run_tiled_and_naive<TypeParam>(
                add_case, [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); },
                [](T x, T y) { return T(x + y); }),
            "")
      << add_case.describe();
}

// Contiguous operands spanning more than a device's cache, default shape (on a host: a size that spans many
// tiles). The suite's unequal layouts and one with only the output shifted, an odd tail (n is not a multiple of
// the 256-thread teams).
TYPED_TEST(LayoutTest, DefaultShapeOnContiguousOperandsBeyondTheDeviceCache) {
  using T = typename TypeParam::value_type;
  const std::int64_t cache = impl::device_cache_bytes(typename TypeParam::execution_space());
  // fma's four operands span 4 n sizeof(T) bytes: a third past the cache.
  const std::int64_t n =
      std::max<std::int64_t>(3 * tile_elements<TypeParam>(), cache / (3 * std::int64_t(sizeof(T)))) + 7;
  const std::vector<std::pair<std::array<Placement, 3>, Placement>> layouts = {
      {{Placement{0, 1}, Placement{0, 1}, Placement{0, 1}}, {0, 1}},  // aligned
      {{Placement{1, 1}, Placement{1, 1}, Placement{1, 1}}, {1, 1}},  // offset1
      {{Placement{1, 1}, Placement{2, 1}, Placement{3, 1}}, {1, 1}},  // offsets123 (fma)
      {{Placement{0, 1}, Placement{0, 1}, Placement{0, 1}}, {3, 1}},  // the output alone shifted
  };
  for (const auto& [inputs, out] : layouts) {
    ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out};
    EXPECT_EQ(default_shape_fma_error<TypeParam>(c), "") << c.describe();
  }
}

}  // namespace
}  // namespace kstream::test

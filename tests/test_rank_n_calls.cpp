// Views of several dimensions on every backend: fma and transforms of four inputs, explicit tile shapes, rows at
// every offset inside a pack, exact aliasing, empty and single-element views (tests/rank_case.hpp).
#include "rank_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class RankCallsTest : public ::testing::Test {};
TYPED_TEST_SUITE(RankCallsTest, AllCases, CaseNames);

TYPED_TEST(RankCallsTest, FmaAndFourInputTransforms) {
  using T = typename TypeParam::value_type;
  using Some = Ranks<2, 3, 5, 8>;
  for (const int rank : {2, 3, 5, 8}) {
    const Extents extents = test_extents(rank);
    for (const auto& maps : mapping_combinations<4>(extents)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 3, Some>(
                    extents, maps, [](auto exec, auto o, auto a, auto b, auto c) { kstream::fma(exec, a, b, c, o); },
                    [](T a, T b, T c) { return std::fma(a, b, c); })),
                "")
          << "fma " << describe(maps);
    }
    for (const auto& maps : mapping_combinations<5>(extents)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 4, Some>(
                    extents, maps,
                    [](auto exec, auto o, auto... ins) { kstream::transform(exec, o, FmaPlus{}, ins...); }, FmaPlus{})),
                "")
          << "transform " << describe(maps);
    }
  }
  // The naive fma and transform on rank 3 (MDRange; add covers every rank).
  const Extents extents = test_extents(3);
  for (const auto& maps : mapping_combinations<4>(extents))
    EXPECT_EQ(
        (run_tensor_case<TypeParam, 3, Ranks<3>>(
            extents, maps, [](auto exec, auto o, auto a, auto b, auto c) { kstream::naive::fma(exec, a, b, c, o); },
            [](T a, T b, T c) { return std::fma(a, b, c); })),
        "")
        << "naive fma " << describe(maps);
}

// Explicit tile shapes (small tiles: many per row, edges everywhere) and long rows at every pack offset.
TYPED_TEST(RankCallsTest, ExplicitShapesAndRowsAtEveryOffset) {
  using T = typename TypeParam::value_type;
  const Extents extents{3, 4, 301};
  const int team = on_device<TypeParam> ? 32 : 1;
  for (const TileShape shape : {TileShape{team, 1, 1}, TileShape{team, 2, 2}, TileShape{team, 8, 1}}) {
    for (const auto& maps : mapping_combinations<3>(extents))
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<3>>(
                    extents, maps, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << describe(maps) << " shape " << shape.team_size << "," << shape.packs_in_flight << ","
          << shape.chunks_per_thread;
  }
  // Rows whose starts sit at every offset inside a 16-byte pack, the same for every operand (packed rows with
  // a head) and different (single-element rows).
  const std::int64_t per_pack = pack_bytes / std::int64_t(sizeof(T));
  for (std::int64_t offset = 0; offset < per_pack; ++offset) {
    for (std::int64_t pitch_pad : {std::int64_t(0), std::int64_t(1)}) {
      Mapping m{"pitched", offset,
                packed_strides(extents, right_order(3), 1, (per_pack - 301 % per_pack) % per_pack + pitch_pad)};
      Mapping other = m;
      other.offset = (offset + 1) % per_pack;
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<3>>(
                    extents, std::array<Mapping, 3>{m, m, m},
                    [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << m.describe();
      EXPECT_EQ((run_tensor_case<TypeParam, 3, Ranks<3>>(
                    extents, std::array<Mapping, 4>{m, other, m, other},
                    [](auto exec, auto o, auto a, auto b, auto c) { kstream::fma(exec, a, b, c, o); },
                    [](T a, T b, T c) { return std::fma(a, b, c); })),
                "")
          << m.describe() << " with inputs at " << other.offset;
    }
  }
}

TYPED_TEST(RankCallsTest, ExactAliasingEmptyAndSingleElementViews) {
  using T = typename TypeParam::value_type;
  const Extents extents = test_extents(3);
  for (const auto& m : standard_mappings(extents))
    EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<3>>(
                  extents, std::array<Mapping, 3>{m, m, m},
                  [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                  [](T x, T y) { return T(x + y); }, 0)),
              "")
        << "out == x, " << m.describe();
  for (const Extents& odd : {Extents{3, 0, 5, 7}, Extents{1, 1, 1, 1}}) {
    for (const auto& m : standard_mappings(odd)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<4>>(
                    odd, std::array<Mapping, 3>{m, m, m},
                    [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << m.describe();
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<4>>(
                    odd, std::array<Mapping, 3>{m, m, m},
                    [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << "naive " << m.describe();
    }
  }
}

}  // namespace
}  // namespace kstream::test

// Views of rank 1 to 8 on every backend, add and its naive twin (MDRange) at every rank: Kokkos' layouts,
// interiors of halo'd allocations, padded rows, transposes, strided inner dimensions, mixed between operands.
// Results are compared bit for bit with a scalar reference by multi-index, and the guards around every view must
// stay untouched (tests/rank_case.hpp). The other calls: test_rank_n_calls.cpp, test_rank_n_reduce.cpp.
#include "rank_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class RankTest : public ::testing::Test {};
TYPED_TEST_SUITE(RankTest, AllCases, CaseNames);

TYPED_TEST(RankTest, AddOnEveryMappingOfEveryRank) {
  using T = typename TypeParam::value_type;
  const auto plus = [](T x, T y) { return T(x + y); };
  for (int rank = 1; rank <= 8; ++rank) {
    const Extents extents = test_extents(rank);
    for (const auto& maps : mapping_combinations<3>(extents)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 2>(
                    extents, maps, [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); }, plus)),
                "")
          << "tiled " << describe(maps);
      EXPECT_EQ(
          (run_tensor_case<TypeParam, 2>(
              extents, maps, [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); }, plus)),
          "")
          << "naive " << describe(maps);
    }
  }
}

}  // namespace
}  // namespace kstream::test

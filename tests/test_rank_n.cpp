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

template <class C, int R>
void check_add_on_every_mapping() {
  using T = typename C::value_type;
  const auto extents = test_extents<R>();
  for (const auto& maps : mapping_combinations<R, 3>(extents)) {
    const auto plus = [](T x, T y) { return T(x + y); };
    EXPECT_EQ((run_tensor_case<C, R, 2>(
                  extents, maps, [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); }, plus)),
              "")
        << "tiled " << describe(maps);
    EXPECT_EQ((run_tensor_case<C, R, 2>(
                  extents, maps, [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); }, plus)),
              "")
        << "naive " << describe(maps);
  }
}

TYPED_TEST(RankTest, AddOnEveryMappingOfEveryRank) {
  [&]<int... R>(std::integer_sequence<int, R...>) {
    (check_add_on_every_mapping<TypeParam, R + 1>(), ...);
  }
  (std::make_integer_sequence<int, 8>{});
}

}  // namespace
}  // namespace kstream::test

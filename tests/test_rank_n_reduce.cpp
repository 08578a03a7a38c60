// Reductions and recordings on views of rank 1 to 8: dot, transform_reduce (Max) and the fused update-and-norm
// on every mapping pair, exact on small whole numbers and the same bits on a second call; a recording of rank-3
// interior calls replayed (tests/rank_case.hpp).
#include "rank_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class RankReduceTest : public ::testing::Test {};
TYPED_TEST_SUITE(RankReduceTest, AllCases, CaseNames);

/// dot, Max and the fused update-and-norm on views of every rank at every mapping pair: exact on small whole numbers,
/// the same bits on a second call.
TYPED_TEST(RankReduceTest, ReductionsOnEveryMapping) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  for (int rank = 1; rank <= 8; ++rank) {
    const Extents extents = test_extents(rank);
    for (const auto& maps : mapping_combinations<2>(extents)) {
      GuardedTensor<T, M> x("x", extents, maps[0]), y("y", extents, maps[1]);
      Acc exact = 0;
      T largest = small_value<T>(0, 0) * small_value<T>(0, 1);
      double norm = 0;
      for (std::int64_t i = 0; i < x.size(); ++i) {
        x.at(i) = small_value<T>(i, 0);
        y.at(i) = small_value<T>(i, 1);
        exact += Acc(x.at(i)) * Acc(y.at(i));
        largest = std::max(largest, T(x.at(i) * y.at(i)));
        norm += double(y.at(i) - x.at(i)) * double(y.at(i) - x.at(i));
      }
      x.upload();
      y.upload();
      Acc first{}, second{};
      Kokkos::View<T, M> result("max");
      // y = y - x and ||y - x||^2 in one pass (y written in place, ordered by y's layout).
      Kokkos::View<Acc, M> squares("squares");
      call_at_rank(rank, AllRanks{}, [&]<int R>() {
        first = kstream::dot(exec, x.template view<R>(), y.template view<R>());
        second = kstream::dot(exec, x.template view<R>(), y.template view<R>());
        kstream::transform_reduce(exec, result, kstream::Max{}, Times<T>{}, x.template view<R>(), y.template view<R>());
        kstream::transform_reduce(exec, y.template view<R>(), Minus<T>{}, squares, kstream::Sum{}, SquareOfFirst<T>{},
                                  y.template view<R>(), x.template view<R>());
      });
      EXPECT_EQ(first, exact) << "dot " << describe(maps);
      EXPECT_TRUE(same_bits(first, second)) << "dot " << describe(maps);
      T got{};
      Kokkos::deep_copy(got, result);
      EXPECT_EQ(got, largest) << "max " << describe(maps);
      Acc fused{};
      Kokkos::deep_copy(fused, squares);
      EXPECT_EQ(double(fused), norm) << "fused " << describe(maps);
      y.download();
      std::int64_t wrong = 0;
      for (std::int64_t i = 0; i < y.size(); ++i)
        wrong += !same_bits(y.at(i), T(small_value<T>(i, 1) - small_value<T>(i, 0)));
      EXPECT_EQ(wrong, 0) << "fused output " << describe(maps);
      EXPECT_EQ(y.damaged_guard_elements(), 0) << "fused output " << describe(maps);
    }
  }
}

/// dot and the fused update over the interior of a padded rank-2 field: `rows` rows of `length` elements, each
/// starting `shift` elements into a row of `pitch`. Exact, the same bits twice, nothing outside the interior written.
/// Returns how a device runs the dot (a host's: a device's plan for its concurrency).
template <class C>
impl::DeviceReduction check_interior_rows(std::int64_t rows, std::int64_t pitch, std::int64_t shift,
                                          std::int64_t length) {
  using T = typename C::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename C::memory_space;
  const typename C::execution_space exec;
  Kokkos::View<T**, Kokkos::LayoutRight, M> px("x", rows + 2, pitch), py("y", rows + 2, pitch);
  auto hx = Kokkos::create_mirror(px);  // copies on every backend: hy keeps y's values before the update
  auto hy = Kokkos::create_mirror(py);
  for (std::int64_t i = 0; i < rows + 2; ++i)
    for (std::int64_t j = 0; j < pitch; ++j) {
      hx(i, j) = small_value<T>(i * pitch + j, 0);
      hy(i, j) = small_value<T>(i * pitch + j, 1);
    }
  Kokkos::deep_copy(px, hx);
  Kokkos::deep_copy(py, hy);
  const auto inner = std::make_pair(shift, shift + length);
  const auto x = Kokkos::subview(px, std::make_pair(std::int64_t(1), rows + 1), inner);
  const auto y = Kokkos::subview(py, std::make_pair(std::int64_t(1), rows + 1), inner);
  Acc exact = 0;
  double norm = 0;
  for (std::int64_t i = 1; i <= rows; ++i)
    for (std::int64_t j = shift; j < shift + length; ++j) {
      exact += Acc(hx(i, j)) * Acc(hy(i, j));
      norm += double(hy(i, j) - hx(i, j)) * double(hy(i, j) - hx(i, j));
    }
  const std::string where =
      "rows=" + std::to_string(rows) + " shift=" + std::to_string(shift) + " length=" + std::to_string(length);
  const Acc first = kstream::dot(exec, x, y), second = kstream::dot(exec, x, y);
  EXPECT_EQ(first, exact) << where;
  EXPECT_TRUE(same_bits(first, second)) << where;
  Kokkos::View<Acc, M> squares("squares");
  kstream::transform_reduce(exec, y, Minus<T>{}, squares, kstream::Sum{}, SquareOfFirst<T>{}, y, x);
  Acc fused{};
  Kokkos::deep_copy(fused, squares);
  EXPECT_EQ(double(fused), norm) << where;
  auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), py);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < rows + 2; ++i)
    for (std::int64_t j = 0; j < pitch; ++j) {
      const bool inside = i >= 1 && i <= rows && j >= shift && j < shift + length;
      wrong += !same_bits(after(i, j), inside ? T(hy(i, j) - hx(i, j)) : hy(i, j));
    }
  EXPECT_EQ(wrong, 0) << where;
  return impl::device_reduction_of(exec, 0, x, y);
}

// Rows that all start 1 to 3 elements past a pack boundary, of lengths that end inside a pack.
TYPED_TEST(RankReduceTest, RowsOffAPackBoundaryReadEveryElementOnce) {
  for (const std::int64_t shift : {1, 2, 3})
    for (const std::int64_t length : {5, 67, 130})
      check_interior_rows<TypeParam>(37, 144, shift, length);  // 144 elements: whole packs of either type
}

// On a device, rows of packs past one launch (the cases above stay in one launch), each at the fewest rows (within
// a quarter) that take the path: rows of at least a warp's packs in warps' units, an odd count (the last pair of
// rows is one), of 32-33 packs (a unit a pair) and of 255-511 (several); shorter rows in chunks of two passes, then
// of four (row_chunk_passes). A host's reductions have neither: it runs the same rows once, fewer of them.
TYPED_TEST(RankReduceTest, RowsPastOneLaunchInWarpsUnitsAndInChunksOfPasses) {
  using T = typename TypeParam::value_type;
  constexpr int W = int(16 / sizeof(T));
  const auto packs = [](std::int64_t length) { return (length - (W - 1)) / W; };    // each row's whole packs
  const auto pitch = [](std::int64_t length) { return (length + W) / W * W + W; };  // rows of whole packs, a gap
  if constexpr (on_device<TypeParam>) {
    const typename TypeParam::execution_space exec;
    const auto one_pass = [&](std::int64_t rows, std::int64_t length) {
      return impl::device_chunks(rows * packs(length) * W, W);
    };
    for (const std::int64_t length : {std::int64_t(1023), std::int64_t(33 * W + 2)}) {
      std::int64_t rows = 50;
      while (impl::one_launch_teams(one_pass(rows, length), impl::device_team_size, exec.concurrency()) > 0)
        rows += rows / 4 + 1;
      rows |= 1;
      const impl::DeviceReduction d = check_interior_rows<TypeParam>(rows, pitch(length), 1, length);
      EXPECT_EQ(d.row_units, (rows + 1) / 2 * ((packs(length) + 63) / 64)) << rows << " rows of " << length;
      EXPECT_EQ(d.launches(), 2);
    }
    const std::int64_t length = 16 * W - 1;  // 15 packs
    std::int64_t rows = 50;
    for (const int passes : {2, 4}) {
      const auto passes_of = [&](std::int64_t r) {
        return impl::row_chunk_passes(one_pass(r, length), impl::device_team_size, exec.concurrency());
      };
      while (passes_of(rows) < passes) rows += rows / 4 + 1;
      ASSERT_EQ(passes_of(rows), passes) << rows << " rows";
      const impl::DeviceReduction d = check_interior_rows<TypeParam>(rows, pitch(length), 1, length);
      EXPECT_EQ(d.row_units, 0);
      EXPECT_EQ(d.passes, passes);
    }
  } else {
    check_interior_rows<TypeParam>(51, 1040, 1, 1023);
  }
}

// A recording of rank-3 interior calls replays as the eager calls run.
TYPED_TEST(RankReduceTest, RecordedCallsOnInteriors) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  using Exec = typename TypeParam::execution_space;
  const Extents extents{4, 5, 150};
  const auto maps = standard_mappings(extents);
  GuardedTensor<T, M> x("x", extents, maps[2]), y("y", extents, maps[3]), out("out", extents, maps[2]);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    x.at(i) = small_value<T>(i, 0);
    y.at(i) = small_value<T>(i, 1);
  }
  x.upload();
  y.upload();
  out.upload();
  Kokkos::View<kstream::accumulator_t<T>, M> result("result");
  auto recording = kstream::record(Exec(), [&](kstream::Recorder<Exec>& r) {
    r.add(x.template view<3>(), y.template view<3>(), out.template view<3>());
    r.fma(out.template view<3>(), x.template view<3>(), y.template view<3>(), out.template view<3>());
    r.dot(out.template view<3>(), x.template view<3>(), result);
  });
  recording.submit();
  recording.submit();  // out = (x + y) * x + y, the same on every replay
  out.download();
  kstream::accumulator_t<T> exact = 0, got = 0;
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const T expected = std::fma(T(x.at(i) + y.at(i)), x.at(i), y.at(i));
    wrong += !same_bits(out.at(i), expected);
    exact += kstream::accumulator_t<T>(expected) * kstream::accumulator_t<T>(x.at(i));
  }
  Kokkos::deep_copy(got, result);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(out.damaged_guard_elements(), 0);
  EXPECT_EQ(got, exact);
}

}  // namespace
}  // namespace kstream::test

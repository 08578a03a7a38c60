// kstream::add and kstream::naive::add on every enabled backend, float and double.
#include <kstream/add.hpp>
#include <kstream/naive.hpp>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class AddTest : public ::testing::Test {};
TYPED_TEST_SUITE(AddTest, AllCases, CaseNames);

template <class T>
T reference_add(T x, T y) {
  return x + y;
}

// Tiled and naive through one signature, so every case runs on both.
template <class C>
std::string run_both(const ElementwiseCase<2>& c) {
  return run_tiled_and_naive<C>(
      c, [](auto exec, auto out, auto x, auto y) { kstream::add(exec, x, y, out); },
      [](auto exec, auto out, auto x, auto y) { kstream::naive::add(exec, x, y, out); },
      reference_add<typename C::value_type>);
}

TYPED_TEST(AddTest, EdgeSizesAtEveryPlacement) {
  for (const std::int64_t n : edge_sizes(tile_elements<TypeParam>())) {
    for (const auto& [inputs, out] : standard_placements<2>()) {
      ElementwiseCase<2> c{.n = n, .inputs = inputs, .out = out};
      EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
    }
  }
}

TYPED_TEST(AddTest, OutputMayBeAnInputExactly) {
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(33), tile_elements<TypeParam>() + 5}) {
    for (const int alias : {0, 1}) {
      for (const Placement p : {Placement{0, 1}, Placement{3, 1}, Placement{1, 2}}) {
        ElementwiseCase<2> c{.n = n, .inputs = {p, p}, .out = p, .alias = alias};
        EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
      }
    }
  }
}

TYPED_TEST(AddTest, PropagatesNanAndInfinity) {
  ElementwiseCase<2> c{.n = 1000, .non_finite = true};
  EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
}

TYPED_TEST(AddTest, RandomSizes) {
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<std::int64_t> size(0, 200000);
  for (int k = 0; k < 12; ++k) {
    ElementwiseCase<2> c{.n = size(rng), .seed = std::uint64_t(k)};
    EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
  }
}

// Plain Kokkos::View arguments (LayoutRight and LayoutLeft, not LayoutStride) and the overload without an
// execution space.
TYPED_TEST(AddTest, PlainViewsAndDefaultExecutionSpace) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const std::int64_t n = 4099;
  Kokkos::View<T*, Kokkos::LayoutRight, M> x("x", n);
  Kokkos::View<T*, Kokkos::LayoutLeft, M> y("y", n);
  Kokkos::View<T*, M> out("out", n);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  for (std::int64_t i = 0; i < n; ++i) {
    hx(i) = T(i) * T(0.25);
    hy(i) = T(3 * i + 1);
  }
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);
  Kokkos::View<const T*, M> cx = x;
  kstream::add(cx, y, out);
  auto hout = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::int64_t errors = 0;
  for (std::int64_t i = 0; i < n; ++i) errors += hout(i) != hx(i) + hy(i);
  EXPECT_EQ(errors, 0) << "n=" << n;
}

}  // namespace
}  // namespace kstream::test

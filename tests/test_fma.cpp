// kstream::fma and kstream::naive::fma: one rounding, bit for bit equal to std::fma, on every enabled backend.
#include <cmath>
#include <kstream/fma.hpp>
#include <kstream/naive.hpp>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class FmaTest : public ::testing::Test {};
TYPED_TEST_SUITE(FmaTest, AllCases, CaseNames);

template <class T>
T reference_fma(T a, T b, T c) {
  return std::fma(a, b, c);
}

template <class C>
std::string run_both(const ElementwiseCase<3>& c) {
  return run_tiled_and_naive<C>(
      c, [](auto exec, auto out, auto a, auto b, auto cc) { kstream::fma(exec, a, b, cc, out); },
      [](auto exec, auto out, auto a, auto b, auto cc) { kstream::naive::fma(exec, a, b, cc, out); },
      reference_fma<typename C::value_type>);
}

TYPED_TEST(FmaTest, EqualsStdFmaAtEdgeSizesAndEveryPlacement) {
  for (const std::int64_t n : edge_sizes(tile_elements<TypeParam>())) {
    for (const auto& [inputs, out] : standard_placements<3>()) {
      ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out};
      EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
    }
  }
}

TYPED_TEST(FmaTest, OutputMayBeAnInputExactly) {
  for (const int alias : {0, 1, 2}) {
    ElementwiseCase<3> c{
        .n = 5003, .inputs = {Placement{1, 1}, Placement{1, 1}, Placement{1, 1}}, .out = {1, 1}, .alias = alias};
    EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
  }
}

TYPED_TEST(FmaTest, PropagatesNanAndInfinity) {
  ElementwiseCase<3> c{.n = 1000, .non_finite = true};
  EXPECT_EQ(run_both<TypeParam>(c), "") << c.describe();
}

// a * b is not representable; rounding it before adding c loses the low bits that the fused result keeps.
// float: a = b = 1 + 2^-12, a*b = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11; with c = -(1 + 2^-11) the fused result
// is 2^-24 and the twice-rounded one is 0. double: the same with 2^-27.
TYPED_TEST(FmaTest, RoundsOnceWhereMultiplyThenAddRoundsTwice) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  constexpr int half_bits = std::is_same_v<T, float> ? 12 : 27;
  const T a = T(1) + std::ldexp(T(1), -half_bits);
  const T c = -(T(1) + std::ldexp(T(1), -(half_bits - 1)));
  volatile T product = a * a;  // one rounding, stored: no contraction possible
  const T twice_rounded = product + c;
  const T fused = std::fma(a, a, c);
  ASSERT_NE(fused, twice_rounded) << "the crafted input does not separate fused from unfused";
  ASSERT_EQ(fused, std::ldexp(T(1), -2 * half_bits));

  const std::int64_t n = 37;  // packed body plus a scalar tail
  Kokkos::View<T*, M> va("a", n), vc("c", n), tiled("tiled", n), naive("naive", n);
  Kokkos::deep_copy(va, a);
  Kokkos::deep_copy(vc, c);
  typename TypeParam::execution_space exec;
  kstream::fma(exec, va, va, vc, tiled);
  kstream::naive::fma(exec, va, va, vc, naive);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tiled);
  auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), naive);
  std::int64_t errors = 0;
  for (std::int64_t i = 0; i < n; ++i) errors += (ht(i) != fused) + (hn(i) != fused);
  EXPECT_EQ(errors, 0) << "expected " << fused << " (fused), twice rounded would give " << twice_rounded;
}

TYPED_TEST(FmaTest, TiledAndNaiveAgreeOnRandomInputs) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const std::int64_t n = 3 * tile_elements<TypeParam>() + 11;
  GuardedOperand<T, M> a("a", n, {}), b("b", n, {}), c("c", n, {}), tiled("tiled", n, {}), naive("naive", n, {});
  std::uint64_t seed = 0;
  for (auto* operand : {&a, &b, &c}) {
    fill_values(*operand, ++seed);
    operand->upload();
  }
  tiled.upload();
  naive.upload();
  typename TypeParam::execution_space exec;
  kstream::fma(exec, a.view(), b.view(), c.view(), tiled.view());
  kstream::naive::fma(exec, a.view(), b.view(), c.view(), naive.view());
  tiled.download();
  naive.download();
  std::vector<T> naive_values(n);
  for (std::int64_t i = 0; i < n; ++i) naive_values[i] = naive.at(i);
  EXPECT_EQ(compare(tiled, naive_values), "") << "n=" << n;
}

}  // namespace
}  // namespace kstream::test

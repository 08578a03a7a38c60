// kstream::transform (the n-ary tiled engine) and kstream::naive::transform on every enabled backend.
#include <kstream/naive.hpp>
#include <kstream/transform.hpp>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class TransformTest : public ::testing::Test {};
TYPED_TEST_SUITE(TransformTest, AllCases, CaseNames);

// Operations whose result is one rounding (or exact), so host and device agree bit for bit whatever the
// compiler's contraction rules.
struct Halve {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x) const {
    return x * T(0.5);
  }
};
struct WidenMultiply {  // float x float is exact in double
  KOKKOS_INLINE_FUNCTION double operator()(float x, float y) const { return double(x) * double(y); }
};

template <class C, std::size_t Arity, class Op, class Reference>
std::string run_both(const ElementwiseCase<Arity>& c, Op op, Reference reference, const TileShape* shape = nullptr) {
  return run_tiled_and_naive<C>(
      c,
      [&](auto exec, auto out, auto... ins) {
        if (shape)
          kstream::transform(exec, *shape, out, op, ins...);
        else
          kstream::transform(exec, out, op, ins...);
      },
      [&](auto exec, auto out, auto... ins) { kstream::naive::transform(exec, out, op, ins...); }, reference);
}

TYPED_TEST(TransformTest, UnaryAtEdgeSizesAndEveryPlacement) {
  for (const std::int64_t n : edge_sizes(tile_elements<TypeParam>())) {
    for (const auto& [inputs, out] : standard_placements<1>()) {
      ElementwiseCase<1> c{.n = n, .inputs = inputs, .out = out};
      EXPECT_EQ(run_both<TypeParam>(c, Halve{}, Halve{}), "") << c.describe();
    }
  }
}

TYPED_TEST(TransformTest, FourInputsAtEdgeSizesAndEveryPlacement) {
  for (const std::int64_t n : edge_sizes(tile_elements<TypeParam>())) {
    for (const auto& [inputs, out] : standard_placements<4>()) {
      ElementwiseCase<4> c{.n = n, .inputs = inputs, .out = out};
      EXPECT_EQ(run_both<TypeParam>(c, FmaPlus{}, FmaPlus{}), "") << c.describe();
    }
  }
}

TYPED_TEST(TransformTest, OutputMayBeAnyInputExactly) {
  for (const int alias : {0, 1, 2, 3}) {
    ElementwiseCase<4> c{.n = 2 * tile_elements<TypeParam>() + 3,
                         .inputs = {Placement{2, 1}, Placement{2, 1}, Placement{2, 1}, Placement{2, 1}},
                         .out = {2, 1},
                         .alias = alias};
    EXPECT_EQ(run_both<TypeParam>(c, FmaPlus{}, FmaPlus{}), "") << c.describe();
  }
}

TYPED_TEST(TransformTest, PropagatesNanAndInfinity) {
  ElementwiseCase<4> c{.n = 1000, .non_finite = true};
  EXPECT_EQ(run_both<TypeParam>(c, FmaPlus{}, FmaPlus{}), "") << c.describe();
}

// Every supported packs_in_flight, several team sizes and chunk counts: the arithmetic of tiles must hold for
// any shape, not only the default.
TYPED_TEST(TransformTest, AnyValidTileShape) {
  constexpr bool gpu = on_device<TypeParam>;
  std::vector<TileShape> shapes;
  for (const int packs : kstream::supported_packs_in_flight) {
    if (gpu) {
      shapes.push_back({32, packs, 1});
      shapes.push_back({256, packs, 3});
    } else {
      shapes.push_back({1, packs, 1});
      shapes.push_back({1, packs, 5});
    }
  }
  for (const TileShape& shape : shapes) {
    const std::int64_t tile = shape.tile_packs() * (pack_bytes / std::int64_t(sizeof(typename TypeParam::value_type)));
    for (const std::int64_t n : {tile - 1, tile, tile + 1, 3 * tile + 2}) {
      for (const auto& [inputs, out] : standard_placements<4>()) {
        ElementwiseCase<4> c{.n = n, .inputs = inputs, .out = out};
        EXPECT_EQ(run_both<TypeParam>(c, FmaPlus{}, FmaPlus{}, &shape), "")
            << c.describe() << " team_size=" << shape.team_size << " packs_in_flight=" << shape.packs_in_flight
            << " chunks=" << shape.chunks_per_thread;
      }
    }
  }
}

// float inputs, double output: element sizes differ, so the engine takes its scalar path.
TYPED_TEST(TransformTest, MixedValueTypes) {
  using M = typename TypeParam::memory_space;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 1000;
  Kokkos::View<float*, M> x("x", n), y("y", n);
  Kokkos::View<double*, M> tiled("tiled", n), naive("naive", n);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  for (std::int64_t i = 0; i < n; ++i) {
    hx(i) = 1.0f + float(i) / 3.0f;
    hy(i) = 7.0f - float(i) / 7.0f;
  }
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);
  kstream::transform(Exec(), tiled, WidenMultiply{}, x, y);
  kstream::naive::transform(Exec(), naive, WidenMultiply{}, x, y);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tiled);
  auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), naive);
  std::int64_t errors = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double expected = double(hx(i)) * double(hy(i));
    errors += (ht(i) != expected) + (hn(i) != expected);
  }
  EXPECT_EQ(errors, 0);
}

}  // namespace
}  // namespace kstream::test

namespace kstream::test {
namespace {

// A user's own KOKKOS_LAMBDA as the operation (defined outside the test body: CUDA's extended lambdas may not
// live in gtest's private TestBody).
template <class Exec, class View>
void scale_into(const Exec& exec, const View& out, const View& x, typename View::value_type factor) {
  using T = typename View::value_type;
  kstream::transform(
      exec, out, KOKKOS_LAMBDA(T v) { return v * factor; }, x);
}
// One that captures nothing: an empty operation, which the engine keeps as an empty base of its functor.
template <class Exec, class View>
void halve_into(const Exec& exec, const View& out, const View& x) {
  using T = typename View::value_type;
  kstream::transform(
      exec, out, KOKKOS_LAMBDA(T v) { return v / T(2); }, x);
}

TYPED_TEST(TransformTest, AcceptsAKokkosLambda) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const std::int64_t n = 777;
  Kokkos::View<T*, M> x("x", n), out("out", n);
  Kokkos::deep_copy(x, T(3));
  scale_into(typename TypeParam::execution_space(), out, x, T(0.25));
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::int64_t errors = 0;
  for (std::int64_t i = 0; i < n; ++i) errors += h(i) != T(0.75);
  EXPECT_EQ(errors, 0);
  halve_into(typename TypeParam::execution_space(), out, x);
  Kokkos::deep_copy(h, out);
  errors = 0;
  for (std::int64_t i = 0; i < n; ++i) errors += h(i) != T(1.5);
  EXPECT_EQ(errors, 0) << "a lambda that captures nothing";
}

}  // namespace
}  // namespace kstream::test

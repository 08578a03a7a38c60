// Bad input gets a clear std::invalid_argument naming what was wrong, from every entry point alike;
// the allowed corner cases (exact aliasing, interleaved views, n == 0) run and are correct.
#include <functional>
#include <kstream/kstream.hpp>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class ErrorTest : public ::testing::Test {};
TYPED_TEST_SUITE(ErrorTest, AllCases, CaseNames);

// Every entry point on views a, b, c (inputs) and out, as "name" -> call. The views come as LayoutStride views (the
// checks read extents, strides, addresses and labels at run time, the same for every layout), so each entry point
// is compiled once per backend and type, not once per test.
template <class C>
using AnyLayout = Kokkos::View<typename C::value_type*, Kokkos::LayoutStride, typename C::memory_space>;
template <class C>
std::vector<std::pair<std::string, std::function<void()>>> every_entry_point(AnyLayout<C> a, AnyLayout<C> b,
                                                                             AnyLayout<C> c, AnyLayout<C> out) {
  const typename C::execution_space exec;
  return {
      {"add", [=] { kstream::add(exec, a, b, out); }},
      {"naive::add", [=] { kstream::naive::add(exec, a, b, out); }},
      {"fma", [=] { kstream::fma(exec, a, b, c, out); }},
      {"naive::fma", [=] { kstream::naive::fma(exec, a, b, c, out); }},
      {"transform", [=] { kstream::transform(exec, out, impl::FusedMultiplyAdd{}, a, b, c); }},
      {"naive::transform", [=] { kstream::naive::transform(exec, out, impl::FusedMultiplyAdd{}, a, b, c); }},
  };
}

TYPED_TEST(ErrorTest, ExtentMismatchNamesBothExtents) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  Kokkos::View<T*, M> a("a", 10), b("b_label", 11), c("c", 10), out("out", 10);
  for (const auto& [name, call] : every_entry_point<TypeParam>(a, b, c, out)) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("extent mismatch"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("11"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("10"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("b_label"), std::string::npos) << name << ": " << message;
  }
  // And the parameter's own name in add/fma: 'y' for add, 'b' for fma.
  EXPECT_NE(rejection([&] { kstream::add(a, b, out); }).find("'y'"), std::string::npos);
  EXPECT_NE(rejection([&] { kstream::fma(a, b, c, out); }).find("'b'"), std::string::npos);
  EXPECT_NE(rejection([&] { kstream::transform(out, impl::Plus{}, a, b); }).find("'input 1'"), std::string::npos);
}

TYPED_TEST(ErrorTest, PartialOverlapIsRejected) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  Kokkos::View<T*, M> parent("parent", 101), c("c", 100);
  auto a = Kokkos::subview(parent, Kokkos::pair<int, int>(0, 100));
  auto shifted = Kokkos::subview(parent, Kokkos::pair<int, int>(1, 101));
  for (const auto& [name, call] : every_entry_point<TypeParam>(a, c, c, shifted)) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("partially overlaps"), std::string::npos) << name << ": " << message;
  }
}

TYPED_TEST(ErrorTest, StrideZeroOutputIsRejected) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  Kokkos::View<T*, M> storage("storage", 1), x("x", 8);
  StridedView<T, M> broadcast(storage.data(), Kokkos::LayoutStride(8, 0));
  for (const auto& [name, call] : every_entry_point<TypeParam>(x, x, x, broadcast)) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("stride 0"), std::string::npos) << name << ": " << message;
  }
}

TYPED_TEST(ErrorTest, BadTileShapesAreRejectedByField) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  using Exec = typename TypeParam::execution_space;
  Kokkos::View<T*, M> x("x", 64), out("out", 64);
  const std::vector<std::pair<TileShape, std::string>> bad = {
      {{0, 2, 1}, "team_size = 0"},
      {{1, 3, 1}, "packs_in_flight = 3"},
      {{1, 2, 0}, "chunks_per_thread = 0"},
      {{1 << 20, 1, 1}, "exceeds"},
  };
  for (const auto& [shape, expected] : bad) {
    const std::string message = rejection([&] { kstream::add(Exec(), x, x, out, shape); });
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_NE(message.find("tile shape"), std::string::npos) << message;
  }
}

// Exactly aliased and interleaved views are not partial overlaps: they run, and correctly.
TYPED_TEST(ErrorTest, InterleavedViewsAreAllowed) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const std::int64_t n = 300;
  Kokkos::View<T*, M> parent("parent", 2 * n);
  StridedView<T, M> evens(parent.data(), Kokkos::LayoutStride(n, 2));
  StridedView<T, M> odds(parent.data() + 1, Kokkos::LayoutStride(n, 2));
  auto h = Kokkos::create_mirror_view(parent);
  for (std::int64_t i = 0; i < 2 * n; ++i) h(i) = T(i);
  Kokkos::deep_copy(parent, h);
  kstream::add(typename TypeParam::execution_space(), evens, evens, odds);  // odd slot i <- 2 * even slot i
  Kokkos::deep_copy(h, parent);
  std::int64_t errors = 0;
  for (std::int64_t i = 0; i < n; ++i) errors += (h(2 * i + 1) != T(4 * i)) + (h(2 * i) != T(2 * i));
  EXPECT_EQ(errors, 0);
}

TYPED_TEST(ErrorTest, EmptyViewsDoNothing) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  Kokkos::View<T*, M> empty("empty", 0);
  for (const auto& [name, call] : every_entry_point<TypeParam>(empty, empty, empty, empty))
    EXPECT_EQ(rejection(call), "no exception") << name;
}

// ---- several dimensions ----

template <class C>
using Rank2 = Kokkos::View<typename C::value_type**, Kokkos::LayoutStride, typename C::memory_space>;
template <class C>
using Rank3 = Kokkos::View<typename C::value_type***, Kokkos::LayoutStride, typename C::memory_space>;

/// Rank-2 views (r, c) at `offset` elements into `parent` with strides (sr, sc).
template <class C, class Parent>
Rank2<C> rank2(const Parent& parent, std::int64_t offset, std::int64_t r, std::int64_t c, std::int64_t sr,
               std::int64_t sc) {
  return Rank2<C>(parent.data() + offset, Kokkos::LayoutStride(r, sr, c, sc));
}

template <class C>
std::vector<std::pair<std::string, std::function<void()>>> every_rank2_entry_point(Rank2<C> a, Rank2<C> b,
                                                                                   Rank2<C> out) {
  const typename C::execution_space exec;
  return {
      {"add", [=] { kstream::add(exec, a, b, out); }},
      {"naive::add", [=] { kstream::naive::add(exec, a, b, out); }},
      {"fma", [=] { kstream::fma(exec, a, b, b, out); }},
      {"transform", [=] { kstream::transform(exec, out, impl::Plus{}, a, b); }},
      {"naive::transform", [=] { kstream::naive::transform(exec, out, impl::Plus{}, a, b); }},
  };
}

TYPED_TEST(ErrorTest, ExtentMismatchNamesTheDimension) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  Kokkos::View<T***, M> a("a", 4, 5, 6), b("b_label", 4, 7, 6), out("out", 4, 5, 6);
  const typename TypeParam::execution_space exec;
  for (const auto& [name, call] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"add", [=] { kstream::add(exec, a, b, out); }},
           {"naive::fma", [=] { kstream::naive::fma(exec, a, a, b, out); }},
           {"dot", [=] { kstream::dot(exec, a, b); }},
           {"transform_reduce", [=] {
              kstream::transform_reduce(exec, out, impl::Plus{}, Kokkos::View<double, M>("r"), kstream::Sum{},
                                        impl::FusedMultiplyAdd{}, a, b);
            }}}) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("extent mismatch in dimension 1"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("7"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("5"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("b_label"), std::string::npos) << name << ": " << message;
  }
}

// Views of one allocation whose elements are provably distinct run: columns of a LayoutLeft multivector, the
// even and the odd columns, disjoint blocks; the results are right.
TYPED_TEST(ErrorTest, ProvablyDistinctViewsOfOneAllocationRun) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const std::int64_t m = 37, columns = 8;
  Kokkos::View<T**, Kokkos::LayoutLeft, M> multivector("multivector", m, columns);
  auto h = Kokkos::create_mirror_view(multivector);
  for (std::int64_t j = 0; j < columns; ++j)
    for (std::int64_t i = 0; i < m; ++i) h(i, j) = T(i + 100 * j);
  Kokkos::deep_copy(multivector, h);
  const typename TypeParam::execution_space exec;
  // column 1 = column 0 + column 2 (rank 1)
  kstream::add(exec, Kokkos::subview(multivector, Kokkos::ALL, 0), Kokkos::subview(multivector, Kokkos::ALL, 2),
               Kokkos::subview(multivector, Kokkos::ALL, 1));
  // odd columns 3, 5, 7 = even columns 2, 4, 6 doubled (rank 2, interleaved)
  const auto evens = rank2<TypeParam>(multivector, 2 * m, m, 3, 1, 2 * m);
  const auto odds = rank2<TypeParam>(multivector, 3 * m, m, 3, 1, 2 * m);
  kstream::add(exec, evens, evens, odds);
  Kokkos::deep_copy(h, multivector);
  std::int64_t errors = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    errors += h(i, 1) != T(2 * i + 200);
    for (std::int64_t j = 2; j < 8; j += 2) errors += h(i, j + 1) != T(2 * (i + 100 * j)) || h(i, j) != T(i + 100 * j);
  }
  EXPECT_EQ(errors, 0);
}

TYPED_TEST(ErrorTest, OverlapsOfSeveralDimensionsAreRejected) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  Kokkos::View<T*, M> parent("parent", 200), other("other", 200);
  const auto c = rank2<TypeParam>(other, 0, 10, 10, 10, 1);
  // The same layout one row further on: proven to share elements.
  for (const auto& [name, call] : every_rank2_entry_point<TypeParam>(rank2<TypeParam>(parent, 0, 10, 10, 10, 1), c,
                                                                     rank2<TypeParam>(parent, 10, 10, 10, 10, 1))) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("partially overlaps"), std::string::npos) << name << ": " << message;
  }
  // The transpose of the output (in place): different layouts over one range; the check says it is conservative.
  for (const auto& [name, call] : every_rank2_entry_point<TypeParam>(rank2<TypeParam>(parent, 0, 10, 10, 1, 10), c,
                                                                     rank2<TypeParam>(parent, 0, 10, 10, 10, 1))) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("may overlap"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("conservative"), std::string::npos) << name << ": " << message;
  }
  // An output whose indices share elements, and one of stride 0 in a dimension.
  for (const auto& [name, call] : every_rank2_entry_point<TypeParam>(c, c, rank2<TypeParam>(parent, 0, 10, 10, 2, 1))) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("maps several indices to one element"), std::string::npos) << name << ": " << message;
  }
  for (const auto& [name, call] : every_rank2_entry_point<TypeParam>(c, c, rank2<TypeParam>(parent, 0, 10, 10, 0, 1))) {
    const std::string message = rejection(call);
    EXPECT_NE(message.find("stride 0 in dimension 0"), std::string::npos) << name << ": " << message;
  }
}

}  // namespace
}  // namespace kstream::test

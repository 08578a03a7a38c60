// kstream::dot and kstream::transform_reduce, the tests' bodies: exact on integer-valued inputs at edge sizes and
// placements, the identity on empty views, NaN and infinity propagated, the same bits on every run, float
// accumulated in double (closer to the exact result than a float accumulator), the fused update-and-reduce, clear
// errors. Written once and instantiated per value type by test_reduce_float.cpp and test_reduce_double.cpp (as
// Kokkos' Test<Name>.hpp by its category files): each type's kernels are compiled in a file of their own, which a
// parallel GPU build compiles side by side. Each file names its type in KSTREAM_REDUCE_TYPE before including this.
#ifndef KSTREAM_REDUCE_TYPE
#error "define KSTREAM_REDUCE_TYPE (float or double) before including reduce_tests.hpp"
#endif
#ifdef KSTREAM_REDUCE_TESTS_HPP
#error "reduce_tests.hpp twice in one translation unit: its two files must not share a unity group"
#endif
#define KSTREAM_REDUCE_TESTS_HPP
#include <algorithm>
#include <cmath>
#include <cstring>
#include <kstream/record.hpp>
#include <kstream/reduce.hpp>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace kstream::test {
namespace {

template <class C>
class ReduceTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReduceTest, CasesOfType<KSTREAM_REDUCE_TYPE>, CaseNames);

// Operations as functors (gtest's test bodies are private members: no extended lambdas there).
struct Identity {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T v) const {
    return v;
  }
};
struct IntegerProduct {
  template <class T>
  KOKKOS_INLINE_FUNCTION long long operator()(T a, T b) const {
    return (long long)(a) * (long long)(b);
  }
};
struct CountPositive {
  template <class T>
  KOKKOS_INLINE_FUNCTION long long operator()(T v) const {
    return v > 0;
  }
};
/// A user reducer: the value of largest magnitude, from 0.
struct LargestMagnitude {
  template <class A>
  KOKKOS_INLINE_FUNCTION A identity() const {
    return A(0);
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a, A b) const {
    return (a < 0 ? -a : a) < (b < 0 ? -b : b) ? b : a;
  }
};
template <class T>
struct SubtractScaled {  // r - alpha q
  T alpha;
  KOKKOS_INLINE_FUNCTION T operator()(T r, T q) const { return r - alpha * q; }
};
struct SquareOfUpdated {  // the updated r, squared in double (r and q themselves are not needed)
  template <class T>
  KOKKOS_INLINE_FUNCTION double operator()(T updated, T, T) const {
    return double(updated) * double(updated);
  }
};

template <class C>
using HostVec = std::vector<typename C::value_type>;

/// A view of `values` starting `offset` elements into its allocation and taking every `stride`-th element: a
/// column of a 2-D allocation, so the view keeps its allocation alive.
template <class C>
auto placed(const HostVec<C>& values, std::int64_t offset, std::int64_t stride, const char* label) {
  using T = typename C::value_type;
  const std::int64_t n = std::int64_t(values.size()), row0 = offset / stride, column = offset % stride;
  Kokkos::View<T**, Kokkos::LayoutRight, typename C::memory_space> storage(std::string(label), row0 + n + 1, stride);
  auto host = Kokkos::create_mirror_view(storage);
  for (std::int64_t i = 0; i < n; ++i) host(row0 + i, column) = values[i];
  Kokkos::deep_copy(storage, host);
  return Kokkos::subview(storage, std::make_pair(row0, row0 + n), column);
}

template <class T>
std::vector<T> small_integers(std::int64_t n, int which) {
  std::vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = T(((i * (2 * which + 3) + 5 * which) % 41) - 20);
  return v;
}

template <class C>
std::vector<std::int64_t> reduce_sizes() {
  // Around host tiles (16384) and device tiles (4096 float / 2048 double per round) and the pack widths.
  return {0,    1,    2,    3,    5,    7,     8,     9,     17,        1023,
          2048, 2049, 4095, 4096, 4097, 16383, 16384, 16385, 65536 + 3, largest_edge_size(4 * 1024 * 1024 + 5)};
}

TYPED_TEST(ReduceTest, DotIsExactOnIntegerValuesAtEdgeSizesAndPlacements) {
  using T = typename TypeParam::value_type;
  typename TypeParam::execution_space exec;
  // (offset, stride) of x and y: aligned, both one element in, unequally offset, strided.
  const std::pair<std::int64_t, std::int64_t> placements[][2] = {
      {{0, 1}, {0, 1}}, {{1, 1}, {1, 1}}, {{1, 1}, {3, 1}}, {{0, 2}, {1, 3}}};
  for (const std::int64_t n : reduce_sizes<TypeParam>()) {
    const auto xs = small_integers<T>(n, 0), ys = small_integers<T>(n, 1);
    long long exact = 0;
    for (std::int64_t i = 0; i < n; ++i) exact += (long long)xs[i] * (long long)ys[i];
    for (const auto& [px, py] : placements) {
      const auto x = placed<TypeParam>(xs, px.first, px.second, "x");
      const auto y = placed<TypeParam>(ys, py.first, py.second, "y");
      EXPECT_EQ(kstream::dot(exec, x, y), double(exact))
          << "n " << n << ", x at " << px.first << " stride " << px.second << ", y at " << py.first;
    }
  }
}

/// A reduction's sizes in one launch and, on a device, past it (a team per chunk, then the team that folds their
/// partial results: device_reduction in kstream/impl/plan.hpp).
template <class C>
std::vector<std::int64_t> launch_sizes() {
  if constexpr (on_device<C>) return {100003, 4 * 1024 * 1024 + 5};
  return {100003};
}

template <class TypeParam>
void into_rank_zero_views(std::int64_t n) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  typename TypeParam::execution_space exec;
  const auto xs = small_integers<T>(n, 2), ys = small_integers<T>(n, 3);
  const auto x = placed<TypeParam>(xs, 0, 1, "x"), y = placed<TypeParam>(ys, 0, 1, "y");
  double exact = 0;
  for (std::int64_t i = 0; i < n; ++i) exact += double(xs[i]) * double(ys[i]);
  Kokkos::View<double, M> as_double("as_double");
  Kokkos::View<float, M> as_float("as_float");
  Kokkos::View<long long, M> as_integer("as_integer");
  kstream::dot(exec, x, y, as_double);
  kstream::dot(exec, x, y, as_float);
  kstream::transform_reduce(exec, as_integer, kstream::Sum{}, IntegerProduct{}, x, y);
  exec.fence();
  double d = 0;
  float f = 0;
  long long i = 0;
  Kokkos::deep_copy(d, as_double);
  Kokkos::deep_copy(f, as_float);
  Kokkos::deep_copy(i, as_integer);
  EXPECT_EQ(d, exact) << "n " << n;
  EXPECT_EQ(f, float(exact)) << "n " << n;
  EXPECT_EQ(double(i), exact) << "n " << n;
}

TYPED_TEST(ReduceTest, IntoRankZeroViewsOfAnyTypeAsynchronously) {
  for (const std::int64_t n : launch_sizes<TypeParam>()) into_rank_zero_views<TypeParam>(n);
}

TYPED_TEST(ReduceTest, MaxMinAndAUserReducer) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  typename TypeParam::execution_space exec;
  const std::int64_t n = 70001;
  std::vector<T> values = small_integers<T>(n, 4);
  values[12345] = T(1000);
  values[54321] = T(-999);
  const auto x = placed<TypeParam>(values, 1, 1, "x");
  Kokkos::View<double, M> biggest("max"), smallest("min");
  Kokkos::View<long long, M> positives("positives");
  const Identity same;
  kstream::transform_reduce(exec, biggest, kstream::Max{}, same, x);
  kstream::transform_reduce(exec, smallest, kstream::Min{}, same, x);
  kstream::transform_reduce(exec, positives, kstream::Sum{}, CountPositive{}, x);
  Kokkos::View<double, M> magnitude("magnitude");
  kstream::transform_reduce(exec, magnitude, LargestMagnitude{}, same, x);
  long long expected_positives = 0;
  for (const T v : values) expected_positives += v > 0;
  auto get = [](const auto& view) {
    typename std::decay_t<decltype(view)>::non_const_value_type v{};
    Kokkos::deep_copy(v, view);
    return v;
  };
  EXPECT_EQ(get(biggest), 1000.0);
  EXPECT_EQ(get(smallest), -999.0);
  EXPECT_EQ(get(positives), expected_positives);
  EXPECT_EQ(get(magnitude), 1000.0);
}

TYPED_TEST(ReduceTest, EmptyViewsGiveTheIdentity) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  typename TypeParam::execution_space exec;
  Kokkos::View<T*, M> x("x", 0), y("y", 0);
  EXPECT_EQ(kstream::dot(exec, x, y), 0.0);
  Kokkos::View<double, M> biggest("max");
  Kokkos::deep_copy(biggest, 42.0);
  kstream::transform_reduce(exec, biggest, kstream::Max{}, Identity{}, x);
  double value = 0;
  Kokkos::deep_copy(value, biggest);
  EXPECT_EQ(value, Kokkos::reduction_identity<double>::max());
}

TYPED_TEST(ReduceTest, PropagatesNanAndInfinity) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  typename TypeParam::execution_space exec;
  const std::int64_t n = 50000;
  for (const std::int64_t at : {std::int64_t(0), n / 2, n - 1}) {
    std::vector<T> values = small_integers<T>(n, 5), ones(n, T(1));
    values[at] = std::numeric_limits<T>::quiet_NaN();
    const auto x = placed<TypeParam>(values, 0, 1, "x"), y = placed<TypeParam>(ones, 0, 1, "y");
    EXPECT_TRUE(std::isnan(kstream::dot(exec, x, y))) << "NaN at " << at;
    Kokkos::View<double, M> biggest("max"), smallest("min");
    kstream::transform_reduce(exec, biggest, kstream::Max{}, Identity{}, x);
    kstream::transform_reduce(exec, smallest, kstream::Min{}, Identity{}, x);
    double b = 0, s = 0;
    Kokkos::deep_copy(b, biggest);
    Kokkos::deep_copy(s, smallest);
    EXPECT_TRUE(std::isnan(b)) << "NaN at " << at;
    EXPECT_TRUE(std::isnan(s)) << "NaN at " << at;
    values[at] = std::numeric_limits<T>::infinity();
    const auto z = placed<TypeParam>(values, 0, 1, "z");
    EXPECT_EQ(kstream::dot(exec, z, y), std::numeric_limits<double>::infinity()) << "infinity at " << at;
  }
}

TYPED_TEST(ReduceTest, SameBitsOnEveryRun) {
  using T = typename TypeParam::value_type;
  typename TypeParam::execution_space exec;
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<std::int64_t> sizes = {largest_edge_size(1000003), largest_edge_size(4096 * 1024 + 17)};
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (const std::int64_t n : sizes) {
    std::vector<T> xs(n), ys(n);
    for (std::int64_t i = 0; i < n; ++i) {
      xs[i] = T(uniform(random) * std::exp2(int(uniform(random) * 40)));
      ys[i] = T(uniform(random));
    }
    const auto x = placed<TypeParam>(xs, 0, 1, "x"), y = placed<TypeParam>(ys, 0, 1, "y");
    const double first = kstream::dot(exec, x, y);
    for (int run = 0; run < 5; ++run) {
      const double again = kstream::dot(exec, x, y);
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(double)), 0)
          << "n " << n << " run " << run << ": " << first << " then " << again;
    }
  }
}

// Two instances of the backend, each with its own calls in flight: on a GPU each instance keeps its own buffer of
// partial results (kstream/impl/instance_scratch.hpp), and the sizes alternate so the buffers grow under way. On
// a GPU the instances' calls are made from two host threads at once.
TYPED_TEST(ReduceTest, CallsOnTwoInstancesAtOnce) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const auto instances = Kokkos::Experimental::partition_space(Exec(), 1, 1);
  const std::int64_t sizes[] = {5, 300007, 4099, 2 * 1024 * 1024 + 3};
  std::vector<double> exact;
  std::vector<decltype(placed<TypeParam>(HostVec<TypeParam>{}, 0, 1, ""))> xs, ys;
  for (const std::int64_t n : sizes) {
    const auto x = small_integers<T>(n, 4), y = small_integers<T>(n, 5);
    double e = 0;
    for (std::int64_t i = 0; i < n; ++i) e += double(x[i]) * double(y[i]);
    exact.push_back(e);
    xs.push_back(placed<TypeParam>(x, 0, 1, "x"));
    ys.push_back(placed<TypeParam>(y, 0, 1, "y"));
  }
  // Instance 0 takes the sizes in order, instance 1 in reverse.
  const auto size_index = [&](int k, std::size_t s) { return k == 0 ? s : exact.size() - 1 - s; };
  // Instance k: every size, in its own order, asynchronously into views, then by value; returns the wrong results.
  const auto calls = [&](int k) {
    std::vector<Kokkos::View<double, typename TypeParam::memory_space>> into;
    std::int64_t wrong = 0;
    for (int round = 0; round < 3; ++round) {
      for (std::size_t s = 0; s < exact.size(); ++s) {
        const std::size_t which = size_index(k, s);
        into.emplace_back("into");
        kstream::dot(instances[k], xs[which], ys[which], into.back());
        wrong += kstream::dot(instances[k], xs[which], ys[which]) != exact[which];
      }
    }
    instances[k].fence();
    for (std::size_t c = 0; c < into.size(); ++c) {
      double v = 0;
      Kokkos::deep_copy(v, into[c]);
      wrong += v != exact[size_index(k, c % exact.size())];
    }
    return wrong;
  };
  std::int64_t wrong[2] = {0, 0};
  if constexpr (on_device<TypeParam>) {
    std::thread other([&] { wrong[1] = calls(1); });
    wrong[0] = calls(0);
    other.join();
  } else {  // host backends keep no buffer; their instances take turns (no host threads in one OpenMP pool)
    wrong[0] = calls(0);
    wrong[1] = calls(1);
  }
  EXPECT_EQ(wrong[0], 0);
  EXPECT_EQ(wrong[1], 0);
}

// +L, s, -L, s, ...: a float accumulator loses every s against L; double keeps them all (L = 2^30, s = 1).
TYPED_TEST(ReduceTest, FloatAccumulatesInDouble) {
  using T = typename TypeParam::value_type;
  typename TypeParam::execution_space exec;
  const std::int64_t n = 1 << 20;
  std::vector<T> xs(n), ones(n, T(1));
  for (std::int64_t i = 0; i < n; ++i) xs[i] = i % 2 ? T(1) : (i % 4 == 0 ? T(1 << 30) : -T(1 << 30));
  const auto x = placed<TypeParam>(xs, 0, 1, "x"), y = placed<TypeParam>(ones, 0, 1, "y");
  EXPECT_EQ(kstream::dot(exec, x, y), double(n / 2));
}

// r = r - alpha q and ||r||^2 in one pass, against the two separate steps.
TYPED_TEST(ReduceTest, FusedUpdateAndNorm) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  typename TypeParam::execution_space exec;
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(4097), std::int64_t(100003)}) {
    const auto rs = small_integers<T>(n, 6), qs = small_integers<T>(n, 7);
    for (const std::int64_t offset : {0, 1}) {
      auto r = placed<TypeParam>(rs, offset, 1, "r");
      const auto q = placed<TypeParam>(qs, 0, 1, "q");
      const T alpha = 2;
      Kokkos::View<double, M> norm("norm");
      kstream::transform_reduce(exec, r, SubtractScaled<T>{alpha}, norm, kstream::Sum{}, SquareOfUpdated{}, r, q);
      exec.fence();
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
      double expected = 0;
      std::int64_t wrong = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const T updated = rs[i] - alpha * qs[i];
        wrong += host(i) != updated;
        expected += double(updated) * double(updated);
      }
      double got = 0;
      Kokkos::deep_copy(got, norm);
      EXPECT_EQ(wrong, 0) << "n " << n << " offset " << offset;
      EXPECT_EQ(got, expected) << "n " << n << " offset " << offset;
    }
  }
}

// A recorded Krylov step ending in a dot: each replay gives the eager calls' bits, and a replay reads the views'
// current contents (r changes every step).
template <class TypeParam>
void recorded_as_eager(std::int64_t n) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using M = typename TypeParam::memory_space;
  Exec exec;
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<T> rs(n), qs(n);
  for (std::int64_t i = 0; i < n; ++i) {
    rs[i] = T(uniform(random));
    qs[i] = T(uniform(random));
  }
  auto r_eager = placed<TypeParam>(rs, 0, 1, "r_eager"), r_recorded = placed<TypeParam>(rs, 0, 1, "r_recorded");
  const auto q = placed<TypeParam>(qs, 0, 1, "q");
  Kokkos::View<double, M> norm_eager("norm_eager"), norm_recorded("norm_recorded");
  Kokkos::View<float, M> dot_eager("dot_eager"), dot_recorded("dot_recorded");  // converted once from double
  const SubtractScaled<T> update{T(0.25)};
  auto recording = kstream::record(exec, [&](kstream::Recorder<Exec>& rec) {
    rec.transform_reduce(r_recorded, update, norm_recorded, kstream::Sum{}, SquareOfUpdated{}, r_recorded, q);
    rec.dot(r_recorded, q, dot_recorded);
  });
  EXPECT_GE(recording.size(), 2u);
  for (int step = 0; step < 3; ++step) {
    kstream::transform_reduce(exec, r_eager, update, norm_eager, kstream::Sum{}, SquareOfUpdated{}, r_eager, q);
    kstream::dot(exec, r_eager, q, dot_eager);
    recording.submit();
    exec.fence();
    double ne = 0, nr = 0;
    float de = 0, dr = 0;
    Kokkos::deep_copy(ne, norm_eager);
    Kokkos::deep_copy(nr, norm_recorded);
    Kokkos::deep_copy(de, dot_eager);
    Kokkos::deep_copy(dr, dot_recorded);
    EXPECT_EQ(std::memcmp(&ne, &nr, sizeof ne), 0) << "n " << n << " step " << step << ": " << ne << " vs " << nr;
    EXPECT_EQ(std::memcmp(&de, &dr, sizeof de), 0) << "n " << n << " step " << step << ": " << de << " vs " << dr;
    EXPECT_GT(ne, 0.0);
  }
}

TYPED_TEST(ReduceTest, RecordedReductionsReplayAsTheEagerCalls) {
  for (const std::int64_t n : launch_sizes<TypeParam>()) recorded_as_eager<TypeParam>(n);
}

TYPED_TEST(ReduceTest, ExtentMismatchNamesTheViews) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  typename TypeParam::execution_space exec;
  Kokkos::View<T*, M> x("x", 4), y("y", 5);
  try {
    kstream::dot(exec, x, y);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "kstream::dot: extent mismatch: 'y' (label \"y\") has extent 5 but 'x' (label \"x\") has extent 4");
  }
  Kokkos::View<double, M> result("result");
  EXPECT_THROW(kstream::transform_reduce(exec, result, kstream::Sum{}, IntegerProduct{}, x, y), std::invalid_argument);
}

}  // namespace
}  // namespace kstream::test
#undef KSTREAM_REDUCE_TYPE

// Reductions along dimensions (kstream::along): every subset of dimensions of views of rank 1 to 8 on every
// mapping, results that keep the dimensions or drop them, multivectors of 1 to 1031 columns in both layouts (column
// dots and 2-norms, row sums), ArgMax and ArgMin, empty and unit extents, NaN, the fused form, repeats that are
// bit-identical, each error with its message, and recorded calls. Exact on small whole numbers against a scalar
// reference.
#include <kstream/kstream.hpp>
#include <kstream/record.hpp>

#include "rank_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class AlongTest : public ::testing::Test {};
TYPED_TEST_SUITE(AlongTest, AllCases, CaseNames);

template <class T>
struct Same {
  KOKKOS_INLINE_FUNCTION T operator()(T a) const { return a; }
};

/// The result's extents: the kept ones in order, or every one with 1 on the reduced ones (keep).
Extents result_extents(const Extents& extents, const std::vector<int>& dims, bool keep) {
  Extents kept;
  for (int d = 0; d < int(extents.size()); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) kept.push_back(extents[d]);
    if (reduced && keep) kept.push_back(1);
  }
  return kept;
}

/// The result's flat index (last index fastest) of the input's flat index i.
std::int64_t output_of(std::int64_t i, const Extents& extents, const std::vector<int>& dims) {
  std::int64_t out = 0, scale = 1;
  for (int d = int(extents.size()) - 1; d >= 0; --d) {
    const std::int64_t coordinate = i % extents[d];
    i /= extents[d];
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    out += coordinate * scale;
    scale *= extents[d];
  }
  return out;
}

std::string describe_case(const Extents& extents, const std::vector<int>& dims, const Mapping& in,
                          const Mapping& result) {
  std::ostringstream os;
  os << "extents";
  for (const auto e : extents) os << ' ' << e;
  os << " along";
  for (const auto d : dims) os << ' ' << d;
  os << " input " << in.describe() << " result " << result.describe();
  return os.str();
}

/// The mapping of a result of `extents`: right, left or permuted, with an offset (and padding where it has rows).
Mapping result_mapping(const Extents& extents, int which) {
  const int rank = int(extents.size());
  if (which == 0) return {"right", 3, packed_strides(extents, right_order(rank), 1, 1)};
  if (which == 1) return {"left", 0, packed_strides(extents, left_order(rank))};
  std::vector<int> order = left_order(rank);
  std::rotate(order.begin(), order.begin() + rank / 2, order.end());
  return {"rotated", 1, packed_strides(extents, order, 2)};
}

/// The result has the inputs' rank (keep-dims): one rank compiled for both.
struct SameRank {};

/// calls<R, RR>() for the inputs' rank R (one of Is) and the result's RR: R again (Rs = SameRank) or one of Rs.
template <class Is, class Rs, class Calls>
void at_ranks(int rank, int kept_rank, const Calls& calls) {
  call_at_rank(rank, Is{}, [&]<int R>() {
    if constexpr (std::is_same_v<Rs, SameRank>) {
      calls.template operator()<R, R>();
    } else {
      call_at_rank(kept_rank, Rs{}, [&]<int RR>() {
        if constexpr (RR < R) calls.template operator()<R, RR>();
      });
    }
  });
}

/// A case's error: the wrong outputs, elements overwritten outside the results, then the case; empty if none.
std::string case_error(std::string error, std::int64_t damaged, const std::string& description) {
  if (damaged > 0) error += std::to_string(damaged) + " elements outside the results were overwritten.";
  if (!error.empty()) error += description;
  return error;
}

/// dot and Max of x * y along `dims` of x, y at `in_map` into results at `result_map` of the rank `keep` gives
/// (one of Rs for the result; the inputs' rank one of Is), exact against the reference, the same bits on a repeat.
template <class C, class Is, class Rs>
std::string along_case(const Extents& extents, const std::vector<int>& dims, bool keep, const Mapping& in_map,
                       int result_map) {
  using T = typename C::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename C::memory_space;
  const typename C::execution_space exec;
  const Extents kept = result_extents(extents, dims, keep);
  const Mapping out_map = result_mapping(kept, result_map);
  GuardedTensor<T, M> x("x", extents, in_map), y("y", extents, standard_mappings(extents)[1]);
  GuardedTensor<Acc, M> dots("dots", kept, out_map), again("again", kept, out_map);
  GuardedTensor<T, M> largest("largest", kept, out_map), device_kernel("device_kernel", kept, out_map);
  const std::int64_t outputs = dots.size();
  std::vector<Acc> exact(std::size_t(outputs), Acc(0));
  std::vector<T> most(std::size_t(outputs), Kokkos::reduction_identity<T>::max());
  for (std::int64_t i = 0; i < x.size(); ++i) {
    x.at(i) = small_value<T>(i, 0);
    y.at(i) = small_value<T>(i, 1);
    const std::int64_t o = output_of(i, extents, dims);
    exact[o] += Acc(x.at(i)) * Acc(y.at(i));
    most[o] = std::max(most[o], T(x.at(i) * y.at(i)));
  }
  x.upload();
  y.upload();
  dots.upload();
  again.upload();
  largest.upload();
  device_kernel.upload();
  const kstream::along along_dims(dims);
  const auto calls = [&]<int R, int RR>() {
    kstream::dot(exec, along_dims, x.template view<R>(), y.template view<R>(), dots.template view<RR>());
    kstream::dot(exec, along_dims, x.template view<R>(), y.template view<R>(), again.template view<RR>());
    kstream::transform_reduce(exec, along_dims, largest.template view<RR>(), kstream::Max{}, Times<T>{},
                              x.template view<R>(), y.template view<R>());
    // The device kernel on every backend (host backends: small teams, an H200's slices).
    impl::transform_reduce_along_to<impl::AlongKernel::device>(impl::LaunchNow{}, exec, along_dims,
                                                               device_kernel.template view<RR>(), kstream::Max{},
                                                               Times<T>{}, x.template view<R>(), y.template view<R>());
  };
  at_ranks<Is, Rs>(int(extents.size()), int(kept.size()), calls);
  dots.download();
  again.download();
  largest.download();
  device_kernel.download();
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t o = 0; o < outputs; ++o) {
    const bool bad = dots.at(o) != exact[o] || !same_bits(dots.at(o), again.at(o)) || largest.at(o) != most[o] ||
                     device_kernel.at(o) != most[o];
    if (bad && wrong++ == 0) first = o;
  }
  std::string error;
  if (wrong > 0)
    error = std::to_string(wrong) + " wrong outputs, first " + std::to_string(first) + ": dot " +
            std::to_string(double(dots.at(first))) + " (again " + std::to_string(double(again.at(first))) +
            ") expected " + std::to_string(double(exact[first])) + ", max " +
            std::to_string(double(largest.at(first))) + " (device kernel " +
            std::to_string(double(device_kernel.at(first))) + ") expected " + std::to_string(double(most[first])) +
            ". ";
  const auto damaged =
      dots.damaged_guard_elements() + largest.damaged_guard_elements() + device_kernel.damaged_guard_elements();
  return case_error(error, damaged, describe_case(extents, dims, in_map, out_map));
}

/// Every nonempty subset of the dimensions of views of rank 1 to 8, each input mapping (every third past rank 4),
/// into results of the input's rank with extent 1 on the reduced dimensions, in three layouts.
TYPED_TEST(AlongTest, EverySubsetOfEveryRankKeepingDimensions) {
  for (int rank = 1; rank <= 8; ++rank) {
    const Extents extents = test_extents(rank);
    const auto maps = standard_mappings(extents);
    std::int64_t cases = 0;
    for (int subset = 1; subset < (1 << rank); ++subset) {
      std::vector<int> dims;
      for (int d = rank - 1; d >= 0; --d)  // (a set in any order: here the last dimension first)
        if (subset & (1 << d)) dims.push_back(d);
      for (std::size_t m = 0; m < maps.size(); ++m) {
        if (rank > 4 && (m + std::size_t(subset)) % 3 != 0) continue;
        const int result_map = int(cases++ % 3);
        EXPECT_EQ((along_case<TypeParam, AllRanks, SameRank>(extents, dims, true, maps[m], result_map)), "");
      }
    }
  }
}

/// Results that drop the reduced dimensions, rank 0 included.
TYPED_TEST(AlongTest, ResultsOfTheKeptDimensions) {
  struct Case {
    Extents extents;
    std::vector<int> dims;
  };
  const std::vector<Case> cases = {
      {{133, 259}, {0}},          {{133, 259}, {1}},        {{5, 3, 131}, {1}},           {{5, 3, 131}, {0, 2}},
      {{3, 1, 4, 67}, {1, 3}},    {{3, 7, 4, 67}, {2, 0}},  {{2, 3, 1, 2, 2, 1, 3, 7}, {3}},
      {{2, 3, 1, 2, 2, 1, 3, 7}, {0, 1, 2, 4, 5, 6, 7}},
  };
  for (const auto& c : cases)
    for (const auto& map : standard_mappings(c.extents))
      for (int result_map = 0; result_map < 3; ++result_map)
        EXPECT_EQ((along_case<TypeParam, Ranks<2, 3, 4, 8>, Ranks<1, 2, 7>>(c.extents, c.dims, false, map, result_map)),
                  "");
}

/// Every dimension reduced into a rank-0 view: the value of the full reduction.
TYPED_TEST(AlongTest, EveryDimensionIntoARankZeroResult) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  const Extents extents{5, 3, 131};
  GuardedTensor<T, M> x("x", extents, standard_mappings(extents)[6]);
  Acc exact = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    x.at(i) = small_value<T>(i, 2);
    exact += Acc(x.at(i)) * Acc(x.at(i));
  }
  x.upload();
  Kokkos::View<Acc, M> along_all("along"), full("full");
  Kokkos::View<T, M> norm("norm");
  kstream::dot(exec, kstream::along{0, 1, 2}, x.template view<3>(), x.template view<3>(), along_all);
  kstream::dot(exec, x.template view<3>(), x.template view<3>(), full);
  kstream::nrm2(exec, kstream::along{2, 0, 1}, x.template view<3>(), norm);
  Acc got{}, expected{};
  T got_norm{};
  Kokkos::deep_copy(got, along_all);
  Kokkos::deep_copy(expected, full);
  Kokkos::deep_copy(got_norm, norm);
  EXPECT_EQ(got, exact);
  EXPECT_EQ(expected, exact);
  EXPECT_EQ(got_norm, T(std::sqrt(exact)));
}

/// A multivector of n rows and k columns in both layouts: a dot and a 2-norm per column (along{0}), a sum per row
/// (along{1}), exact, the same bits on a second call; long columns are sliced (a second kernel folds them).
TYPED_TEST(AlongTest, MultivectorColumnsAndRows) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  struct Shape {
    std::int64_t n, k;
  };
  const std::int64_t long_n = largest_edge_size(1000003) / 2;
  for (const Shape s : {Shape{3001, 1}, Shape{3001, 2}, Shape{1003, 4}, Shape{517, 8}, Shape{257, 16}, Shape{129, 64},
                        Shape{37, 1024}, Shape{5, 1031}, Shape{long_n, 2}, Shape{40009, 3}}) {
    for (const bool right : {true, false}) {
      const Extents extents{s.n, s.k};
      const Mapping map{right ? "right" : "left", 0,
                        packed_strides(extents, right ? right_order(2) : left_order(2))};
      GuardedTensor<T, M> x("x", extents, map), y("y", extents, standard_mappings(extents)[2]);
      std::vector<Acc> dots(std::size_t(s.k), 0), squares(std::size_t(s.k), 0), sums(std::size_t(s.n), 0),
          column_sums(std::size_t(s.k), 0);
      for (std::int64_t i = 0; i < x.size(); ++i) {
        x.at(i) = small_value<T>(i, 0);
        y.at(i) = small_value<T>(i, 1);
        dots[i % s.k] += Acc(x.at(i)) * Acc(y.at(i));
        squares[i % s.k] += Acc(x.at(i)) * Acc(x.at(i));
        sums[i / s.k] += Acc(x.at(i));
        column_sums[i % s.k] += Acc(x.at(i));
      }
      x.upload();
      y.upload();
      Kokkos::View<Acc*, M> col_dots("dots", s.k), col_again("again", s.k), row_sums("sums", s.n);
      Kokkos::View<T*, M> norms("norms", s.k);
      const auto xv = x.template view<2>(), yv = y.template view<2>();
      kstream::dot(exec, kstream::along{0}, xv, yv, col_dots);
      kstream::dot(exec, kstream::along{0}, xv, yv, col_again);
      kstream::nrm2(exec, kstream::along{0}, xv, norms);
      kstream::transform_reduce(exec, kstream::along{1}, row_sums, kstream::Sum{}, Same<T>{}, xv);
      Kokkos::View<Acc*, M> device_rows("device_rows", s.n), device_columns("device_columns", s.k);
      impl::transform_reduce_along_to<impl::AlongKernel::device>(impl::LaunchNow{}, exec, kstream::along{1},
                                                                 device_rows, kstream::Sum{}, Same<T>{}, xv);
      impl::transform_reduce_along_to<impl::AlongKernel::device>(impl::LaunchNow{}, exec, kstream::along{0},
                                                                 device_columns, kstream::Sum{}, Same<T>{}, xv);
      const auto got_device_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_rows);
      const auto got_device_columns = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_columns);
      const auto got_dots = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_dots);
      const auto got_again = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_again);
      const auto got_norms = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), norms);
      const auto got_sums = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_sums);
      std::int64_t wrong = 0;
      for (std::int64_t c = 0; c < s.k; ++c)
        wrong += got_dots(c) != dots[c] || !same_bits(got_dots(c), got_again(c)) ||
                 got_norms(c) != T(std::sqrt(squares[c])) || got_device_columns(c) != column_sums[c];
      for (std::int64_t r = 0; r < s.n; ++r) wrong += got_sums(r) != sums[r] || got_device_rows(r) != sums[r];
      EXPECT_EQ(wrong, 0) << "n=" << s.n << " k=" << s.k << " " << map.name;
    }
  }
}

/// Values with a spread of magnitudes (sums that round): the same bits on every call, and near the double sum.
TYPED_TEST(AlongTest, RoundedSumsRepeatBitForBit) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  const std::int64_t n = 70001, k = 3;
  GuardedOperand<T, M> x("x", n * k, Placement{1, 1});
  fill_values(x, 7);
  x.upload();
  const Kokkos::View<T**, Kokkos::LayoutStride, M, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xv(
      x.view().data(), Kokkos::LayoutStride(std::size_t(n), std::size_t(k), std::size_t(k), 1));
  Kokkos::View<Acc*, M> first("first", k), second("second", k);
  kstream::transform_reduce(exec, kstream::along{0}, first, kstream::Sum{}, Same<T>{}, xv);
  kstream::transform_reduce(exec, kstream::along{0}, second, kstream::Sum{}, Same<T>{}, xv);
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first);
  const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), second);
  for (std::int64_t c = 0; c < k; ++c) {
    long double sum = 0, magnitude = 0;
    for (std::int64_t r = 0; r < n; ++r) {
      sum += (long double)x.at(r * k + c);
      magnitude += std::fabs((long double)x.at(r * k + c));
    }
    EXPECT_TRUE(same_bits(a(c), b(c))) << "column " << c;
    EXPECT_LE(std::fabs((long double)a(c) - sum), magnitude * 1e-12) << "column " << c;
  }
}

/// Empty and unit extents: an empty reduced dimension gives the reducer's identity (in the accumulator's type, as the
/// full reduction of no element does), an empty kept one writes nothing.
TYPED_TEST(AlongTest, EmptyAndUnitExtents) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  Kokkos::View<T**, Kokkos::LayoutLeft, M> empty_rows("x", 0, 5), one_row("y", 1, 5);
  Kokkos::View<Acc*, M> sums("sums", 5);
  Kokkos::View<T*, M> largest("largest", 5), none("none", 0);
  Kokkos::deep_copy(sums, Acc(7));
  kstream::transform_reduce(exec, kstream::along{0}, sums, kstream::Sum{}, Same<T>{}, empty_rows);
  kstream::transform_reduce(exec, kstream::along{0}, largest, kstream::Max{}, Same<T>{}, empty_rows);
  kstream::transform_reduce(exec, kstream::along{1}, none, kstream::Max{}, Same<T>{}, empty_rows);  // nothing
  const auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  const auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), largest);
  for (int c = 0; c < 5; ++c) {
    EXPECT_EQ(s(c), Acc(0));
    // The accumulator's identity as T (Max of floats accumulates in double: -DBL_MAX or -inf, by Kokkos version).
    EXPECT_EQ(l(c), static_cast<T>(Kokkos::reduction_identity<Acc>::max()));
  }
  Kokkos::deep_copy(one_row, T(3));
  kstream::transform_reduce(exec, kstream::along{0}, sums, kstream::Sum{}, Same<T>{}, one_row);
  const auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  for (int c = 0; c < 5; ++c) EXPECT_EQ(t(c), Acc(3));
}

/// NaN wins Max and Min and propagates through Sum, along rows and along columns.
TYPED_TEST(AlongTest, NaNPropagates) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  const std::int64_t n = 2000, k = 6;
  Kokkos::View<T**, Kokkos::LayoutRight, M> x("x", n, k);
  auto h = Kokkos::create_mirror_view(x);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) h(r, c) = T(double((r * 7 + c) % 13) - 6);
  h(1234, 2) = std::numeric_limits<T>::quiet_NaN();
  Kokkos::deep_copy(x, h);
  Kokkos::View<T*, M> col_max("max", k), col_min("min", k), row_max("rows", n);
  Kokkos::View<kstream::accumulator_t<T>*, M> col_sum("sum", k);
  kstream::transform_reduce(exec, kstream::along{0}, col_max, kstream::Max{}, Same<T>{}, x);
  kstream::transform_reduce(exec, kstream::along{0}, col_min, kstream::Min{}, Same<T>{}, x);
  kstream::transform_reduce(exec, kstream::along{0}, col_sum, kstream::Sum{}, Same<T>{}, x);
  kstream::transform_reduce(exec, kstream::along{1}, row_max, kstream::Max{}, Same<T>{}, x);
  const auto mx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_max);
  const auto mn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_min);
  const auto sm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_sum);
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_max);
  for (std::int64_t c = 0; c < k; ++c) {
    EXPECT_EQ(std::isnan(double(mx(c))), c == 2) << c;
    EXPECT_EQ(std::isnan(double(mn(c))), c == 2) << c;
    EXPECT_EQ(std::isnan(double(sm(c))), c == 2) << c;
  }
  for (std::int64_t r = 0; r < n; ++r) EXPECT_EQ(std::isnan(double(rm(r))), r == 1234) << r;
}

/// The index over the reduced dimensions (row-major, the last fastest) of the input's flat index i.
std::int64_t reduced_index_of(std::int64_t i, const Extents& extents, const std::vector<int>& dims) {
  std::int64_t index = 0, scale = 1;
  for (int d = int(extents.size()) - 1; d >= 0; --d) {
    const std::int64_t coordinate = i % extents[d];
    i /= extents[d];
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) continue;
    index += coordinate * scale;
    scale *= extents[d];
  }
  return index;
}

/// ArgMax of x * y (many ties: small whole numbers) and ArgMin of x (the device kernel on every backend) along
/// `dims`, into integer results at each result mapping, against the first winner in row-major order; a NaN planted
/// at `nan_at` (if >= 0) wins its output.
template <class C, class Is, class Rs>
std::string argmax_case(const Extents& extents, const std::vector<int>& dims, bool keep, const Mapping& in_map,
                        int result_map, std::int64_t nan_at) {
  using T = typename C::value_type;
  using M = typename C::memory_space;
  const typename C::execution_space exec;
  const Extents kept = result_extents(extents, dims, keep);
  const Mapping out_map = result_mapping(kept, result_map);
  GuardedTensor<T, M> x("x", extents, in_map), y("y", extents, standard_mappings(extents)[1]);
  GuardedTensor<std::int64_t, M> largest("largest", kept, out_map);
  GuardedTensor<int, M> smallest("smallest", kept, out_map);
  const std::int64_t outputs = largest.size();
  struct Best {
    double value;
    std::int64_t index = -1;
  };
  std::vector<Best> most(static_cast<std::size_t>(outputs)), least(static_cast<std::size_t>(outputs));
  const auto take = [](Best& best, double value, std::int64_t index, bool largest_wins) {
    const bool nan = value != value, best_nan = best.value != best.value;
    const bool better = best.index < 0 || (nan && !best_nan) ||
                        (!nan && !best_nan && (largest_wins ? value > best.value : value < best.value));
    if (better) best = {value, index};
  };
  for (std::int64_t i = 0; i < x.size(); ++i) {
    x.at(i) = i == nan_at ? std::numeric_limits<T>::quiet_NaN() : small_value<T>(i, 0);
    y.at(i) = small_value<T>(i, 1);
    const std::int64_t o = output_of(i, extents, dims), r = reduced_index_of(i, extents, dims);
    take(most[o], double(x.at(i) * y.at(i)), r, true);
    take(least[o], double(x.at(i)), r, false);
  }
  x.upload();
  y.upload();
  largest.upload();
  smallest.upload();
  const kstream::along along_dims(dims);
  const auto calls = [&]<int R, int RR>() {
    kstream::transform_reduce(exec, along_dims, largest.template view<RR>(), kstream::ArgMax{}, Times<T>{},
                              x.template view<R>(), y.template view<R>());
    impl::transform_reduce_along_to<impl::AlongKernel::device>(impl::LaunchNow{}, exec, along_dims,
                                                               smallest.template view<RR>(), kstream::ArgMin{},
                                                               Same<T>{}, x.template view<R>());
  };
  at_ranks<Is, Rs>(int(extents.size()), int(kept.size()), calls);
  largest.download();
  smallest.download();
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t o = 0; o < outputs; ++o)
    if ((largest.at(o) != most[o].index || smallest.at(o) != least[o].index) && wrong++ == 0) first = o;
  std::string error;
  if (wrong > 0)
    error = std::to_string(wrong) + " wrong outputs, first " + std::to_string(first) + ": argmax " +
            std::to_string(largest.at(first)) + " expected " + std::to_string(most[first].index) + ", argmin " +
            std::to_string(smallest.at(first)) + " expected " + std::to_string(least[first].index) + ". ";
  const auto damaged = largest.damaged_guard_elements() + smallest.damaged_guard_elements();
  return case_error(error, damaged, describe_case(extents, dims, in_map, out_map));
}

/// ArgMax and ArgMin (KokkosBlas::iamax, torch.argmax): every subset of the dimensions of ranks 1 to 4 on every
/// mapping, keep-dims and kept results, NaN; over every dimension into a rank-0 result through the plain form.
TYPED_TEST(AlongTest, ArgMaxAndArgMinGiveTheFirstWinner) {
  for (int rank = 1; rank <= 4; ++rank) {
    const Extents extents = test_extents(rank);
    const auto maps = standard_mappings(extents);
    std::int64_t cases = 0;
    for (int subset = 1; subset < (1 << rank); ++subset) {
      std::vector<int> dims;
      for (int d = 0; d < rank; ++d)
        if (subset & (1 << d)) dims.push_back(d);
      for (std::size_t m = 0; m < maps.size(); ++m) {
        const std::int64_t nan_at = cases % 4 == 3 ? (cases * 7919) % (extents[0] * extents[rank - 1]) : -1;
        EXPECT_EQ((argmax_case<TypeParam, Ranks<1, 2, 3, 4>, SameRank>(extents, dims, true, maps[m], int(cases % 3),
                                                                       nan_at)),
                  "");
        ++cases;
      }
    }
  }
  const Extents extents{5, 3, 131};
  for (const auto& map : standard_mappings(extents))
    for (const std::vector<int>& dims : {std::vector<int>{1}, std::vector<int>{0, 2}})
      EXPECT_EQ((argmax_case<TypeParam, Ranks<3>, Ranks<1, 2>>(extents, dims, false, map, 0, -1)), "");
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  Kokkos::View<T***, Kokkos::LayoutLeft, M> x("x", 5, 3, 131);
  auto h = Kokkos::create_mirror_view(x);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 131; ++k) h(i, j, k) = T(double((i * 3 + j) * 131 + k) == 1000 ? 9 : (k % 7) - 3);
  h(4, 2, 130) = T(9);  // a later tie: the first wins
  Kokkos::deep_copy(x, h);
  Kokkos::View<std::int64_t, M> at("at");
  kstream::transform_reduce(exec, at, kstream::ArgMax{}, Same<T>{}, x);
  std::int64_t got = -1;
  Kokkos::deep_copy(got, at);
  EXPECT_EQ(got, 1000);
}

/// The fused form: y = y - x written everywhere, and each column's sum of squares of the new y.
TYPED_TEST(AlongTest, FusedUpdateAndColumnNorms) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  for (const Extents& extents : {Extents{4001, 5}, Extents{3, 7, 129}}) {
    const std::vector<int> dims = extents.size() == 2 ? std::vector<int>{0} : std::vector<int>{0, 2};
    for (const auto& map : standard_mappings(extents)) {
      GuardedTensor<T, M> x("x", extents, standard_mappings(extents)[0]), y("y", extents, map);
      const Extents kept = result_extents(extents, dims, false);
      std::vector<Acc> norms(std::size_t(kept[0]), 0);
      for (std::int64_t i = 0; i < x.size(); ++i) {
        x.at(i) = small_value<T>(i, 0);
        y.at(i) = small_value<T>(i, 1);
        const Acc updated = Acc(T(y.at(i) - x.at(i)));
        norms[output_of(i, extents, dims)] += updated * updated;
      }
      x.upload();
      y.upload();
      Kokkos::View<Acc*, M> result("norms", kept[0]);
      call_at_rank(int(extents.size()), Ranks<2, 3>{}, [&]<int R>() {
        const kstream::along along_dims = R == 2 ? kstream::along{0} : kstream::along{0, 2};
        kstream::transform_reduce(exec, along_dims, y.template view<R>(), Minus<T>{}, result, kstream::Sum{},
                                  SquareOfFirst<T>{}, y.template view<R>(), x.template view<R>());
      });
      y.download();
      const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result);
      std::int64_t wrong = 0;
      for (std::int64_t i = 0; i < y.size(); ++i) wrong += !same_bits(y.at(i), T(small_value<T>(i, 1) - x.at(i)));
      for (std::int64_t o = 0; o < kept[0]; ++o) wrong += got(o) != norms[o];
      EXPECT_EQ(wrong, 0) << map.describe();
      EXPECT_EQ(y.damaged_guard_elements(), 0) << map.describe();
    }
  }
}

/// Each error names what is wrong.
TYPED_TEST(AlongTest, ErrorsNameWhatIsWrong) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  Kokkos::View<T**, M> x("x", 6, 4), y("y", 6, 4);
  Kokkos::View<Acc*, M> columns("columns", 4), rows("rows", 6), wrong("wrong", 5);
  Kokkos::View<Acc**, M> keep("keep", 1, 4), keep_bad("keep_bad", 2, 4);
  Kokkos::View<Acc***, M> too_many("too_many", 6, 4, 1);
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{2}, x, y, columns); }),
              "kstream::dot: kstream::along names dimension 2, but the inputs have rank 2"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{-1}, x, y, columns); }),
              "names dimension -1"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{0, 0}, x, y, columns); }),
              "names dimension 0 twice"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{}, x, y, columns); }),
              "names no dimension"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{0}, x, y, wrong); }),
              "extent mismatch in dimension 0 of result 'result' (label \"wrong\"): it has extent 5 but "
                        "dimension 1 of 'x' (label \"x\") has extent 4"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{1}, x, y, columns); }),
              "it has extent 4 but dimension 0 of 'x' (label \"x\") has extent 6"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{0}, x, y, keep_bad); }),
              "it has extent 2 but dimension 0 is reduced"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{0}, x, y, too_many); }),
              "result 'result' (label \"too_many\") has rank 3, but reducing 1 of the inputs' 2 dimensions "
                        "leaves 1"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::nrm2(exec, kstream::along{0}, x, Kokkos::subview(x, 0, Kokkos::ALL)); }),
              "may overlap input 'x'"));
  EXPECT_TRUE(mentions(rejection([&] {
                kstream::transform_reduce(exec, kstream::along{1}, rows, kstream::Sum{}, Same<T>{},
                                          Kokkos::View<T**, M>("z", 6, 5));
                kstream::dot(exec, kstream::along{1}, x, Kokkos::View<T**, M>("z", 6, 5), rows);
              }),
              "extent mismatch in dimension 1"));
  const Kokkos::View<Acc*, Kokkos::LayoutStride, M> repeated(columns.data(), Kokkos::LayoutStride(4, 0));
  EXPECT_TRUE(mentions(rejection([&] { kstream::dot(exec, kstream::along{0}, x, y, repeated); }),
              "maps several indices to one element"));
  Kokkos::View<int*, M> indices("indices", 4);
  Kokkos::View<std::int8_t*, M> narrow("narrow", 4);
  Kokkos::View<T**, M> long_columns("long_columns", 300, 4);
  EXPECT_TRUE(mentions(rejection([&] {
                kstream::transform_reduce(exec, kstream::along{0}, indices, kstream::ArgMax{}, Same<T>{},
                                          Kokkos::View<T**, M>("empty", 0, 4));
              }),
              "ArgMax and ArgMin need at least one element to reduce"));
  EXPECT_TRUE(mentions(rejection([&] {
                kstream::transform_reduce(exec, kstream::along{0}, narrow, kstream::ArgMin{}, Same<T>{},
                                          long_columns);
              }),
              "the result's integers hold indices up to 127, the reduction has 300 elements for each output"));
  kstream::transform_reduce(exec, kstream::along{0}, narrow, kstream::ArgMin{}, Same<T>{}, x);  // 6 fit
  kstream::transform_reduce(exec, kstream::along{0}, Kokkos::View<std::int8_t*, M>("none", 0), kstream::ArgMax{},
                            Same<T>{}, Kokkos::View<T**, M>("nothing", 0, 0));  // no output: nothing to check
  kstream::dot(exec, kstream::along{0}, x, y, keep);  // keep-dims, and the kept rank, are fine
  kstream::dot(exec, kstream::along{0}, x, y, columns);
}

/// Recorded along-dimension calls replay the eager calls' bits, and see new inputs.
TYPED_TEST(AlongTest, RecordedCallsReplay) {
  using T = typename TypeParam::value_type;
  using Acc = kstream::accumulator_t<T>;
  using M = typename TypeParam::memory_space;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const std::int64_t n = 1100000, k = 4;  // (rows enough for four a thread on a GPU: the Apart launch, recorded)
  Kokkos::View<T**, Kokkos::LayoutRight, M> x("x", n, k), y("y", n, k);
  Kokkos::deep_copy(x, T(1.5));
  Kokkos::deep_copy(y, T(2));
  Kokkos::View<Acc*, M> eager("eager", k), recorded("recorded", k), sums("sums", n);
  Kokkos::View<T*, M> norms("norms", k);
  Kokkos::View<std::int64_t*, M> where("where", k);
  Kokkos::View<std::int64_t, M> first("first");
  auto step = kstream::record(exec, [&](kstream::Recorder<Exec>& r) {
    r.dot(kstream::along{0}, x, y, recorded);
    r.nrm2(kstream::along{0}, y, norms);
    r.transform_reduce(kstream::along{1}, sums, kstream::Sum{}, Same<T>{}, x);
    r.transform_reduce(kstream::along{0}, where, kstream::ArgMax{}, Same<T>{}, x);
    r.transform_reduce(first, kstream::ArgMin{}, Same<T>{}, x);
  });
  EXPECT_GE(step.size(), 5u);
  for (int round = 0; round < 2; ++round) {
    if (round == 1) Kokkos::deep_copy(x, T(-0.5));
    step.submit();
    kstream::dot(exec, kstream::along{0}, x, y, eager);
    Kokkos::fence();
    const auto e = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), eager);
    const auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), recorded);
    const auto nm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), norms);
    const auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
    const double xv = round == 0 ? 1.5 : -0.5;
    for (std::int64_t c = 0; c < k; ++c) {
      EXPECT_TRUE(same_bits(e(c), r(c))) << "round " << round;
      EXPECT_EQ(r(c), Acc(xv * 2 * double(n)));
      EXPECT_EQ(nm(c), T(std::sqrt(4.0 * double(n))));
    }
    EXPECT_EQ(s(0), Acc(xv * double(k)));
    EXPECT_EQ(s(n - 1), Acc(xv * double(k)));
    const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), where);
    std::int64_t f = -1;
    Kokkos::deep_copy(f, first);
    for (std::int64_t c = 0; c < k; ++c) EXPECT_EQ(w(c), 0);  // every element ties: the first wins
    EXPECT_EQ(f, 0);
  }
}

}  // namespace
}  // namespace kstream::test

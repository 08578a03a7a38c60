// Row operations (kstream/rows.hpp): softmax and log_softmax along every subset of dimensions of views of rank 1
// to 4, RMS norm and layer norm along every subset of a rank-3 view, on every mapping, in place, slices of 1 to
// 10^6 elements, the device kernel on hosts (slices in scratch and not), extreme inputs, 16-bit types, the plan's
// choices with device facts, each error with its message, and recorded calls; against a double reference.
#include <iomanip>
#include <kstream/kstream.hpp>
#include <kstream/record.hpp>

#include "rank_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class RowsTest : public ::testing::Test {};
TYPED_TEST_SUITE(RowsTest, AllCases, CaseNames);

enum class RowOp { softmax, log_softmax, rms_norm, layer_norm };
constexpr double eps = 1e-5;

/// Where flat index i (last index fastest) of `extents` lies: its slice (the kept dimensions' flat index) and its
/// place in the slice (the reduced dimensions' flat index, in order).
std::pair<std::int64_t, std::int64_t> slice_of(std::int64_t i, const Extents& extents, const std::vector<int>& dims) {
  std::int64_t slice = 0, kept_scale = 1, place = 0, place_scale = 1;
  for (int d = int(extents.size()) - 1; d >= 0; --d) {
    const std::int64_t coordinate = i % extents[d];
    i /= extents[d];
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) {
      place += coordinate * place_scale;
      place_scale *= extents[d];
    } else {
      slice += coordinate * kept_scale;
      kept_scale *= extents[d];
    }
  }
  return {slice, place};
}

/// The reference outputs in double, by flat index of x, and the magnitude of each output's terms (the norms'
/// |(x - mean) / deviation * w| + |b|, the softmaxes' output): what T's arithmetic rounds at.
std::vector<double> reference(RowOp op, const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& b, const Extents& extents, const std::vector<int>& dims,
                              std::vector<double>& terms) {
  using R = long double;  // beyond double: double results are compared with it
  std::int64_t slices = 1;
  for (int d = 0; d < int(extents.size()); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) slices *= extents[d];
  const R neg_inf = -std::numeric_limits<R>::infinity();
  std::vector<R> max(std::size_t(slices), neg_inf), sum(std::size_t(slices), 0), count(std::size_t(slices), 0),
      mean(std::size_t(slices), 0), spread(std::size_t(slices), 0);
  std::vector<double> out(x.size());
  terms.assign(x.size(), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto s = std::size_t(slice_of(std::int64_t(i), extents, dims).first);
    max[s] = std::isnan(x[i]) || x[i] > max[s] ? R(x[i]) : max[s];
    count[s] += 1;
    mean[s] += x[i];
  }
  for (std::size_t s = 0; s < mean.size(); ++s) mean[s] /= count[s];
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto s = std::size_t(slice_of(std::int64_t(i), extents, dims).first);
    sum[s] += std::exp(R(x[i]) - max[s]);
    spread[s] += (R(x[i]) - mean[s]) * (R(x[i]) - mean[s]);
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto [slice, place] = slice_of(std::int64_t(i), extents, dims);
    const auto s = std::size_t(slice), p = std::size_t(place);
    const R variance = spread[s] / count[s], xi = x[i];
    switch (op) {
      case RowOp::softmax: out[i] = double(std::exp(xi - max[s]) / sum[s]); break;
      case RowOp::log_softmax: out[i] = double(xi - max[s] - std::log(sum[s])); break;
      case RowOp::rms_norm: out[i] = double(xi / std::sqrt(variance + mean[s] * mean[s] + eps) * w[p]); break;
      case RowOp::layer_norm: out[i] = double((xi - mean[s]) / std::sqrt(variance + eps) * w[p] + b[p]); break;
    }
    const double unbiased = op == RowOp::layer_norm ? out[i] - b[p] : out[i];
    terms[i] = std::abs(unbiased) + (op == RowOp::layer_norm ? std::abs(b[p]) : 0);
  }
  return out;
}

/// Whether a result is within a few ulps of the reference rounded to T: float 5 ulps of its terms' magnitude (its
/// statistics are double, its output arithmetic float, as torch's); double 64 ulps times sqrt(length) (a sum of
/// `length` terms), and 64 of the accumulator's ulps of the inputs' `magnitude` for the norms (x - mean) and of the
/// slice's constants for log_softmax (x - max - log(sum)).
template <class T>
bool close(RowOp op, double got, double exact, double terms, std::int64_t length, double magnitude) {
  const double want = double(T(exact)), eps = std::numeric_limits<accumulator_t<T>>::epsilon();
  const double rel = sizeof(T) == 4 ? 6e-7 : 64 * eps * std::sqrt(double(length));
  const double abs = op == RowOp::log_softmax ? (sizeof(T) == 4 ? 4e-6 : 1e-14) : 64 * eps * magnitude;
  if (std::isnan(want)) return std::isnan(got);
  return got == want || std::abs(got - want) <= rel * std::max(std::abs(want), terms) + abs;
}

/// The call under test, on views of rank R with parameters of rank W.
template <RowOp Op, class Exec, class XV, class WV, class OutV>
void call(const Exec& exec, impl::RowKernelChoice choice, const std::vector<int>& dims, const XV& x, const WV& w,
          const WV& b, const OutV& out) {
  const kstream::along at(dims);
  if constexpr (Op == RowOp::softmax) impl::softmax_to(impl::LaunchNow{}, exec, choice, at, x, out);
  if constexpr (Op == RowOp::log_softmax) impl::log_softmax_to(impl::LaunchNow{}, exec, choice, at, x, out);
  if constexpr (Op == RowOp::rms_norm) impl::rms_norm_to(impl::LaunchNow{}, exec, choice, at, x, w, eps, out);
  if constexpr (Op == RowOp::layer_norm) impl::layer_norm_to(impl::LaunchNow{}, exec, choice, at, x, w, b, eps, out);
}

/// Op along `dims` of x at `in_map` into out at `out_map` (in place where `in_place`), with the device kernel on a
/// host where `choice` says; "" or what went wrong.
template <class C, RowOp Op, class Is>
std::string row_case(const Extents& extents, const std::vector<int>& dims, const Mapping& in_map,
                     const Mapping& out_map, bool in_place, impl::RowKernelChoice choice,
                     const std::vector<double>& values = {}) {
  using T = typename C::value_type;
  using M = typename C::memory_space;
  const typename C::execution_space exec;
  GuardedTensor<T, M> x("x", extents, in_map), out("out", extents, out_map);
  Extents reduced;
  for (const int d : dims) reduced.push_back(extents[std::size_t(d)]);
  const auto w_maps = standard_mappings(reduced);
  GuardedTensor<T, M> w("w", reduced, w_maps[1]), b("b", reduced, w_maps[dims.size() % w_maps.size()]);
  std::vector<double> xs(std::size_t(x.size())), ws(std::size_t(w.size())), bs(std::size_t(b.size()));
  for (std::int64_t i = 0; i < x.size(); ++i)
    xs[std::size_t(i)] = double(x.at(i) = T(values.empty() ? small_value<double>(i, 0) / 2 : values[std::size_t(i)]));
  for (std::int64_t i = 0; i < w.size(); ++i) {
    ws[std::size_t(i)] = double(w.at(i) = T(small_value<double>(i, 1) / 4));
    bs[std::size_t(i)] = double(b.at(i) = T(small_value<double>(i, 2)));
  }
  std::vector<double> terms;
  const std::vector<double> want = reference(Op, xs, ws, bs, extents, dims, terms);
  std::int64_t length = 1;
  for (const auto e : reduced) length *= e;
  double magnitude = 0;
  for (const double v : xs) magnitude = std::isfinite(v) ? std::max(magnitude, std::abs(v)) : magnitude;
  x.upload();
  out.upload();
  w.upload();
  b.upload();
  call_at_rank(int(extents.size()), Is{}, [&]<int R>() {
    const auto xv = x.template view<R>();
    if constexpr (Op == RowOp::softmax || Op == RowOp::log_softmax) {
      call<Op>(exec, choice, dims, xv, xv, xv, in_place ? xv : out.template view<R>());
    } else {
      call_at_rank(int(dims.size()), Ranks<1, 2, 3>{}, [&]<int W>() {
        if constexpr (W <= R) call<Op>(exec, choice, dims, xv, w.template view<W>(), b.template view<W>(),
                                       in_place ? xv : out.template view<R>());
      });
    }
  });
  exec.fence();
  GuardedTensor<T, M>& result = in_place ? x : out;
  result.download();
  std::ostringstream error;
  int wrong = 0;
  for (std::int64_t i = 0; i < result.size() && wrong < 3; ++i) {
    const double got = double(result.at(i)), expected = want[std::size_t(i)];
    if (!close<T>(Op, got, expected, terms[std::size_t(i)], length, magnitude)) {
      error << std::setprecision(17) << "element " << i << ": " << got << ", expected " << expected << ". ";
      ++wrong;
    }
  }
  std::ostringstream description;
  description << "extents";
  for (const auto e : extents) description << ' ' << e;
  description << " along";
  for (const auto d : dims) description << ' ' << d;
  description << " x " << in_map.describe() << (in_place ? " in place" : " out " + out_map.describe())
              << (choice.device ? " device kernel, scratch " + std::to_string(choice.scratch) : "");
  const std::int64_t damaged = result.damaged_guard_elements();
  if (damaged > 0) error << damaged << " elements outside out were overwritten. ";
  return error.str().empty() ? "" : error.str() + description.str();
}

/// Every non-empty subset of the dimensions of a rank-`rank` view.
std::vector<std::vector<int>> subsets(int rank) {
  std::vector<std::vector<int>> all;
  for (int mask = 1; mask < (1 << rank); ++mask) {
    std::vector<int> dims;
    for (int d = 0; d < rank; ++d)
      if (mask & (1 << d)) dims.push_back(d);
    all.push_back(dims);
  }
  return all;
}

Extents row_extents(int rank) {
  switch (rank) {
    case 1: return {37};
    case 2: return {13, 29};
    case 3: return {5, 3, 23};
    default: return {3, 1, 4, 9};
  }
}

/// The device kernel on host backends: slices in scratch (4 KiB) and read twice (none).
std::vector<impl::RowKernelChoice> kernels() { return {{}, {true, 4096}, {true, 0}}; }

TYPED_TEST(RowsTest, SoftmaxAlongEverySubsetOfRanks1To4) {
  for (int rank = 1; rank <= 4; ++rank) {
    const Extents extents = row_extents(rank);
    const auto maps = standard_mappings(extents);
    for (const auto& dims : subsets(rank))
      for (std::size_t m = 0; m < maps.size(); ++m) {
        const auto& out_map = maps[(m + 1) % maps.size()];
        for (const auto& choice : kernels())
          EXPECT_EQ((row_case<TypeParam, RowOp::softmax, Ranks<1, 2, 3, 4>>(extents, dims, maps[m], out_map, false,
                                                                             choice)),
                    "");
        EXPECT_EQ((row_case<TypeParam, RowOp::softmax, Ranks<1, 2, 3, 4>>(extents, dims, maps[m], out_map, true, {})),
                  "");
        EXPECT_EQ((row_case<TypeParam, RowOp::log_softmax, Ranks<1, 2, 3, 4>>(extents, dims, maps[m], out_map,
                                                                                m % 2 == 0, {})),
                  "");
      }
  }
}

TYPED_TEST(RowsTest, NormsAlongEverySubsetOfARank3View) {
  const Extents extents = row_extents(3);
  const auto maps = standard_mappings(extents);
  for (const auto& dims : subsets(3))
    for (std::size_t m = 0; m < maps.size(); ++m) {
      const auto& out_map = maps[(m + 3) % maps.size()];
      for (const auto& choice : kernels()) {
        EXPECT_EQ((row_case<TypeParam, RowOp::rms_norm, Ranks<3>>(extents, dims, maps[m], out_map, m % 3 == 0,
                                                                   choice)),
                  "");
        EXPECT_EQ((row_case<TypeParam, RowOp::layer_norm, Ranks<3>>(extents, dims, maps[m], out_map, m % 3 == 1,
                                                                     choice)),
                  "");
      }
    }
}

/// Slices longer than team scratch, which holds their first whole packs (the rest read twice): a device's own
/// scratch (slices of 1.25 times it), the device kernel on hosts with scratch for 0.6 of a slice (RowPlanTest
/// checks that both hold part); rows on and off a pack's boundary, out lined up with x and not, in place.
TYPED_TEST(RowsTest, SlicesPartlyHeldInScratch) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  std::int64_t n = 1531;
  impl::RowKernelChoice partly{true, std::int64_t(0.6 * double(n * std::int64_t(sizeof(T)))) + 512};
  if constexpr (kstream::is_device_execution_space_v<Exec>) {
    n = Kokkos::TeamPolicy<Exec>::scratch_size_max(0) * 5 / 4 / std::int64_t(sizeof(T)) | 1;
    partly = {};
  }
  const Extents extents{3, n};
  const auto maps = standard_mappings(extents);
  for (const auto& [in, out] : {std::pair{0, 4}, {4, 0}, {0, 0}}) {
    EXPECT_EQ((row_case<TypeParam, RowOp::softmax, Ranks<2>>(extents, {1}, maps[in], maps[out], in == out, partly)),
              "");
    EXPECT_EQ((row_case<TypeParam, RowOp::layer_norm, Ranks<2>>(extents, {1}, maps[in], maps[out], in == out, partly)),
              "");
  }
}

/// Slices of 1 to 10^6 elements: one long row, many one-element slices, long columns.
TYPED_TEST(RowsTest, SlicesOfOneToAMillionElements) {
  const Extents shapes[] = {{1, 1000003}, {1000003, 1}, {3, 65537}, {65537, 3}};
  for (const auto& extents : shapes) {
    const auto maps = standard_mappings(extents);
    for (const int d : {0, 1})
      for (const auto& choice : kernels()) {
        EXPECT_EQ((row_case<TypeParam, RowOp::softmax, Ranks<2>>(extents, {d}, maps[0], maps[1], false, choice)), "");
        EXPECT_EQ((row_case<TypeParam, RowOp::layer_norm, Ranks<2>>(extents, {d}, maps[1], maps[0], true, choice)),
                  "");
      }
    kstream::set_streaming_stores(kstream::StreamingStores::always);  // hosts: whole lines past the caches
    EXPECT_EQ((row_case<TypeParam, RowOp::rms_norm, Ranks<2>>(extents, {1}, maps[0], maps[0], false, {})), "");
    kstream::set_streaming_stores(kstream::StreamingStores::automatic);
  }
}

/// No overflow at large magnitudes, -inf slices as torch.softmax (NaN; -inf and finite: 0 there), NaN propagates,
/// a layer norm of mean 1e4 and deviation 1 within a few ulps of the double reference.
TYPED_TEST(RowsTest, ExtremeInputs) {
  using T = typename TypeParam::value_type;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double big = sizeof(T) == 4 ? 3e38 : 1e308;
  const Extents extents{5, 4};
  const std::vector<double> values{big,  big / 2, -big, 0,    // large magnitudes
                                   -inf, -inf,    -inf, -inf,  // all -inf: NaN
                                   -inf, 1,       -inf, 2,     // -inf beside finite values: 0 there
                                   1,    nan,     2,    3,     // NaN: the whole row
                                   inf,  1,       2,    3};    // +inf: NaN where inf, 0 elsewhere (torch)
  const auto maps = standard_mappings(extents);
  for (const auto& choice : kernels()) {
    EXPECT_EQ((row_case<TypeParam, RowOp::softmax, Ranks<2>>(extents, {1}, maps[0], maps[1], false, choice, values)),
              "");
    EXPECT_EQ((row_case<TypeParam, RowOp::log_softmax, Ranks<2>>(extents, {1}, maps[0], maps[1], false, choice,
                                                                  values)),
              "");
  }
  const Extents row{3, 4099};
  std::vector<double> shifted(3 * 4099);
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(1e4, 1);
  for (auto& v : shifted) v = double(T(normal(rng)));
  const auto row_maps = standard_mappings(row);
  for (const auto& choice : kernels())
    EXPECT_EQ((row_case<TypeParam, RowOp::layer_norm, Ranks<2>>(row, {1}, row_maps[0], row_maps[1], false, choice,
                                                                 shifted)),
              "");
}

/// RMS norm squares without overflow: rows near the type's largest magnitude, a large first element with small ones
/// after it, a small first element with large ones after it; every kernel.
TYPED_TEST(RowsTest, RmsNormOfLargeMagnitudes) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  const double big = sizeof(T) == 4 ? 3e38 : 1e308;
  const double rows[3][4] = {{big, big / 2, -big, 0}, {big / 4, 1, -2, 0}, {1e-30, 1e10, -3e9, 7}};
  Kokkos::View<T**, Kokkos::LayoutRight, M> x("x", 3, 4);
  Kokkos::View<T*, M> w("w", 4);
  Kokkos::deep_copy(w, T(1));
  auto hx = Kokkos::create_mirror_view(x);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) hx(i, j) = T(rows[i][j]);
  Kokkos::deep_copy(x, hx);
  for (const auto& choice : kernels()) {
    const Kokkos::View<T**, Kokkos::LayoutRight, M> out("out", 3, 4);  // zeros
    impl::rms_norm_to(impl::LaunchNow{}, exec, choice, kstream::along{1}, x, w, eps, out);
    const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
    for (int i = 0; i < 3; ++i) {
      const double largest = std::max(std::abs(rows[i][0]), std::max(std::abs(rows[i][1]), std::abs(rows[i][2])));
      double squares = 0;  // of x / largest: no overflow in the reference either
      for (int j = 0; j < 4; ++j) squares += (double(hx(i, j)) / largest) * (double(hx(i, j)) / largest);
      const double rms = largest * std::sqrt(squares / 4);
      for (int j = 0; j < 4; ++j)
        EXPECT_NEAR(double(ho(i, j)), double(hx(i, j)) / rms, sizeof(T) == 4 ? 1e-6 : 1e-14)
            << "row " << i << ", element " << j << (choice.device ? ", device kernel" : "");
    }
  }
}

/// 16-bit inputs and outputs: computed in float, rounded once (equal to float where Kokkos makes them float).
TYPED_TEST(RowsTest, SixteenBitTypesRoundOnce) {
  using M = typename TypeParam::memory_space;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const auto check = [&]<class H>(H) {
    const std::int64_t rows = 7, n = 333;
    Kokkos::View<H**, Kokkos::LayoutRight, M> x("x", rows, n), out("out", rows, n);
    Kokkos::View<H*, M> w("w", n), b("b", n);
    auto hx = Kokkos::create_mirror_view(x);
    auto hw = Kokkos::create_mirror_view(w);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < n; ++j) hx(i, j) = from_float<H>(float((i * 7 + j * 3) % 23) / 4 - 2);
    for (std::int64_t j = 0; j < n; ++j) hw(j) = from_float<H>(float(j % 5) / 2);
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(w, hw);
    const auto ho = Kokkos::create_mirror_view(out);
    for (const int op : {0, 1}) {
      if (op == 0) kstream::softmax(exec, kstream::along{1}, x, out);
      if (op == 1) kstream::layer_norm(exec, kstream::along{1}, x, w, b, 1e-5f, out);
      Kokkos::deep_copy(ho, out);
      for (std::int64_t i = 0; i < rows; ++i) {
        double max = -1e30, sum = 0, mean = 0, spread = 0;
        for (std::int64_t j = 0; j < n; ++j) max = std::max(max, double(to_float(hx(i, j))));
        for (std::int64_t j = 0; j < n; ++j) {
          sum += std::exp(double(to_float(hx(i, j))) - max);
          mean += to_float(hx(i, j));
        }
        mean /= double(n);
        for (std::int64_t j = 0; j < n; ++j) spread += std::pow(double(to_float(hx(i, j))) - mean, 2);
        for (std::int64_t j = 0; j < n; ++j) {
          const double xv = to_float(hx(i, j));
          const double want = op == 0 ? std::exp(xv - max) / sum
                                      : (xv - mean) / std::sqrt(spread / double(n) + 1e-5) * to_float(hw(j));
          // One rounding to H after float math: within two of H's ulps of the exact value.
          const double ulp = is_bhalf_v<H> ? 1.0 / 128 : is_half_v<H> ? 1.0 / 1024 : 1e-6;
          EXPECT_NEAR(to_float(ho(i, j)), want, 2 * ulp * std::max(std::abs(want), 1e-3)) << "op " << op;
        }
      }
    }
  };
  check(Kokkos::Experimental::half_t{});
  check(Kokkos::Experimental::bhalf_t{});
}

/// The plan's choices with device facts (a host test): one read where a slice fits in scratch, a thread per slice
/// where x runs along the kept dimensions, a warp or more per team.
TEST(RowPlanTest, DeviceFactsChooseOneReadWhereTheSliceFits) {
  const auto plan = [](impl::RowFacts f, std::int64_t rows, std::int64_t n, bool right, int bytes) {
    impl::Operand x = impl::flat_operand(0x1000, bytes, rows, right ? n : 1);
    x.rank = 2;
    x.extents[1] = n;
    x.strides[1] = right ? 1 : rows;
    impl::Operand out = x;
    out.address = 0x100000000;
    const impl::Operand operands[] = {x, out};
    impl::ReducedDims dims;
    dims.dims[dims.count++] = 1;
    return impl::plan_rows(f, dims, operands, 2, bytes, 16, "test");
  };
  const impl::RowFacts h200{true, 32, 1024, 48 * 1024 - 8216, 1, true};
  const impl::RowFacts mi250x{true, 64, 1024, 64 * 1024 - 16 * 1024};
  for (const auto& f : {h200, mi250x}) {
    for (const std::int64_t n : {256, 1024, 4096, 8192}) {
      const auto p = plan(f, 4096, n, true, 4);
      EXPECT_TRUE(p.on_chip) << n;
      EXPECT_FALSE(p.outer);
      EXPECT_EQ(p.league * (p.team_size / p.lanes), 4096);  // whole slices a team, a warp at least
      EXPECT_GE(p.lanes, std::min<std::int64_t>(n / 32, 256));  // two rounds of four packs a thread at most
      EXPECT_LE(p.team_size, 256);                              // inner: four teams an SM
      EXPECT_GE(p.team_size, f.warp);
      EXPECT_LE(p.scratch_bytes, f.scratch_bytes);
    }
    // Two rounds of four packs a thread, the threads the nearest power of two in ratio (5120 floats: 160 threads'
    // worth, 128 take them; 6144: 192, 256 take them), but no fewer than half a warp where one round takes more
    // (lanes on H200 facts, on MI250X facts).
    for (const auto& [n, bytes, warp32, warp64] : {std::tuple{256, 4, 16, 16},
                                                   {512, 4, 16, 32},
                                                   {1024, 4, 32, 32},
                                                   {4096, 4, 128, 128},
                                                   {5120, 4, 128, 128},
                                                   {6144, 4, 256, 256},
                                                   {8192, 4, 256, 256},
                                                   {10240, 2, 128, 128},
                                                   {12288, 2, 256, 256},
                                                   {256, 2, 8, 8},
                                                   {512, 2, 16, 16},
                                                   {1024, 2, 16, 32}})
      EXPECT_EQ(plan(f, 4096, n, true, bytes).lanes, f.warp == 32 ? warp32 : warp64) << n << " x " << bytes << " bytes";
    // Slices on chip of at least row_copy_bytes copied into scratch at once where the device copies without
    // registers (CUDA), never the shorter ones, the two-read ones or on MI250X facts.
    for (const auto& [n, bytes] :
         {std::pair{256, 4}, {512, 4}, {1024, 4}, {8192, 4}, {1024, 2}, {2048, 2}, {12672, 2}})
      EXPECT_EQ(plan(f, 4096, n, true, bytes).copied, f.async_copies && n * bytes >= 4096) << n << " x " << bytes;
    EXPECT_FALSE(plan(f, 4096, 131072, true, 4).copied);
    EXPECT_FALSE(plan(f, 8192, 8192, false, 4).copied) << "outer";
    EXPECT_FALSE(plan(f, 4096, 131072, true, 4).on_chip);  // two reads
    EXPECT_EQ(plan(f, 4096, 8192, true, 4).held, 8192);    // on chip: the whole slice
    // Slices longer than scratch keep their first whole packs there, as many as fit (floats and doubles, the
    // tutorial's longest rows and longer), the rest read twice.
    for (const auto& [n, bytes] : {std::pair{12288, 4}, {12672, 4}, {131072, 4}, {8192, 8}, {32768, 2}}) {
      const auto part = plan(f, 4096, n, true, bytes);
      EXPECT_FALSE(part.on_chip) << n;
      EXPECT_GT(part.held, 0) << n;
      EXPECT_LT(part.held, n) << n;
      EXPECT_EQ(part.held % (16 / bytes), 0) << n;
      EXPECT_LE(part.scratch_bytes, f.scratch_bytes) << n;
      EXPECT_GT(part.scratch_bytes + 16, f.scratch_bytes) << n << ": a pack more would not fit";
    }
    EXPECT_TRUE(plan(f, 4096, 12672, true, 2).on_chip);    // bf16 rows of the tutorial's longest
    const auto columns = plan(f, 8192, 8192, false, 4);    // softmax along dimension 0 of a LayoutRight view
    EXPECT_TRUE(columns.outer);
    EXPECT_EQ(columns.held, 0) << "x's slices strided: none held";
    EXPECT_EQ(columns.team_size / columns.lanes, f.warp);  // a warp's threads on adjacent slices
    EXPECT_EQ(columns.team_size, 1024) << "outer: the largest team (few slices fill the device)";
    EXPECT_FALSE(columns.turned) << "out's slices laid out as x's";
    for (const int bytes : {2, 4, 8}) {  // x LayoutLeft, out LayoutRight: out's tile of the team's slices in scratch
      impl::Operand x = impl::flat_operand(0x1000, bytes, 4096, 1);
      x.rank = 2;
      x.extents[1] = 4096;
      x.strides[1] = 4096;
      impl::Operand out = x;
      out.address = 0x100000000;
      out.strides[0] = 4096;
      out.strides[1] = 1;
      const impl::Operand operands[] = {x, out};
      impl::ReducedDims dims;
      dims.dims[dims.count++] = 1;
      const auto turned = impl::plan_rows(f, dims, operands, 2, bytes, 16, "test");
      EXPECT_TRUE(turned.outer && turned.turned) << bytes;
      EXPECT_GE(turned.scratch_bytes, 2 * turned.team_size * bytes) << "two rounds of the team's threads at least";
      EXPECT_LE(turned.scratch_bytes, f.scratch_bytes);
    }
  }
  // SlicesPartlyHeldInScratch: the device kernel on hosts (teams of up to four threads) and an H200's scratch,
  // part of each slice held.
  for (const int bytes : {2, 4, 8}) {
    const impl::RowFacts hosted{true, 1, 4, std::int64_t(0.6 * 1531 * bytes) + 512};
    const auto part = plan(hosted, 3, 1531, true, bytes);
    EXPECT_TRUE(part.held > 1531 / 2 && part.held < 1531) << bytes << " bytes: " << part.held;
    const std::int64_t n = h200.scratch_bytes * 5 / 4 / bytes | 1;
    const auto device = plan(h200, 3, n, true, bytes);
    EXPECT_TRUE(device.held > n / 2 && device.held < n) << bytes << " bytes: " << device.held;
  }
  impl::RowFacts host;
  host.threads = 2;  // blocks of adjacent slices, at least four a thread, at most 16 slices
  EXPECT_EQ(plan(host, 100, 7, true, 4).block, 12);
  EXPECT_EQ(plan(host, 100, 7, true, 4).league, 9);
  EXPECT_EQ(plan(host, 4096, 1024, true, 4).block, 16);
  EXPECT_EQ(plan(host, 3, 1024, true, 4).league, 3);
  EXPECT_FALSE(plan(host, 100, 7, true, 4).on_chip);
  kstream::set_streaming_stores(kstream::StreamingStores::always);
  EXPECT_EQ(plan(host, 100, 7, true, 4).streaming_stores, impl::host_streams(impl::Operand{}, true, false, 0))
      << "adjacent elements (where the host streams at all: x86)";
  EXPECT_FALSE(plan(host, 100, 7, false, 4).streaming_stores) << "a slice's elements strided";
  kstream::set_streaming_stores(kstream::StreamingStores::automatic);
  EXPECT_FALSE(plan(host, 100, 7, true, 4).streaming_stores) << "automatic: fits in cache";
}

TYPED_TEST(RowsTest, ErrorsNameWhatIsWrong) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  Kokkos::View<T**, M> x("x", 6, 4), out("out", 6, 4), bad("bad", 6, 5);
  Kokkos::View<T*, M> w("w", 4), w_bad("w_bad", 5);
  Kokkos::View<T**, M> w2("w2", 6, 4);
  EXPECT_TRUE(mentions(rejection([&] { kstream::softmax(exec, kstream::along{2}, x, out); }),
              "kstream::softmax: kstream::along names dimension 2, but the inputs have rank 2"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::softmax(exec, kstream::along{1, 1}, x, out); }), "twice"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::log_softmax(exec, kstream::along{1}, x, bad); }),
              "extent mismatch in dimension 1"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::rms_norm(exec, kstream::along{1}, x, w_bad, 1e-5, out); }),
              "kstream::rms_norm: extent mismatch in dimension 0 of 'weight' (label \"w_bad\"): it has extent 5 but "
              "reduced dimension 1 of 'x' has extent 4"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::rms_norm(exec, kstream::along{1}, x, w2, 1e-5, out); }),
              "'weight' (label \"w2\") has rank 2, but 1 dimensions are reduced"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::layer_norm(exec, kstream::along{1}, x, w, w_bad, 1e-5, out); }),
              "'bias' (label \"w_bad\")"));
  EXPECT_TRUE(mentions(rejection([&] { kstream::rms_norm(exec, kstream::along{1}, x, w, -1.0, out); }),
              "kstream::rms_norm: eps is -1"));
  EXPECT_TRUE(mentions(rejection([&] {
                kstream::layer_norm(exec, kstream::along{1}, x, Kokkos::subview(out, 0, Kokkos::ALL), w, 0.0, out);
              }),
              "'weight' (label \"out\") may overlap 'out'"));
  EXPECT_TRUE(mentions(rejection([&] {
                kstream::softmax(exec, kstream::along{0}, Kokkos::subview(x, std::pair(0, 5), Kokkos::ALL),
                                 Kokkos::subview(x, std::pair(1, 6), Kokkos::ALL));
              }),
              "overlap"));
  kstream::softmax(exec, kstream::along{0}, Kokkos::View<T**, M>("empty", 0, 3), Kokkos::View<T**, M>("e2", 0, 3));
  kstream::layer_norm(exec, kstream::along{1}, x, w, w, 0.0, out);  // weight and bias may be one view
}

/// The general form's op: x minus the slice's mean.
template <class T>
struct Centered {
  KOKKOS_INLINE_FUNCTION impl::compute_t<T> operator()(impl::compute_t<T> v, const MomentsState<T>& s) const {
    return impl::compute_t<T>(v - s.mean());
  }
};
template <class View>
struct Fill {
  View x;
  int step;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    for (std::int64_t j = 0; j < std::int64_t(x.extent(1)); ++j)
      x(i, j) = typename View::value_type(double((i * 3 + j * step) % 11) / 4);
  }
};

/// Recorded row operations replay the eager calls' bits, and see new inputs.
TYPED_TEST(RowsTest, RecordedCallsReplay) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  const std::int64_t rows = 300, n = 77;
  Kokkos::View<T**, Kokkos::LayoutRight, M> x("x", rows, n), a("a", rows, n), b("b", rows, n), c("c", rows, n),
      d("d", rows, n), e("e", rows, n), eager("eager", rows, n);
  Kokkos::View<T*, M> w("w", n);
  Kokkos::deep_copy(w, T(2));
  const Centered<T> centered;
  auto step = kstream::record(exec, [&](kstream::Recorder<Exec>& r) {
    r.softmax(kstream::along{1}, x, a);
    r.log_softmax(kstream::along{0}, x, b);
    r.rms_norm(kstream::along{1}, x, w, 1e-5, c);
    r.layer_norm(kstream::along{1}, x, w, w, 1e-5, d);
    r.transform_rows(kstream::along{1}, e, kstream::Moments{}, centered, x);
  });
  EXPECT_EQ(step.size(), 5u);
  for (int round = 0; round < 2; ++round) {
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(exec, 0, rows), Fill<decltype(x)>{x, round + 1});
    exec.fence();
    step.submit();
    const std::pair<decltype(a), std::function<void()>> pairs[] = {
        {a, [&] { kstream::softmax(exec, kstream::along{1}, x, eager); }},
        {b, [&] { kstream::log_softmax(exec, kstream::along{0}, x, eager); }},
        {c, [&] { kstream::rms_norm(exec, kstream::along{1}, x, w, 1e-5, eager); }},
        {d, [&] { kstream::layer_norm(exec, kstream::along{1}, x, w, w, 1e-5, eager); }},
        {e, [&] { kstream::transform_rows(exec, kstream::along{1}, eager, kstream::Moments{}, centered, x); }}};
    for (const auto& [recorded, eager_call] : pairs) {
      eager_call();
      Kokkos::fence();
      const auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), recorded);
      const auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), eager);
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          ASSERT_TRUE(same_bits(hr(i, j), he(i, j))) << round << ' ' << i << ' ' << j;
    }
    const auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), e);
    const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    double mean = 0;
    for (std::int64_t j = 0; j < n; ++j) mean += double(hx(5, j)) / double(n);
    EXPECT_NEAR(double(he(5, 0)), double(hx(5, 0)) - mean, 1e-5);
  }
}

}  // namespace
}  // namespace kstream::test

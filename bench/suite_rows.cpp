// The suite's row operations (kstream/rows.hpp): softmax over the rows of M x N views on the Triton tutorial's
// sweep (M = 4096, N = 256 to 12672) plus N = 32768 and 131072, softmax along dimension 0 of a square view and over
// the rows of a transposed (LayoutLeft) input, rms_norm on the same sweep and N = 4095, and layer_norm at N = 1024,
// 4095, 4096 and 8192; float and bf16 (where the build has a 16-bit bf16). M shrinks where M x N would pass the
// suite's largest n (and 2^29 elements on a device, 2^26 on a host). Bytes are one read of x and one write of out.
//
// Names: op/variant/type/backend/rows-<case>/n, n = M x N. Variants: rows (kstream's call), copy
// (kstream::transform's copy of the same bytes: the bandwidth a row operation is held to), graph (the naive graph
// of a correct unfused program: a row max, out = exp(x - max), a row sum of out, out /= sum; four kernels, a team
// per row for the reductions), team (naive Kokkos with a team per row: max, sum of exponentials and the write in
// three nested loops of one kernel), exp_floor (hosts: the rows call itself on rows that stay in cache, as many
// as M: its exponentials' bound, where they and not memory limit a host). Each row is validated after
// its timed calls against the team row's output.
#include <algorithm>
#include <cmath>
#include <kstream/kstream.hpp>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "suite_rank_n.hpp"  // nd::time_nd

namespace kstream::bench {
namespace rows {  // (named: CUDA's extended lambdas may not live in an unnamed namespace)

enum class RowOp { softmax, rms_norm, layer_norm };

struct RowsCase {
  std::string name;
  RowOp op;
  std::int64_t m, n;
  bool transposed = false;  // x LayoutLeft (its rows strided), out LayoutRight
  bool columns = false;     // along dimension 0
};

template <class T, class Space>
using Matrix = Kokkos::View<T**, Kokkos::LayoutStride, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, class Space>
Matrix<T, Space> matrix(T* data, std::int64_t m, std::int64_t n, bool left) {
  const std::size_t sm = std::size_t(m), sn = std::size_t(n);
  return Matrix<T, Space>(data, left ? Kokkos::LayoutStride(sm, 1, sn, sm) : Kokkos::LayoutStride(sm, sn, sn, 1));
}

/// The naive peers' kernels, a team per row of x (rows of out alike): the row's max, then its sum of
/// exp(x - max) (team), or those in separate kernels (graph).
template <class T, class Exec>
struct TeamSoftmax {
  using Space = typename Exec::memory_space;
  using member = typename Kokkos::TeamPolicy<Exec>::member_type;
  Matrix<const T, Space> x;
  Matrix<T, Space> out;
  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const std::int64_t i = team.league_rank(), n = std::int64_t(x.extent(1));
    float max = -Kokkos::Experimental::infinity<float>::value, sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n), [&](std::int64_t j, float& m) { m = Kokkos::fmax(m, to_float(x(i, j))); },
        Kokkos::Max<float>(max));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](std::int64_t j, float& s) { s += Kokkos::exp(to_float(x(i, j)) - max); }, sum);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](std::int64_t j) {
      out(i, j) = from_float<T>(Kokkos::exp(to_float(x(i, j)) - max) / sum);
    });
  }
};
/// graph: a row's max (into stats(i, 0)) or sum of out (into stats(i, 1)).
template <class T, class Exec>
struct RowReduce {
  using Space = typename Exec::memory_space;
  Matrix<const T, Space> v;
  Kokkos::View<float**, Space> stats;
  int which;
  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Exec>::member_type& team) const {
    const std::int64_t i = team.league_rank(), n = std::int64_t(v.extent(1));
    float r = 0;
    if (which == 0) {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, n), [&](std::int64_t j, float& m) { m = Kokkos::fmax(m, to_float(v(i, j))); },
          Kokkos::Max<float>(r));
    } else {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, n), [&](std::int64_t j, float& s) { s += to_float(v(i, j)); }, r);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&] { stats(i, which) = r; });
  }
};
/// graph: out = exp(x - max) (which 0) or out /= sum (which 1), element by element.
template <class T, class Exec>
struct RowMap {
  using Space = typename Exec::memory_space;
  Matrix<const T, Space> x;
  Matrix<T, Space> out;
  Kokkos::View<float**, Space> stats;
  int which;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    const std::int64_t n = std::int64_t(x.extent(1)), i = k / n, j = k % n;
    out(i, j) = which == 0 ? from_float<T>(Kokkos::exp(to_float(x(i, j)) - stats(i, 0)))
                           : from_float<T>(to_float(out(i, j)) / stats(i, 1));
  }
};
/// Elements of `got` off the team row's softmax by more than 2 of T's ulps (relative), or the norms' (finite).
template <class T, class Space>
std::string compare(const Matrix<T, Space>& got, const Matrix<T, Space>& want) {
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), want);
  const double tolerance = sizeof(T) == 2 ? 1.6e-2 : 1e-5;
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < a.extent(0); ++i)
    for (std::size_t j = 0; j < a.extent(1); ++j) {
      const double u = to_float(a(i, j)), v = to_float(b(i, j));
      wrong += !(std::fabs(u - v) <= tolerance * std::max(std::fabs(v), 1e-6));
    }
  return wrong == 0 ? "" : std::to_string(wrong) + " elements differ from the team row's";
}

template <class Exec, class T>
void register_case(const std::string& type_name, const RowsCase& c, std::int64_t capacity, double min_time) {
  using Space = typename Exec::memory_space;
  const std::int64_t total = c.m * c.n;
  const auto x_of = [c, capacity] {
    return matrix<const T, Space>(storage_for<Exec, T>(Extents{capacity, 0}).x.data(), c.m, c.n, c.transposed);
  };
  const auto out_of = [c, capacity](bool other) {
    auto& s = storage_for<Exec, T>(Extents{capacity, 0});
    return matrix<T, Space>(other ? s.z.data() : s.out.data(), c.m, c.n, false);
  };
  auto weight = std::make_shared<Kokkos::View<T*, Space>>("bench_rows_weight", c.columns ? c.m : c.n);
  Kokkos::deep_copy(*weight, from_float<T>(1.5f));
  auto stats = std::make_shared<Kokkos::View<float**, Space>>("bench_rows_stats", c.m, 2);
  const kstream::along dims{c.columns ? 0 : 1};
  const char* op_name = c.op == RowOp::softmax ? "softmax" : c.op == RowOp::rms_norm ? "rms_norm" : "layer_norm";
  const auto add_row = [&](const std::string& variant, auto call, auto check, std::int64_t n = 0) {
    const std::string name = std::string(op_name) + "/" + variant + "/" + type_name + "/" + Exec::name() + "/rows-" +
                             c.name + "/" + std::to_string(total);
    const std::int64_t elements = n > 0 ? n : total;
    benchmark::RegisterBenchmark(name.c_str(),
                                 [=](benchmark::State& state) {
                                   nd::time_nd<Exec>(state, elements, 2, sizeof(T), [&] { call(); }, check);
                                 })
        ->UseManualTime()
        ->MinTime(min_time)
        ->Unit(benchmark::kMicrosecond);
  };
  const auto team = [=](bool other) {
    Kokkos::parallel_for("kstream::bench::rows_team", Kokkos::TeamPolicy<Exec>(Exec(), int(c.m), Kokkos::AUTO),
                         TeamSoftmax<T, Exec>{x_of(), out_of(other)});
  };
  const auto nothing = [] { return std::string(); };
  const auto rows_call = [=] {
    const Exec exec;
    if (c.op == RowOp::softmax) return kstream::softmax(exec, dims, x_of(), out_of(false));
    if (c.op == RowOp::rms_norm) return kstream::rms_norm(exec, dims, x_of(), *weight, 1e-5, out_of(false));
    kstream::layer_norm(exec, dims, x_of(), *weight, *weight, 1e-5, out_of(false));
  };
  const bool plain = c.op == RowOp::softmax && !c.columns;  // the naive peers' shape: softmax over rows
  add_row("rows", rows_call, [=] {
    if (!plain) return std::string();
    team(true);
    return compare(out_of(false), out_of(true));
  });
  add_row("copy", [=] { kstream::transform(Exec(), out_of(false), Same<T>{}, x_of()); }, nothing);
  if (!plain) return;
  add_row("team", [=] { team(false); }, nothing);
  add_row(
      "graph",
      [=] {
        const Exec exec;
        const auto x = x_of();
        const auto out = out_of(false);
        const Kokkos::TeamPolicy<Exec> per_row(exec, int(c.m), Kokkos::AUTO);
        const Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> each(exec, 0, total);
        Kokkos::parallel_for("kstream::bench::rows_graph_max", per_row, RowReduce<T, Exec>{x, *stats, 0});
        Kokkos::parallel_for("kstream::bench::rows_graph_exp", each, RowMap<T, Exec>{x, out, *stats, 0});
        Kokkos::parallel_for("kstream::bench::rows_graph_sum", per_row, RowReduce<T, Exec>{out, *stats, 1});
        Kokkos::parallel_for("kstream::bench::rows_graph_divide", each, RowMap<T, Exec>{x, out, *stats, 1});
      },
      [=] {
        team(true);
        return compare(out_of(false), out_of(true));
      });
  if constexpr (!is_device_backend<Exec>) {
    // The same call on rows in cache (about 128 KiB of x and out a thread, a row a thread at least), as many times
    // as covers M rows.
    const std::int64_t threads = Exec().concurrency();
    const std::int64_t cached = std::min(c.m, std::max(threads, 16384 * threads / c.n));
    add_row(
        "exp_floor",
        [=] {
          auto& s = storage_for<Exec, T>(Extents{capacity, 0});
          const auto x = matrix<const T, Space>(s.x.data(), cached, c.n, false);
          const auto out = matrix<T, Space>(s.out.data(), cached, c.n, false);
          for (std::int64_t done = 0; done < c.m; done += cached) kstream::softmax(Exec(), dims, x, out);
        },
        nothing);
  }
}

}  // namespace rows

template <class Exec>
void register_rows(std::int64_t max_n, double min_time) {
  using rows::RowOp;
  std::vector<rows::RowsCase> list;
  max_n = std::min<std::int64_t>(max_n, std::int64_t(1) << (is_device_backend<Exec> ? 29 : 26));  // 2 or 0.25 GiB
  const auto fit = [&](std::int64_t m, std::int64_t n) { return std::max<std::int64_t>(1, std::min(m, max_n / n)); };
  const auto named = [](const char* prefix, std::int64_t n) { return std::string(prefix).append(std::to_string(n)); };
  const std::int64_t sweep[] = {256, 512, 1024, 2048, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 12672, 32768, 131072};
  for (const RowOp op : {RowOp::softmax, RowOp::rms_norm})
    for (const std::int64_t n : sweep) list.push_back({named("n", n), op, fit(4096, n), n});
  std::int64_t side = 8192;
  while (side * side > max_n) side /= 2;
  list.push_back({named("dim0-", side), RowOp::softmax, side, side, false, true});
  list.push_back({"transposed-n4096", RowOp::softmax, fit(4096, 4096), 4096, true});
  list.push_back({"n4095", RowOp::rms_norm, fit(4096, 4095), 4095});
  for (const std::int64_t n : {1024, 4095, 4096, 8192}) list.push_back({named("n", n), RowOp::layer_norm, fit(4096, n), n});
  std::int64_t capacity = 0;
  for (const auto& c : list) capacity = std::max(capacity, c.m * c.n);
  for (const auto& c : list) {
    rows::register_case<Exec, float>("float", c, capacity, min_time);
    if constexpr (is_bhalf_v<Kokkos::Experimental::bhalf_t>)
      rows::register_case<Exec, Kokkos::Experimental::bhalf_t>("bf16", c, capacity, min_time);
  }
}

#define KSTREAM_SUITE_ROWS(Exec) template void register_rows<Exec>(std::int64_t, double);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_SUITE_ROWS)
#undef KSTREAM_SUITE_ROWS

}  // namespace kstream::bench

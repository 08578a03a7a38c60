// The suite's reductions along dimensions (kstream::along): multivectors of n rows and k columns (k = 1 to 1024) in
// both layouts (a dot, a 2-norm and a sum per column, a sum per row), a rank-3 field summed along each axis, and a
// rank-4 interior summed along its two middle axes. Bytes are the inputs' elements read once.
//
// Names: op/variant/type/backend/along-<case>/n, n the input's elements. Variants: along (kstream's call), full
// (kstream's full reduction of the same bytes: the bandwidth an along call is held to), team (what a Kokkos user
// writes: a TeamPolicy with a team per output and a nested TeamThreadRange parallel_reduce), omp (hosts, the
// multivectors: an `omp parallel for` over the outputs where they are rows of contiguous elements, else over the
// rows with an array reduction), kokkosblas (Kokkos Kernels' multivector dot, nrm2 and sum, where the build has
// it; peers_kokkos_kernels.cpp) and cub (CUDA: cub::DeviceSegmentedReduce::Sum where the segments are contiguous).
// Each row is validated after its timed calls against the team row's values.
#include <algorithm>
#include <array>
#include <cmath>
#include <kstream/kstream.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.hpp"
#include "suite_rank_n.hpp"  // nd::with_rank, nd::NdView, nd::packed

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_segmented_reduce.cuh>
#endif

namespace kstream::bench {
namespace along {  // (named: CUDA's extended lambdas may not live in an unnamed namespace)

using nd::packed;
using nd::with_rank;
template <class T, int R, class Space>
using View = nd::NdView<T, R, Space>;

/// What a row computes from each output's elements.
enum class Reduce { sum, dot, nrm2 };

/// One case: the input's rank (2 to 4), extents and strides (an offset into the storage), the reduced dimensions.
struct AlongCase {
  std::string name;
  int rank = 2;
  nd::Extents6 extents{}, strides{};
  std::int64_t offset = 0;
  std::vector<int> dims;

  std::int64_t size() const {
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= extents[d];
    return n;
  }
  std::int64_t outputs() const {
    std::int64_t o = 1;
    for (int d = 0; d < rank; ++d)
      if (!reduced(d)) o *= extents[d];
    return o;
  }
  bool reduced(int d) const { return std::find(dims.begin(), dims.end(), d) != dims.end(); }
  std::int64_t capacity() const {
    std::int64_t last = offset;
    for (int d = 0; d < rank; ++d) last += (extents[d] - 1) * strides[d];
    return last + 1;
  }
};

/// The cases of about 2^bits elements.
inline std::vector<AlongCase> cases_of(int bits) {
  std::vector<AlongCase> list;
  const std::int64_t total = std::int64_t(1) << bits;
  for (const bool right : {false, true})
    for (const std::int64_t k : {1, 2, 4, 8, 16, 64, 1024}) {
      const nd::Extents6 e{total / k, k};
      const std::string name = std::string("mv-") + (right ? "right" : "left") + "-k" + std::to_string(k);
      list.push_back({name + "-columns", 2, e, packed(e, 2, right), 0, {0}});
      list.push_back({name + "-rows", 2, e, packed(e, 2, right), 0, {1}});
    }
  std::int64_t side = 1;  // a cube of about 2^bits
  while ((side * 2) * (side * 2) * (side * 2) <= total) side *= 2;
  const nd::Extents6 cube{side, side, side};
  for (int axis = 0; axis < 3; ++axis)
    list.push_back({"field3-axis" + std::to_string(axis), 3, cube, packed(cube, 3, true), 0, {axis}});
  std::int64_t edge = 2;  // the interior of a rank-4 field of about 2^bits
  while ((edge + 1) * (edge + 1) * (edge + 1) * (edge + 1) <= total) ++edge;
  const nd::Extents6 parent{edge, edge, edge, edge};
  AlongCase interior{"interior4-axes12", 4, {edge - 2, edge - 2, edge - 2, edge - 2}, packed(parent, 4, true), 0,
                     {1, 2}};
  for (int d = 0; d < 4; ++d) interior.offset += interior.strides[d];
  list.push_back(interior);
  return list;
}

template <class Exec, class T, int R>
View<T, R, typename Exec::memory_space> view_of(T* data, const AlongCase& c) {
  Kokkos::LayoutStride layout;
  for (int d = 0; d < R; ++d) {
    layout.dimension[d] = std::size_t(c.extents[d]);
    layout.stride[d] = std::size_t(c.strides[d]);
  }
  return View<T, R, typename Exec::memory_space>(data + c.offset, layout);
}

/// The element's value as the row reduces it.
template <class Acc, class T>
KOKKOS_INLINE_FUNCTION Acc term(Reduce what, T x, T y) {
  return what == Reduce::dot ? Acc(x) * Acc(y) : what == Reduce::nrm2 ? Acc(x) * Acc(x) : Acc(x);
}

/// The naive peer: a team per output (flat over the kept dimensions, the last fastest), its threads over the
/// output's elements (flat over the reduced dimensions).
template <class T, int R, class Exec>
struct TeamPerOutput {
  using Acc = kstream::accumulator_t<T>;
  using Space = typename Exec::memory_space;
  Reduce what;
  View<const T, R, Space> x, y;
  Kokkos::View<Acc*, Space> result;
  std::int64_t extents[R];
  bool reduced[R];
  std::int64_t length;

  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Exec>::member_type& team) const {
    std::int64_t kept[R] = {};
    std::int64_t o = team.league_rank();
    for (int d = R - 1; d >= 0; --d)
      if (!reduced[d]) {
        kept[d] = o % extents[d];
        o /= extents[d];
      }
    Acc value = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, length),
        [&](std::int64_t j, Acc& sum) {
          std::int64_t idx[R];
          for (int d = R - 1; d >= 0; --d) {
            if (reduced[d]) {
              idx[d] = j % extents[d];
              j /= extents[d];
            } else {
              idx[d] = kept[d];
            }
          }
          sum += term<Acc>(what, element(x, idx), element(y, idx));
        },
        value);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      result(team.league_rank()) = what == Reduce::nrm2 ? Kokkos::sqrt(value) : value;
    });
  }
  static KOKKOS_INLINE_FUNCTION T element(const View<const T, R, Space>& v, const std::int64_t (&i)[R]) {
    if constexpr (R == 2) return v(i[0], i[1]);
    if constexpr (R == 3) return v(i[0], i[1], i[2]);
    if constexpr (R == 4) return v(i[0], i[1], i[2], i[3]);
  }
};

/// Outputs of `got` that differ from `expected` by more than `tolerance` relative (kstream: roundings of the
/// accumulator only; peers that accumulate floats in float: more).
template <class Acc, class Space>
std::string compare(const Kokkos::View<Acc*, Space>& got, const Kokkos::View<Acc*, Space>& expected, double tolerance) {
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), expected);
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < a.extent(0); ++i)
    wrong += !(std::fabs(double(a(i)) - double(b(i))) <= tolerance * std::max(1.0, std::fabs(double(b(i)))));
  return wrong == 0 ? "" : std::to_string(wrong) + " outputs differ from the team row's";
}

#if defined(KOKKOS_ENABLE_OPENMP)
/// The OpenMP peer on a rank-2 view: a loop per output where each output's elements are contiguous and the outputs
/// fill the threads (or are too many for an array reduction), else the rows of elements in parallel into an array
/// reduction over the outputs.
template <class T, class X, class Acc>
void omp_call(Reduce what, const X& x, const X& y, const Kokkos::View<Acc*, Kokkos::HostSpace>& out, bool along_rows) {
  const std::int64_t outputs = std::int64_t(x.extent(along_rows ? 0 : 1)), length = std::int64_t(x.extent(along_rows ? 1 : 0));
  const std::int64_t output_stride = std::int64_t(x.stride(along_rows ? 0 : 1));
  const std::int64_t element_stride = std::int64_t(x.stride(along_rows ? 1 : 0));
  const T* __restrict xp = x.data();
  const T* __restrict yp = y.data();
  Acc* __restrict o = out.data();
  // (an array reduction keeps a copy of every output per thread: for a few thousand outputs at most)
  if ((element_stride == 1 && outputs >= omp_get_max_threads()) || outputs > 4096) {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < outputs; ++i) {
      const T* __restrict a = xp + i * output_stride;
      const T* __restrict b = yp + i * output_stride;
      Acc sum = 0;
      for (std::int64_t j = 0; j < length; ++j) sum += term<Acc>(what, a[j * element_stride], b[j * element_stride]);
      o[i] = what == Reduce::nrm2 ? std::sqrt(sum) : sum;
    }
    return;
  }
  std::vector<Acc> sums(std::size_t(outputs), Acc(0));
  Acc* __restrict s = sums.data();
#pragma omp parallel for schedule(static) reduction(+ : s[:outputs])
  for (std::int64_t j = 0; j < length; ++j) {
    const T* __restrict a = xp + j * element_stride;
    const T* __restrict b = yp + j * element_stride;
    for (std::int64_t i = 0; i < outputs; ++i) s[i] += term<Acc>(what, a[i * output_stride], b[i * output_stride]);
  }
  for (std::int64_t i = 0; i < outputs; ++i) o[i] = what == Reduce::nrm2 ? std::sqrt(s[i]) : s[i];
}
#endif

#if defined(KOKKOS_ENABLE_CUDA)
/// Element i * by: a segment's first element.
struct Scaled {
  std::int64_t by;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * by; }
};
/// cub's segmented sum over `segments` contiguous segments of `length` elements from x, into out.
template <class T, class Acc>
void cub_sums(const T* x, const Kokkos::View<Acc*, Kokkos::CudaSpace>& out, std::int64_t segments,
              std::int64_t length) {
  static void* temp = nullptr;  // grown as needed, kept for the process (a benchmark's lifetime)
  static std::size_t temp_bytes = 0;
  const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), Scaled{length});
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  std::size_t need = 0;
  cub::DeviceSegmentedReduce::Sum(nullptr, need, x, out.data(), segments, offsets, offsets + 1, stream);
  if (need > temp_bytes) {
    if (temp) cudaFree(temp);
    cudaMalloc(&temp, need);
    temp_bytes = need;
  }
  cub::DeviceSegmentedReduce::Sum(temp, need, x, out.data(), segments, offsets, offsets + 1, stream);
}
#endif

/// The result as a view of the input's rank, extent 1 on the reduced dimensions (keep-dims), over `data`: its flat
/// order is the team row's.
template <class Acc, int R, class Space>
auto kept_view(Acc* data, const AlongCase& c) {
  using Result = Kokkos::View<typename with_rank<Acc, R>::type, Kokkos::LayoutRight, Space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return [&]<std::size_t... D>(std::index_sequence<D...>) {
    return Result(data, (c.reduced(int(D)) ? std::size_t(1) : std::size_t(c.extents[D]))...);
  }(std::make_index_sequence<R>{});
}

template <class Exec, class T, int R>
void register_case(const std::string& type_name, const AlongCase& c, std::int64_t capacity, double min_time) {
  using Space = typename Exec::memory_space;
  using Acc = kstream::accumulator_t<T>;
  const std::int64_t n = c.size(), outputs = c.outputs(), length = n / std::max<std::int64_t>(outputs, 1);
  const auto x_of = [c, capacity] {
    return view_of<Exec, const T, R>(storage_for<Exec, T>(Extents{capacity, 0}).x.data(), c);
  };
  const auto y_of = [c, capacity] {
    return view_of<Exec, const T, R>(storage_for<Exec, T>(Extents{capacity, 0}).y.data(), c);
  };
  auto reference = std::make_shared<Kokkos::View<Acc*, Space>>("bench_along_reference", outputs);
  auto result = std::make_shared<Kokkos::View<Acc*, Space>>("bench_along_result", outputs);
  auto full = std::make_shared<Kokkos::View<Acc, Space>>("bench_along_full");
  const std::vector<int> dims = c.dims;
  const auto team = [=](Reduce what, const Kokkos::View<Acc*, Space>& into) {
    TeamPerOutput<T, R, Exec> f{what, x_of(), y_of(), into, {}, {}, length};
    for (int d = 0; d < R; ++d) {
      f.extents[d] = c.extents[d];
      f.reduced[d] = c.reduced(d);
    }
    Kokkos::parallel_for("kstream::bench::along_team", Kokkos::TeamPolicy<Exec>(int(outputs), Kokkos::AUTO), f);
  };
  const auto along_call = [=](Reduce what) {
    const Exec exec;
    const kstream::along along_dims(dims);
    const auto out = kept_view<Acc, R, Space>(result->data(), c);
    switch (what) {
      case Reduce::dot:
        return kstream::dot(exec, along_dims, x_of(), y_of(), out);
      case Reduce::nrm2:
        return kstream::nrm2(exec, along_dims, x_of(), out);
      case Reduce::sum:
        return kstream::transform_reduce(exec, along_dims, out, kstream::Sum{}, Same<T>{}, x_of());
    }
  };
  // The full reduction of the same bytes: the input's elements as one contiguous view.
  const auto full_call = [=](Reduce what) {
    const Exec exec;
    auto& s = storage_for<Exec, T>(Extents{capacity, 0});
    const Vec<Exec, const T> x(s.x.data() + c.offset, n), y(s.y.data() + c.offset, n);
    if (what == Reduce::dot) return kstream::dot(exec, x, y, *full);
    if (what == Reduce::nrm2) return kstream::transform_reduce(exec, *full, kstream::Sum{}, Square{}, x);
    kstream::transform_reduce(exec, *full, kstream::Sum{}, Same<T>{}, x);
  };
  const auto add_row = [&](Reduce what, const std::string& variant, auto call, auto check) {
    const char* op = what == Reduce::dot ? "along_dot" : what == Reduce::nrm2 ? "along_nrm2" : "along_sum";
    const std::string name = std::string(op) + "/" + variant + "/" + type_name + "/" + Exec::name() + "/along-" +
                             c.name + "/" + std::to_string(n);
    const int arrays = what == Reduce::dot ? 2 : 1;
    benchmark::RegisterBenchmark(name.c_str(),
                                 [=](benchmark::State& state) {
                                   nd::time_nd<Exec>(
                                       state, n, arrays, sizeof(T), [&] { call(); }, check);
                                 })
        ->UseManualTime()
        ->MinTime(min_time)
        ->Unit(benchmark::kMicrosecond);
  };
  // kstream's rows match the team's to the accumulator's roundings; peers that accumulate floats in float less.
  const auto against_team = [=](Reduce what, std::shared_ptr<Kokkos::View<Acc*, Space>> got, double tolerance) {
    return [=] {
      team(what, *reference);
      return compare(*got, *reference, tolerance);
    };
  };
  // (Kokkos Kernels' float dot of a column of 2^24 elements, accumulated in float, is off by more than 1e-3.)
  [[maybe_unused]] const double peer_tolerance = std::is_same_v<T, float> ? 1e-2 : 1e-9;
  const auto nothing = [] { return std::string(); };
  const bool columns = R == 2 && c.dims.size() == 1 && c.dims[0] == 0;
  for (const Reduce what : {Reduce::sum, Reduce::dot, Reduce::nrm2}) {
    if (what != Reduce::sum && !columns) continue;  // dots and norms: the multivectors' columns
    add_row(what, "along", [=] { along_call(what); }, against_team(what, result, 1e-9));
    add_row(what, "full", [=] { full_call(what); }, nothing);
    auto mine = std::make_shared<Kokkos::View<Acc*, Space>>("bench_along_team", outputs);
    add_row(what, "team", [=] { team(what, *mine); }, nothing);
    if constexpr (R == 2) {
      auto other = std::make_shared<Kokkos::View<Acc*, Space>>("bench_along_peer", outputs);
      const bool right = c.strides[1] == 1, along_rows = c.dims[0] == 1;
#if defined(KOKKOS_ENABLE_OPENMP)
      if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>)
        add_row(what, "omp", [=] { omp_call<T>(what, x_of(), y_of(), *other, along_rows); },
                against_team(what, other, peer_tolerance));
#endif
#if defined(KSTREAM_BENCH_KOKKOS_KERNELS)
      if (columns)
        add_row(what, "kokkosblas",
                [=] { kokkos_kernels_columns<Exec, T>(int(what), StridedMatrix<Exec, const T>(x_of()),
                                                      StridedMatrix<Exec, const T>(y_of()), *other); },
                against_team(what, other, peer_tolerance));
#endif
#if defined(KOKKOS_ENABLE_CUDA)
      if constexpr (std::is_same_v<Exec, Kokkos::Cuda>)
        if (what == Reduce::sum && right == along_rows)  // contiguous segments
          add_row(what, "cub", [=] { cub_sums<T>(x_of().data(), *other, outputs, length); },
                  against_team(what, other, peer_tolerance));
#endif
      static_cast<void>(right);
      static_cast<void>(along_rows);
    }
  }
}

}  // namespace along

template <class Exec>
void register_along(std::int64_t max_n, double min_time) {
  int bits = 24;
  while (bits > 12 && (std::int64_t(1) << bits) > max_n) --bits;
  const auto list = along::cases_of(bits);
  std::int64_t capacity = 0;
  for (const auto& c : list) capacity = std::max(capacity, c.capacity());
  for (const auto& c : list) {
    for (const bool is_double : {false, true}) {
      const auto run = [&](auto type) {
        using T = decltype(type);
        const std::string name = is_double ? "double" : "float";
        if (c.rank == 2) along::register_case<Exec, T, 2>(name, c, capacity, min_time);
        if (c.rank == 3) along::register_case<Exec, T, 3>(name, c, capacity, min_time);
        if (c.rank == 4) along::register_case<Exec, T, 4>(name, c, capacity, min_time);
      };
      if (is_double) {
        run(double{});
      } else {
        run(float{});
      }
    }
  }
}

#define KSTREAM_SUITE_ALONG(Exec) template void register_along<Exec>(std::int64_t, double);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_SUITE_ALONG)
#undef KSTREAM_SUITE_ALONG

}  // namespace kstream::bench

// The suite's views of several dimensions, in their own file (a parallel CUDA build compiles it beside the others):
// Kokkos' MDRange stream set (copy, add, triad, fma on ranks 1 to 6 of one total size, LayoutRight and LayoutLeft),
// interiors of halo'd rank-2 and rank-3 fields (odd inner extents among them), a padded view, a transposed operand
// (out = x^T + y, and its copy out = x^T) and mismatched layouts; dot and the fused update-and-norm on rank-3
// interiors.
//
// Names: op/variant/type/backend/nd-<case>/n, n the case's elements. Variants: tiled (kstream on the case's views),
// flat (kstream's rank-1 call on n contiguous elements at the start of the same allocations: the rank-1 speed on
// the same bytes), mdrange (an MDRangePolicy<Rank<r>> functor over the multi-index, Kokkos' default iteration; a
// RangePolicy at rank 1), mdrange_matched (iteration matched to the output's layout), cuda_rows (a plain CUDA
// kernel over rows, one row per block row, 16-byte accesses where every row start allows), cuda_transpose (the
// plain shared-memory CUDA transpose, on the transpose case), kokkos_deep_copy (copy rows: Kokkos::deep_copy on
// the same views) and omp_collapse (an `omp parallel for collapse(2)` loop nest matched to the output's layout,
// the innermost dimension a plain loop). Copy rows are kstream::copy.
// Every row is validated after its timed calls by multi-index against the operation on the views' own values.
// The cases of each rank are compiled in files of their own (suite_rank_n_r*.cpp), so a parallel build spreads
// them; suite_rank_n.cpp registers them.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <kstream/kstream.hpp>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace kstream::bench {
namespace nd {  // (named: CUDA's extended lambdas may not live in an unnamed namespace)

constexpr int max_suite_rank = 6;
using Extents6 = std::array<std::int64_t, max_suite_rank>;

/// Where one operand's elements lie in its storage array.
struct Mapping {
  std::int64_t offset = 0;
  Extents6 strides{};
};

/// One case: the views' rank and extents and each operand's mapping (out, x, y, z).
struct NdCase {
  std::string name;
  int rank = 1;
  Extents6 extents{};
  std::array<Mapping, 4> maps{};
  bool right = true;  ///< the output's last index is its innermost (else its first)

  std::int64_t size() const {
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= extents[d];
    return n;
  }
  /// Elements a storage array needs for every operand.
  std::int64_t capacity() const {
    std::int64_t most = size();
    for (const Mapping& m : maps) {
      std::int64_t last = m.offset;
      for (int d = 0; d < rank; ++d) last += (extents[d] - 1) * m.strides[d];
      most = std::max(most, last + 1);
    }
    return most;
  }
};

inline Extents6 packed(const Extents6& parent, int rank, bool right) {
  Extents6 strides{};
  std::int64_t next = 1;
  for (int j = 0; j < rank; ++j) {
    const int d = right ? rank - 1 - j : j;
    strides[d] = next;
    next *= parent[d];
  }
  return strides;
}

/// A whole view of every operand in one layout.
inline NdCase whole(const std::string& name, int rank, const Extents6& extents, bool right) {
  NdCase c{name, rank, extents, {}, right};
  for (Mapping& m : c.maps) m.strides = packed(extents, rank, right);
  return c;
}

/// The interior (1 .. e - 2 in every dimension) of fields of `parent` extents.
inline NdCase interior(const std::string& name, int rank, const Extents6& parent, bool right) {
  NdCase c{name, rank, parent, {}, right};
  for (int d = 0; d < rank; ++d) c.extents[d] = parent[d] - 2;
  for (Mapping& m : c.maps) {
    m.strides = packed(parent, rank, right);
    m.offset = std::accumulate(m.strides.begin(), m.strides.begin() + rank, std::int64_t(0));
  }
  return c;
}

/// Extents of rank r whose product is 2^bits, as equal as powers of two allow (the larger ones last).
inline Extents6 split(int bits, int rank) {
  Extents6 e{};
  for (int d = 0; d < rank; ++d) e[d] = std::int64_t(1) << (bits / rank + (d >= rank - bits % rank ? 1 : 0));
  return e;
}

/// The cases at total size 2^bits (interiors: fields of about that many elements).
inline std::vector<NdCase> cases_of(int bits) {
  std::vector<NdCase> list;
  for (int rank = 1; rank <= max_suite_rank; ++rank)
    for (const bool right : {true, false}) {
      if (rank == 1 && !right) continue;  // one layout of rank 1
      list.push_back(
          whole("rank" + std::to_string(rank) + "-" + (right ? "right" : "left"), rank, split(bits, rank), right));
    }
  for (const bool right : {true, false}) {
    const std::string layout = right ? "right" : "left";
    list.push_back(interior("interior3-" + layout, 3, split(bits, 3), right));
    list.push_back(interior("interior2-" + layout, 2, split(bits, 2), right));
  }
  // Odd inner extents: interiors of fields whose innermost dimension holds inner + 2 elements.
  for (const std::int64_t inner : {3, 5, 7, 1023}) {
    const std::int64_t outer = std::max<std::int64_t>(3, (std::int64_t(1) << bits) / (inner + 2));
    list.push_back(interior("interior2-right-inner" + std::to_string(inner), 2, {outer, inner + 2}, true));
  }
  // Rows padded to a whole number of 64-byte lines: 2^k - 1 columns in rows of 2^k elements.
  const Extents6 rows = split(bits, 2);
  NdCase padded = whole("padded2-right", 2, {rows[0], rows[1] - 1}, true);
  for (Mapping& m : padded.maps) m.strides = {rows[1], 1};
  list.push_back(padded);
  // out = x^T + y: x stored as the transpose (its first index innermost), out and y LayoutRight.
  NdCase transposed = whole("transposed2", 2, rows, true);
  transposed.maps[1].strides = {1, rows[0]};
  list.push_back(transposed);
  // Mismatched layouts: out and y LayoutRight, x and z LayoutLeft.
  NdCase mixed = whole("mixed3", 3, split(bits, 3), true);
  mixed.maps[1].strides = mixed.maps[3].strides = packed(mixed.extents, 3, false);
  list.push_back(mixed);
  return list;
}

/// Whether every operand moves along the output's innermost dimension with unit stride (rows for the peers).
inline bool has_rows(const NdCase& c) {
  const int inner = c.right ? c.rank - 1 : 0;
  for (const Mapping& m : c.maps)
    if (m.strides[inner] != 1) return false;
  return true;
}

/// T with R pointer levels: T***.
template <class T, int R>
struct with_rank {
  using type = typename with_rank<T*, R - 1>::type;
};
template <class T>
struct with_rank<T, 0> {
  using type = T;
};

template <class T, int R, class Space>
using NdView =
    Kokkos::View<typename with_rank<T, R>::type, Kokkos::LayoutStride, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class Exec, class T, int R>
struct NdOperands {
  std::int64_t n;
  NdView<T, R, typename Exec::memory_space> x, y, z, out;
};

template <class Exec, class T, int R>
NdView<T, R, typename Exec::memory_space> nd_view(const typename Storage<Exec, T>::View& v, const NdCase& c,
                                                  const Mapping& m) {
  Kokkos::LayoutStride layout;
  for (int d = 0; d < R; ++d) {
    layout.dimension[d] = std::size_t(c.extents[d]);
    layout.stride[d] = std::size_t(m.strides[d]);
  }
  return NdView<T, R, typename Exec::memory_space>(v.data() + m.offset, layout);
}

/// Element i's index (the last index fastest), at compile-time rank.
template <int R>
KOKKOS_INLINE_FUNCTION void index_of(std::int64_t i, const std::int64_t (&extents)[R], std::int64_t (&idx)[R]) {
  for (int d = R - 1; d >= 0; --d) {
    idx[d] = i % extents[d];
    i /= extents[d];
  }
}

template <class View, int R, std::size_t... Ds>
KOKKOS_FORCEINLINE_FUNCTION auto& at(const View& v, const std::int64_t (&idx)[R], std::index_sequence<Ds...>) {
  return v(idx[Ds]...);
}

/// The operation of an elementwise row (copy, add, triad, fma), as bench_support's expected_value.
template <class T>
KOKKOS_INLINE_FUNCTION T apply_op(Op op, T x, T y, T z) {
  return expected_value<T>(op, x, y, z);
}

/// Wrong elements of out after op, by multi-index.
template <class Exec, class T, int R>
std::int64_t nd_errors(Op op, const NdOperands<Exec, T, R>& o) {
  std::int64_t extents[R];
  for (int d = 0; d < R; ++d) extents[d] = std::int64_t(o.out.extent(d));
  std::int64_t errors = 0;
  const auto x = o.x, y = o.y, z = o.z, out = o.out;
  Kokkos::parallel_reduce(
      "kstream::bench::validate_nd", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, o.n),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
        std::int64_t idx[R];
        index_of<R>(i, extents, idx);
        constexpr auto seq = std::make_index_sequence<R>{};
        sum += !same_result(at(out, idx, seq), apply_op<T>(op, at(x, idx, seq), at(y, idx, seq), at(z, idx, seq)));
      },
      errors);
  return errors;
}

/// An MDRangePolicy functor of every elementwise row (the operation chosen at run time, uniform over the kernel).
template <class T, int R, class Space>
struct MDStream {
  Op op;
  NdView<T, R, Space> x, y, z, out;
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(I... i) const {
    out(i...) = apply_op<T>(op, x(i...), y(i...), z(i...));
  }
};

/// x . y over a rank-3 MDRangePolicy.
template <class T, class Space>
struct MDDot {
  NdView<T, 3, Space> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j, std::int64_t k,
                                         kstream::accumulator_t<T>& sum) const {
    sum += kstream::accumulator_t<T>(x(i, j, k)) * kstream::accumulator_t<T>(y(i, j, k));
  }
};

template <class Exec, int R, Kokkos::Iterate Order>
using MDPolicy =
    std::conditional_t<Order == Kokkos::Iterate::Default,
                       Kokkos::MDRangePolicy<Exec, Kokkos::Rank<R>, Kokkos::IndexType<std::int64_t>>,
                       Kokkos::MDRangePolicy<Exec, Kokkos::Rank<R, Order, Order>, Kokkos::IndexType<std::int64_t>>>;

template <class Exec, int R, Kokkos::Iterate Order, class View>
MDPolicy<Exec, R, Order> md_policy(const View& v) {
  Kokkos::Array<std::int64_t, R> begin{}, end{};
  for (int d = 0; d < R; ++d) end[d] = std::int64_t(v.extent(d));
  return MDPolicy<Exec, R, Order>(Exec(), begin, end);
}

template <class Exec, class T, int R, Kokkos::Iterate Order>
void md_stream(Op op, const NdOperands<Exec, T, R>& o) {
  using Space = typename Exec::memory_space;
  if constexpr (R == 1) {
    const auto x = o.x, y = o.y, z = o.z, out = o.out;
    Kokkos::parallel_for(
        "kstream::bench::range", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, o.n),
        KOKKOS_LAMBDA(std::int64_t i) { out(i) = apply_op<T>(op, x(i), y(i), z(i)); });
  } else {
    Kokkos::parallel_for("kstream::bench::mdrange", md_policy<Exec, R, Order>(o.out),
                         MDStream<T, R, Space>{op, o.x, o.y, o.z, o.out});
  }
}

/// kstream's call of `op` on any views of one rank.
template <class Exec, class T, class Views>
void kstream_call(Op op, const Views& o) {
  const Exec exec;
  switch (op) {
    case Op::copy:
      return kstream::copy(exec, o.out, o.x);
    case Op::add:
      return kstream::add(exec, o.x, o.y, o.out);
    case Op::triad:
      return kstream::transform(exec, o.out, Triad<T>{}, o.x, o.y);
    case Op::fma:
      return kstream::fma(exec, o.x, o.y, o.z, o.out);
    default:
      return;
  }
}

#if defined(KOKKOS_ENABLE_CUDA)
/// Rows of one case for the plain CUDA kernel: `rows` rows of `length` elements; row r of operand k starts at
/// base[k] + (r % inner_rows) * pitch[k][0] + (r / inner_rows) * pitch[k][1].
template <class T>
struct CudaRows {
  T* out;
  const T *x, *y, *z;
  std::int64_t length, rows, inner_rows;
  std::int64_t pitch[4][2];
  bool packs;  // every row start 16-byte aligned in every operand
};

template <class T>
__global__ void rows_kernel(Op op, CudaRows<T> g) {
  const std::int64_t row = std::int64_t(blockIdx.y) + std::int64_t(gridDim.y) * blockIdx.z;
  if (row >= g.rows) return;
  const std::int64_t r0 = row % g.inner_rows, r1 = row / g.inner_rows;
  std::int64_t start[4];
  for (int k = 0; k < 4; ++k) start[k] = r0 * g.pitch[k][0] + r1 * g.pitch[k][1];
  T* const out = g.out + start[0];
  const T *const x = g.x + start[1], *const y = g.y + start[2], *const z = g.z + start[3];
  constexpr int W = 16 / sizeof(T);
  const std::int64_t first = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * (g.packs ? W : 1);
  if (g.packs && first + W <= g.length) {
    using P = impl::Pack<T, W>;
    const P a = *reinterpret_cast<const P*>(x + first), b = *reinterpret_cast<const P*>(y + first),
            c = *reinterpret_cast<const P*>(z + first);
    P result;
    for (int l = 0; l < W; ++l) result.lane[l] = apply_op<T>(op, a.lane[l], b.lane[l], c.lane[l]);
    *reinterpret_cast<P*>(out + first) = result;
  } else {
    for (std::int64_t i = first; i < g.length && i < first + (g.packs ? W : 1); ++i)
      out[i] = apply_op<T>(op, x[i], y[i], z[i]);
  }
}

/// The peer's rows, or false where the case has none (not every operand along the output's rows, or rank > 3
/// views that do not merge to rows of two levels).
template <class T>
bool cuda_rows_of(const NdCase& c, CudaRows<T>& g) {
  if (!has_rows(c) || c.rank > 3) return false;
  const int inner = c.right ? c.rank - 1 : 0;
  g.length = c.extents[inner];
  g.rows = c.size() / g.length;
  const int mid = c.rank >= 2 ? (c.right ? c.rank - 2 : 1) : -1, top = c.rank == 3 ? (c.right ? 0 : 2) : -1;
  g.inner_rows = mid >= 0 ? c.extents[mid] : 1;
  g.packs = true;
  for (int k = 0; k < 4; ++k) {
    g.pitch[k][0] = mid >= 0 ? c.maps[k].strides[mid] : 0;
    g.pitch[k][1] = top >= 0 ? c.maps[k].strides[top] : 0;
    g.packs = g.packs && (c.maps[k].offset * std::int64_t(sizeof(T))) % 16 == 0 &&
              (g.pitch[k][0] * std::int64_t(sizeof(T))) % 16 == 0 &&
              (g.pitch[k][1] * std::int64_t(sizeof(T))) % 16 == 0;
  }
  return true;
}

/// The plain CUDA transpose as a peer of the transpose case (out = op(x^T, y, z): x stored with its first index
/// innermost, out, y and z with their last): a block of 32 x 8 threads per 32 x 32 tile, x's tile read along its
/// rows into shared memory (padded by one element), out written along its rows.
template <class T>
__global__ void transpose_kernel(Op op, T* out, const T* x, const T* y, const T* z, std::int64_t rows,
                                 std::int64_t cols) {
  __shared__ alignas(T) unsigned char bytes[32 * 33 * sizeof(T)];  // (16-bit types have constructors)
  T(&tile)[32][33] = *reinterpret_cast<T(*)[32][33]>(bytes);
  const std::int64_t r0 = std::int64_t(blockIdx.y) * 32, c0 = std::int64_t(blockIdx.x) * 32;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const std::int64_t r = r0 + threadIdx.x, c = c0 + j;
    if (r < rows && c < cols) tile[j][threadIdx.x] = x[r + c * rows];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) {
    const std::int64_t r = r0 + j, c = c0 + threadIdx.x, at = r * cols + c;
    if (r < rows && c < cols) out[at] = apply_op<T>(op, tile[threadIdx.x][j], y[at], z[at]);
  }
}

/// Whether a case is the transpose the plain kernel serves: rank 2, x's first index innermost, every other
/// operand a whole LayoutRight view.
inline bool plain_transpose(const NdCase& c) {
  if (c.rank != 2 || !c.right) return false;
  for (int k = 0; k < 4; ++k) {
    const Extents6 want = k == 1 ? Extents6{1, c.extents[0]} : Extents6{c.extents[1], 1};
    if (c.maps[k].offset != 0 || c.maps[k].strides[0] != want[0] || c.maps[k].strides[1] != want[1]) return false;
  }
  return true;
}

template <class T>
void launch_cuda_rows(Op op, CudaRows<T> g) {
  constexpr int threads = 256;
  const std::int64_t per_block = threads * (g.packs ? 16 / std::int64_t(sizeof(T)) : 1);
  const dim3 grid(unsigned((g.length + per_block - 1) / per_block), unsigned(std::min<std::int64_t>(g.rows, 65535)),
                  unsigned((g.rows + 65534) / 65535));
  rows_kernel<T><<<grid, threads, 0, Kokkos::Cuda().cuda_stream()>>>(op, g);
}
#endif

#if defined(KOKKOS_ENABLE_OPENMP)
/// `omp parallel for collapse(2)` over the two outermost dimensions of the output's layout, the ones between
/// walked in order, the innermost a plain loop (raw pointers and strides, as a C++ programmer writes it).
template <class T>
void omp_collapse(Op op, const NdCase& c, T* out, const T* x, const T* y, const T* z) {
  int order[max_suite_rank];  // outermost first
  for (int j = 0; j < c.rank; ++j) order[j] = c.right ? j : c.rank - 1 - j;
  std::int64_t e[max_suite_rank] = {}, s[4][max_suite_rank] = {};
  for (int j = 0; j < c.rank; ++j) {
    e[j] = c.extents[order[j]];
    for (int k = 0; k < 4; ++k) s[k][j] = c.maps[k].strides[order[j]];
  }
  out += c.maps[0].offset;
  x += c.maps[1].offset;
  y += c.maps[2].offset;
  z += c.maps[3].offset;
  const int inner = c.rank - 1;
  if (c.rank == 1) {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < e[0]; ++i)
      out[i * s[0][0]] = apply_op<T>(op, x[i * s[1][0]], y[i * s[2][0]], z[i * s[3][0]]);
    return;
  }
  const std::int64_t outer1 = c.rank >= 3 ? e[1] : 1;
  const std::int64_t middle = c.size() / (e[0] * outer1 * e[inner]);  // rows between, walked in order
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t i0 = 0; i0 < e[0]; ++i0) {
    for (std::int64_t i1 = 0; i1 < outer1; ++i1) {
      for (std::int64_t m = 0; m < middle; ++m) {
        std::int64_t off[4];
        for (int k = 0; k < 4; ++k) off[k] = i0 * s[k][0] + (c.rank >= 3 ? i1 * s[k][1] : 0);
        for (std::int64_t rest = m, j = inner - 1; j >= 2; --j) {
          for (int k = 0; k < 4; ++k) off[k] += (rest % e[j]) * s[k][j];
          rest /= e[j];
        }
        T* __restrict o = out + off[0];
        const T* __restrict a = x + off[1], * __restrict b = y + off[2], * __restrict cc = z + off[3];
        const std::int64_t so = s[0][inner], sa = s[1][inner], sb = s[2][inner], sc = s[3][inner];
        for (std::int64_t i = 0; i < e[inner]; ++i) o[i * so] = apply_op<T>(op, a[i * sa], b[i * sb], cc[i * sc]);
      }
    }
  }
}
#endif

/// Calls per timed batch: on a GPU at least 32 (one launch latency in a batch's time stays below 0.1 % at the
/// suite's sizes); on a host one (a call includes its own fork and join).
template <class Exec>
std::int64_t batch_of(std::int64_t n) {
  if constexpr (!is_device_backend<Exec>) return 1;
  return std::clamp<std::int64_t>((std::int64_t(1) << 22) / std::max<std::int64_t>(n, 1), 32, 4096);
}

/// Times `call` in batches (manual time), then validates with `check` ("" when right).
template <class Exec, class Call, class Check>
void time_nd(benchmark::State& state, std::int64_t n, int arrays, std::size_t element_bytes, const Call& call,
             const Check& check) {
  try {
    call();  // warm-up, outside the timed loop
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  Timer<Exec> timer;
  const std::int64_t batch = batch_of<Exec>(n);
  double seconds = 0;
  for (auto _ : state) {
    timer.start();
    for (std::int64_t b = 0; b < batch; ++b) call();
    const double s = timer.stop();
    seconds += s;
    state.SetIterationTime(s);
  }
  const double calls = double(state.iterations()) * double(batch);
  const double bytes = double(arrays) * double(element_bytes) * double(n);
  state.SetBytesProcessed(std::int64_t(bytes * calls));
  state.counters["GB/s"] = seconds > 0 ? bytes * calls / seconds / 1e9 : 0.0;
  state.counters["us_per_call"] = calls > 0 ? 1e6 * seconds / calls : 0.0;
  state.counters["n"] = double(n);
  state.counters["calls_per_iteration"] = double(batch);
  Exec().fence();
  if (const std::string problem = check(); !problem.empty())
    state.SkipWithError(("validation failed: " + problem).c_str());
}

template <class Exec, class T, int R>
void register_case(const std::string& type_name, const NdCase& c, std::int64_t capacity, double min_time) {
  using Space = typename Exec::memory_space;
  using Acc = kstream::accumulator_t<T>;
  const std::int64_t n = c.size();
  const auto operands = [c, capacity] {
    auto& s = storage_for<Exec, T>(Extents{capacity, 0});
    return NdOperands<Exec, T, R>{c.size(), nd_view<Exec, T, R>(s.x, c, c.maps[1]),
                                  nd_view<Exec, T, R>(s.y, c, c.maps[2]), nd_view<Exec, T, R>(s.z, c, c.maps[3]),
                                  nd_view<Exec, T, R>(s.out, c, c.maps[0])};
  };
  const auto flat = [n, capacity] {
    auto& s = storage_for<Exec, T>(Extents{capacity, 0});
    return Operands<Exec, T>{n,
                             Vec<Exec, T>(s.x.data(), n),
                             Vec<Exec, T>(s.y.data(), n),
                             Vec<Exec, T>(s.z.data(), n),
                             Vec<Exec, T>(s.out.data(), n),
                             {},
                             {},
                             {}};
  };
  const auto add_row = [&](Op op, const std::string& variant, auto call, auto check) {
    const std::string name = std::string(op_name(op)) + "/" + variant + "/" + type_name + "/" + Exec::name() + "/nd-" +
                             c.name + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [=](benchmark::State& state) {
                                   time_nd<Exec>(
                                       state, n, arrays_moved(op), sizeof(T), [&] { call(); }, check);
                                 })
        ->UseManualTime()
        ->MinTime(min_time)
        ->Unit(benchmark::kMicrosecond);
  };
  const bool transposed = c.name.rfind("transposed", 0) == 0;
  for (const Op op : {Op::copy, Op::add, Op::triad, Op::fma}) {
    if (transposed && op != Op::add && op != Op::copy) continue;  // the transpose case: out = x^T (+ y)
    const auto nd_check = [=] {
      const std::int64_t wrong = nd_errors<Exec, T, R>(op, operands());
      return wrong == 0 ? std::string() : std::to_string(wrong) + " of " + std::to_string(n) + " elements wrong";
    };
    add_row(
        op, "tiled", [=] { kstream_call<Exec, T>(op, operands()); }, nd_check);
    add_row(
        op, "flat", [=] { kstream_call<Exec, T>(op, flat()); },
        [=] {
          const std::int64_t wrong = count_errors(op, flat());
          return wrong == 0 ? std::string() : std::to_string(wrong) + " elements wrong";
        });
    add_row(
        op, "mdrange", [=] { md_stream<Exec, T, R, Kokkos::Iterate::Default>(op, operands()); }, nd_check);
    if constexpr (R > 1) {
      if (c.right)
        add_row(
            op, "mdrange_matched", [=] { md_stream<Exec, T, R, Kokkos::Iterate::Right>(op, operands()); }, nd_check);
      else
        add_row(
            op, "mdrange_matched", [=] { md_stream<Exec, T, R, Kokkos::Iterate::Left>(op, operands()); }, nd_check);
    }
    if (op == Op::copy)
      add_row(
          op, "kokkos_deep_copy",
          [=] {
            const auto o = operands();
            Kokkos::deep_copy(Exec(), o.out, o.x);
          },
          nd_check);
#if KSTREAM_BENCH_KOKKOS_KERNELS
    if constexpr (R == 2 && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
      if (op == Op::add)
        add_row(
            op, "kokkosblas",
            [=] {
              const auto o = operands();
              kokkos_kernels_update<Exec, T>(o.x, o.y, o.out);
            },
            nd_check);
    }
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      CudaRows<T> g{};
      if (cuda_rows_of(c, g))
        add_row(
            op, "cuda_rows",
            [=] {
              auto& s = storage_for<Exec, T>(Extents{capacity, 0});
              CudaRows<T> at = g;
              at.out = s.out.data() + c.maps[0].offset;
              at.x = s.x.data() + c.maps[1].offset;
              at.y = s.y.data() + c.maps[2].offset;
              at.z = s.z.data() + c.maps[3].offset;
              launch_cuda_rows(op, at);
            },
            nd_check);
      if (plain_transpose(c))
        add_row(
            op, "cuda_transpose",
            [=] {
              auto& s = storage_for<Exec, T>(Extents{capacity, 0});
              const dim3 grid(unsigned((c.extents[1] + 31) / 32), unsigned((c.extents[0] + 31) / 32));
              transpose_kernel<T><<<grid, dim3(32, 8), 0, Kokkos::Cuda().cuda_stream()>>>(
                  op, s.out.data(), s.x.data(), s.y.data(), s.z.data(), c.extents[0], c.extents[1]);
            },
            nd_check);
    }
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) {
      add_row(
          op, "omp_collapse",
          [=] {
            auto& s = storage_for<Exec, T>(Extents{capacity, 0});
            omp_collapse<T>(op, c, s.out.data(), s.x.data(), s.y.data(), s.z.data());
          },
          nd_check);
    }
#endif
  }
  // Reductions on the interiors of rank 3: dot (tiled, flat, MDRange) and the fused update-and-norm (tiled, flat).
  if constexpr (R == 3 && !is_low_precision_v<T>) {
    if (c.name.rfind("interior3", 0) != 0) return;
    auto result = std::make_shared<Kokkos::View<Acc, Space>>("bench_nd_dot");
    const auto exact_check = [=](auto read, std::int64_t count, std::function<double(std::int64_t)> value) {
      return [=] {
        long double sum = 0;
        for (std::int64_t i = 0; i < count; ++i) sum += value(i);
        const double got = read();
        return got == double(sum) ? std::string()
                                  : "got " + std::to_string(got) + ", exact " + std::to_string(double(sum));
      };
    };
    const auto read = [result] {
      Acc v{};
      Kokkos::deep_copy(v, *result);
      return double(v);
    };
    // The operands' values by multi-index, on the host (input_value at each element's position in its storage).
    const auto product_at = [c](std::int64_t i) {
      std::int64_t idx[3];
      const std::int64_t extents[3] = {c.extents[0], c.extents[1], c.extents[2]};
      index_of<3>(i, extents, idx);
      std::int64_t px = c.maps[1].offset, py = c.maps[2].offset;
      for (int d = 0; d < 3; ++d) {
        px += idx[d] * c.maps[1].strides[d];
        py += idx[d] * c.maps[2].strides[d];
      }
      return double(to_float(input_value<T>(0, px))) * double(to_float(input_value<T>(1, py)));
    };
    add_row(
        Op::dot, "tiled", [=] { kstream::dot(Exec(), operands().x, operands().y, *result); },
        exact_check(read, n, product_at));
    add_row(
        Op::dot, "flat", [=] { kstream::dot(Exec(), flat().x, flat().y, *result); },
        exact_check(read, n, [](std::int64_t i) {
          return double(to_float(input_value<T>(0, i))) * double(to_float(input_value<T>(1, i)));
        }));
    add_row(
        Op::dot, "mdrange",
        [=] {
          const auto o = operands();
          Kokkos::parallel_reduce("kstream::bench::mdrange_dot", md_policy<Exec, 3, Kokkos::Iterate::Default>(o.x),
                                  MDDot<T, Space>{o.x, o.y}, *result);
        },
        exact_check(read, n, product_at));
    // r = r - x and ||r||^2, r the output (reset to y before the validated call).
    const auto fused = [result](const auto& o) {
      kstream::transform_reduce(Exec(), o.out, SubtractX<T>{}, *result, kstream::Sum{}, SquareFirst{}, o.out, o.x);
    };
    add_row(
        Op::update_norm, "fused_tiled", [=] { fused(operands()); },
        [=] {
          const auto o = operands();
          Kokkos::deep_copy(o.out, o.y);  // the timed calls kept subtracting: one call from out = y
          fused(o);
          const std::int64_t wrong = nd_errors<Exec, T, R>(Op::update_norm, o);
          return wrong == 0 ? std::string() : std::to_string(wrong) + " elements wrong";
        });
    add_row(
        Op::update_norm, "fused_flat", [=] { fused(flat()); },
        [=] {
          const auto o = flat();
          Kokkos::deep_copy(o.out, o.y);
          fused(o);
          const std::int64_t wrong = count_errors(Op::update_norm, o);
          return wrong == 0 ? std::string() : std::to_string(wrong) + " elements wrong";
        });
  }
}

}  // namespace nd

/// The explicit instantiations of register_case for ranks R of every backend and type (DECL: `extern` or empty).
#define KSTREAM_ND_CASES_OF(DECL, Exec, R)                                                                           \
  DECL template void nd::register_case<Exec, float, R>(const std::string&, const nd::NdCase&, std::int64_t, double); \
  DECL template void nd::register_case<Exec, double, R>(const std::string&, const nd::NdCase&, std::int64_t, double);
// The backends of these rows: the GPU where the build has one (a GPU build's host backends are not what a
// host-only build runs), the host backends otherwise. GPU builds also time bf16 on the cases of ranks 2 and 3
// (layout changes through 16-bit tiles, and whole views beside them).
#if defined(KSTREAM_BENCH_GPU)
#define KSTREAM_ND_RANK(DECL, R) KSTREAM_ND_CASES_OF(DECL, KSTREAM_BENCH_GPU, R)
#define KSTREAM_ND_BF16(DECL, R)                                                             \
  DECL template void nd::register_case<KSTREAM_BENCH_GPU, Kokkos::Experimental::bhalf_t, R>( \
      const std::string&, const nd::NdCase&, std::int64_t, double);
#define KSTREAM_ND_FOR_EACH_BACKEND(M) M(KSTREAM_BENCH_GPU)
#else
#if defined(KOKKOS_ENABLE_OPENMP)
#define KSTREAM_ND_ON_OPENMP(DECL, R) KSTREAM_ND_CASES_OF(DECL, Kokkos::OpenMP, R)
#define KSTREAM_ND_OPENMP(M) M(Kokkos::OpenMP)
#else
#define KSTREAM_ND_ON_OPENMP(DECL, R)
#define KSTREAM_ND_OPENMP(M)
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
#define KSTREAM_ND_ON_SERIAL(DECL, R) KSTREAM_ND_CASES_OF(DECL, Kokkos::Serial, R)
#define KSTREAM_ND_SERIAL(M) M(Kokkos::Serial)
#else
#define KSTREAM_ND_ON_SERIAL(DECL, R)
#define KSTREAM_ND_SERIAL(M)
#endif
#define KSTREAM_ND_RANK(DECL, R) KSTREAM_ND_ON_OPENMP(DECL, R) KSTREAM_ND_ON_SERIAL(DECL, R)
#define KSTREAM_ND_BF16(DECL, R)
#define KSTREAM_ND_FOR_EACH_BACKEND(M) KSTREAM_ND_OPENMP(M) KSTREAM_ND_SERIAL(M)
#endif

}  // namespace kstream::bench

#pragma once
// Machinery of the benchmark suite: the byte table, the operand storage shared by every variant (same
// allocation for kstream, the naive baseline and the peers), fence- or event-bracketed timing, validation.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <kstream/low_precision.hpp>
#include <kstream/reduce.hpp>
#include <kstream/tiling.hpp>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

namespace kstream::bench {

/// The build's GPU backend (CUDA or HIP), where it has one: its rows come first, and its memory sizes the arrays.
#if defined(KOKKOS_ENABLE_CUDA)
#define KSTREAM_BENCH_GPU Kokkos::Cuda
/// Bytes free on the current GPU, and the GPUs this host has (0 where the runtime finds none).
inline std::int64_t gpu_free_bytes() {
  std::size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  return std::int64_t(free_bytes);
}
inline int gpu_count() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess ? devices : 0;
}
#elif defined(KOKKOS_ENABLE_HIP)
#define KSTREAM_BENCH_GPU Kokkos::HIP
inline std::int64_t gpu_free_bytes() {
  std::size_t free_bytes = 0, total = 0;
  (void)hipMemGetInfo(&free_bytes, &total);
  return std::int64_t(free_bytes);
}
inline int gpu_count() {
  int devices = 0;
  return hipGetDeviceCount(&devices) == hipSuccess ? devices : 0;
}
#endif

/// What a benchmark computes. The chain is out = 3 x + 0.5 y + z; chain64 is 64 dependent small operations
/// (see chain64_steps), the launch-bound sequence that kstream::record replays as one graph. dot is x . y;
/// update_norm is a Krylov step, r = r - x then ||r||^2 (r is out, starting as y). mul, triad and nstream are
/// BabelStream's (with scalar 0.5, exact on the suite's inputs, where BabelStream uses 0.4): out = 0.5 x,
/// out = x + 0.5 y, out += x + 0.5 y (out starting as z); its copy, add and dot are the rows of those names.
enum class Op { copy, add, fma, chain, chain64, empty, dot, update_norm, mul, triad, nstream };

/// chain64: for j = 0..31, tmp0 = (j == 0 ? x : out) + x, then out = fma(tmp0, ones, y); so out = 33 x + 32 y,
/// exact for the suite's small-integer inputs. 64 kernels: 32 adds (3 arrays each) and 32 fmas (4 arrays).
inline constexpr int chain64_steps = 64;

/// The byte table: arrays of n elements read or written by the operation, each exactly once (the minimum any
/// implementation must move). The unfused fma and the separate-kernel chain are counted on this same minimum, so
/// their GB/s reads as "effective bandwidth" and compares directly with the fused kernels.
constexpr int arrays_moved(Op op) {
  switch (op) {
    case Op::copy:
      return 2;
    case Op::add:
      return 3;
    case Op::fma:
      return 4;
    case Op::chain:
      return 4;
    case Op::chain64:
      return 32 * 3 + 32 * 4;
    case Op::empty:
      return 0;
    case Op::dot:
      return 2;
    case Op::update_norm:  // read r and x, write r (the separate calls read r once more: counted on this minimum)
      return 3;
    case Op::mul:
      return 2;
    case Op::triad:
      return 3;
    case Op::nstream:
      return 4;
  }
  return 0;
}

constexpr const char* op_name(Op op) {
  switch (op) {
    case Op::copy:
      return "copy";
    case Op::add:
      return "add";
    case Op::fma:
      return "fma";
    case Op::chain:
      return "chain";
    case Op::chain64:
      return "chain64";
    case Op::empty:
      return "empty";
    case Op::dot:
      return "dot";
    case Op::update_norm:
      return "update_norm";
    case Op::mul:
      return "mul";
    case Op::triad:
      return "triad";
    case Op::nstream:
      return "nstream";
  }
  return "?";
}

/// Where the operands sit (the `layout` segment of a benchmark's name): every view at the start of its
/// allocation; every view one element in; unequally offset (x + 1, y + 2, z + 3, out + 3 for add and + 1 when
/// a third input exists, as cub's and PyTorch's anchors were measured); every view taking every 2nd / 3rd element.
enum class Layout { aligned, offset1, offsets123, stride2, stride3 };
inline constexpr Layout all_layouts[] = {Layout::aligned, Layout::offset1, Layout::offsets123, Layout::stride2,
                                         Layout::stride3};

constexpr const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::aligned:
      return "aligned";
    case Layout::offset1:
      return "offset1";
    case Layout::offsets123:
      return "offsets123";
    case Layout::stride2:
      return "stride2";
    case Layout::stride3:
      return "stride3";
  }
  return "?";
}

constexpr std::int64_t layout_stride(Layout layout) {
  return layout == Layout::stride2 ? 2 : layout == Layout::stride3 ? 3 : 1;
}

/// Element offset of operand `which` (0 x, 1 y, 2 z, 3 out) for an operation with `inputs` inputs.
constexpr std::int64_t layout_offset(Layout layout, int which, int inputs) {
  switch (layout) {
    case Layout::offset1:
      return 1;
    case Layout::offsets123:
      return which < 3 ? which + 1 : (inputs >= 3 ? 1 : 3);
    default:
      return 0;
  }
}

/// Exactly representable small integers: every operation's result is exact in float and double, so fused and
/// unfused variants give identical results and validation checks indexing and coverage, not rounding. (16-bit
/// types store them rounded; their results are computed in float and rounded once, like kstream's.)
template <class T>
KOKKOS_INLINE_FUNCTION T input_value(int which, std::int64_t i) {
  return from_float<T>(float((i * (2 * which + 1) + 7 * which) % 1021));
}

template <class T>
KOKKOS_INLINE_FUNCTION T expected_value(Op op, T x, T y, T z) {
  if constexpr (is_low_precision_v<T>) {
    return from_float<T>(expected_value<float>(op, to_float(x), to_float(y), to_float(z)));
  }
  switch (op) {
    case Op::copy:
      return x;
    case Op::add:
      return x + y;
    case Op::fma:
      return x * y + z;
    case Op::chain:
      return T(3) * x + T(0.5) * y + z;
    case Op::chain64:
      return T(33) * x + T(32) * y;
    case Op::update_norm:
      return y - x;
    case Op::mul:
      return T(0.5) * x;
    case Op::triad:
      return x + T(0.5) * y;
    case Op::nstream:
      return z + (x + T(0.5) * y);
    case Op::empty:
    case Op::dot:
      return T(0);
  }
  return T(0);
}

/// The fused chain's expression, out = 3 x + 0.5 y + z (Op::chain; float and double).
template <class T>
struct Chain {
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y, T z) const { return T(3) * x + T(0.5) * y + z; }
};

/// A backend whose memory the host cannot read (the GPU): it gets GPU tile shapes, device memory sizing and a
/// warm-up before timing.
template <class Exec>
inline constexpr bool is_device_backend = kstream::is_device_execution_space_v<Exec>;

template <class Exec, class T, class Layout = Kokkos::LayoutRight>
using Vec = Kokkos::View<T*, Layout, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Views of n elements over the shared storage: three inputs, the output, two temporaries and a view of ones.
/// Contiguous layouts use plain views (what the aligned numbers always measured), strided ones LayoutStride views.
template <class Exec, class T, class ViewLayout = Kokkos::LayoutRight>
struct Operands {
  std::int64_t n;
  Vec<Exec, T, ViewLayout> x, y, z, out, tmp0, tmp1, ones;
};
template <class Exec, class T>
using StridedOperands = Operands<Exec, T, Kokkos::LayoutStride>;

struct StorageBase {
  virtual ~StorageBase() = default;
};

/// What one (backend, type) needs: `capacity` elements for x, y, z and out (the largest n times the largest
/// stride, plus the largest offset), `temporaries` for tmp0 and tmp1 (only aligned variants use them).
struct Extents {
  std::int64_t capacity = 0;
  std::int64_t temporaries = 0;
  friend bool operator<=(const Extents& a, const Extents& b) {
    return a.capacity <= b.capacity && a.temporaries <= b.temporaries;
  }
};

/// One allocation per (backend, type) at the largest extents, reused by every size, layout and variant; the
/// previous backend/type's storage is released first so only one set lives at a time.
template <class Exec, class T>
struct Storage : StorageBase {
  using View = Kokkos::View<T*, typename Exec::memory_space>;
  Extents extents;
  View x, y, z, out, tmp0, tmp1, ones;

  explicit Storage(Extents e)
      : extents(e),
        x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_x"), e.capacity),
        y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_y"), e.capacity),
        z(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_z"), e.capacity),
        out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_out"), e.capacity),
        tmp0(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_tmp0"), e.temporaries),
        tmp1(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_tmp1"), e.temporaries),
        ones(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_ones"), e.temporaries) {
    Kokkos::deep_copy(ones, from_float<T>(1.0f));
    fill_inputs();
  }

  // (A member function, not the constructor: CUDA's extended lambdas may not live in constructors.)
  void fill_inputs() {
    auto vx = x, vy = y, vz = z;
    Kokkos::parallel_for(
        "kstream::bench::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, extents.capacity),
        KOKKOS_LAMBDA(std::int64_t i) {
          vx(i) = input_value<T>(0, i);
          vy(i) = input_value<T>(1, i);
          vz(i) = input_value<T>(2, i);
        });
    Kokkos::fence();
  }

  /// Contiguous layouts (aligned, offset1, offsets123): `inputs` says how many inputs the operation has.
  Operands<Exec, T> operands(std::int64_t n, Layout layout = Layout::aligned, int inputs = 2) const {
    using V = Vec<Exec, T>;
    auto at = [&](const View& v, int which) { return V(v.data() + layout_offset(layout, which, inputs), n); };
    return {n, at(x, 0), at(y, 1), at(z, 2), at(out, 3), V(tmp0.data(), n), V(tmp1.data(), n), V(ones.data(), n)};
  }

  StridedOperands<Exec, T> strided_operands(std::int64_t n, Layout layout) const {
    using V = Vec<Exec, T, Kokkos::LayoutStride>;
    const Kokkos::LayoutStride shape(n, layout_stride(layout));
    return {n, V(x.data(), shape), V(y.data(), shape), V(z.data(), shape), V(out.data(), shape), V(), V(), V()};
  }
};

inline std::unique_ptr<StorageBase>& current_storage() {
  static std::unique_ptr<StorageBase> storage;
  return storage;
}

template <class Exec, class T>
Storage<Exec, T>& storage_for(Extents extents) {
  auto* existing = dynamic_cast<Storage<Exec, T>*>(current_storage().get());
  if (existing && extents <= existing->extents) return *existing;
  current_storage().reset();  // free first: two sets at once may not fit
  current_storage() = std::make_unique<Storage<Exec, T>>(extents);
  return static_cast<Storage<Exec, T>&>(*current_storage());
}

/// Equal values (16-bit types compared as the floats they hold).
template <class T>
KOKKOS_INLINE_FUNCTION bool same_result(T a, T b) {
  if constexpr (is_low_precision_v<T>) {
    return to_float(a) == to_float(b);
  } else {
    return a == b;
  }
}

/// Wrong elements of out after `op`, from the operand views themselves (so any layout is checked against the
/// values its views hold); NaN, left by an element never written, counts as wrong. Inputs are small integers,
/// so every op is exact and fused and unfused variants must agree bit for bit.
template <class Exec, class T, class ViewLayout>
std::int64_t count_errors(Op op, const Operands<Exec, T, ViewLayout>& ops) {
  std::int64_t errors = 0;
  auto x = ops.x, y = ops.y, z = ops.z, out = ops.out;
  Kokkos::parallel_reduce(
      "kstream::bench::validate", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, ops.n),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
        sum += !same_result(out(i), expected_value<T>(op, x(i), y(i), z(i)));
      },
      errors);
  return errors;
}

/// Seconds between start() and stop(): CUDA events on the Kokkos stream for Cuda, fences and steady_clock on
/// host backends (wall time: OpenMP threads do the work, the main thread's CPU time would be meaningless).
template <class Exec>
class Timer {
 public:
  void start() {
    Exec().fence();
    begin_ = std::chrono::steady_clock::now();
  }
  double stop() {
    Exec().fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
  }

 private:
  std::chrono::steady_clock::time_point begin_;
};

#if defined(KOKKOS_ENABLE_CUDA)
template <>
class Timer<Kokkos::Cuda> {
 public:
  Timer() {
    cudaEventCreate(&begin_);
    cudaEventCreate(&end_);
  }
  ~Timer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  void start() { cudaEventRecord(begin_, Kokkos::Cuda().cuda_stream()); }
  double stop() {
    cudaEventRecord(end_, Kokkos::Cuda().cuda_stream());
    cudaEventSynchronize(end_);
    float ms = 0;
    cudaEventElapsedTime(&ms, begin_, end_);
    return ms * 1e-3;
  }

 private:
  cudaEvent_t begin_{}, end_{};
};
#endif

/// A benchmarked implementation: one call of `run` computes `op` over ops.n elements of contiguous views;
/// `run_strided`, where present, the same over strided views; `unaligned`: runs on the offset layouts too (not
/// only the aligned one). `in_place`: the call accumulates into out (add: out += x; fma: out += x * y), moving the
/// same bytes as the out-of-place op; out starts as y (add) or z (fma) and is reset to it before the validated call.
template <class Exec, class T>
struct Variant {
  Op op;
  std::string name;
  std::function<void(const Operands<Exec, T>&)> run;
  bool only_small = false;  ///< launch-floor probes: registered at the smallest size only
  bool unaligned = false;
  std::function<void(const StridedOperands<Exec, T>&)> run_strided = {};
  bool in_place = false;
  /// Where set, checks the call's result after its timed loop instead of out's elements ("" when right).
  std::function<std::string(const Operands<Exec, T>&)> validate = {};

  bool runs_on(Layout layout) const {
    if (layout == Layout::aligned) return true;
    if (layout_stride(layout) > 1) return bool(run_strided);
    return unaligned;
  }
};

/// Teams of kstream's add over n elements of `bytes` each with `shape` (a tile of 16-byte packs each): the grid of
/// the launch-floor rows, so an empty Kokkos kernel and an empty plain one differ in their launch path only.
inline int floor_league(std::int64_t n, std::size_t bytes, const TileShape& shape) {
  const std::int64_t packs = n * std::int64_t(bytes) / 16;
  return int(std::max<std::int64_t>(1, (packs + shape.tile_packs() - 1) / shape.tile_packs()));
}

/// Native peers, defined in the backend's own file: OpenMP loops (peers_openmp.cpp), CUDA kernels and cub
/// (peers_cuda.cpp). Backends without peers (Serial) take the generic no-op.
template <class Variants>
void add_native_peers(Variants&) {}
#if defined(KOKKOS_ENABLE_OPENMP)
void add_native_peers(std::vector<Variant<Kokkos::OpenMP, float>>& variants);
void add_native_peers(std::vector<Variant<Kokkos::OpenMP, double>>& variants);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
void add_native_peers(std::vector<Variant<Kokkos::Cuda, float>>& variants);
void add_native_peers(std::vector<Variant<Kokkos::Cuda, double>>& variants);
#if !KOKKOS_HALF_T_IS_FLOAT
void add_native_peers(std::vector<Variant<Kokkos::Cuda, Kokkos::Experimental::half_t>>& variants);
#endif
#if !KOKKOS_BHALF_T_IS_FLOAT
void add_native_peers(std::vector<Variant<Kokkos::Cuda, Kokkos::Experimental::bhalf_t>>& variants);
#endif
#endif

/// A kstream or naive variant: the same generic call serves contiguous views at any offset and strided views.
template <class Exec, class T, class Call>
Variant<Exec, T> on_every_layout(Op op, std::string name, Call call) {
  return {op, std::move(name), call, false, true, call};
}

/// An in-place variant (aligned layout only): see Variant::in_place.
template <class Exec, class T, class Call>
Variant<Exec, T> in_place_variant(Op op, std::string name, Call call) {
  return {op, std::move(name), call, false, false, {}, true};
}

/// Where an in-place call's accumulator starts: y for add, z for fma (so the validated result is x + y, x * y + z).
template <class Exec, class T, class ViewLayout>
void reset_accumulator(Op op, const Operands<Exec, T, ViewLayout>& ops) {
  Kokkos::deep_copy(Exec(), ops.out, op == Op::fma || op == Op::nstream ? ops.z : ops.y);
}

/// The exact x . y of the suite's inputs over n elements (whole numbers below 1021 as T holds them: exact as floats,
/// their products and sums exact in long double), cached per n.
template <class T>
long double exact_dot(std::int64_t n) {
  static std::map<std::int64_t, long double> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  long double sum = 0;
  for (std::int64_t i = 0; i < n; ++i)
    sum += (long double)to_float(input_value<T>(0, i)) * (long double)to_float(input_value<T>(1, i));
  return cache[n] = sum;
}

/// "" when `got` is the exact dot of the inputs within a relative `tolerance` (0: exact).
template <class T>
std::string check_dot(double got, std::int64_t n, double tolerance) {
  const long double exact = exact_dot<T>(n);
  const long double error = got > exact ? got - exact : exact - got;
  if (got == got && error <= tolerance * (exact < 0 ? -exact : exact)) return "";
  return "dot " + std::to_string(got) + ", exact " + std::to_string(double(exact));
}

/// A reduction variant (aligned only): `call` reduces into something `read()` returns on the host. dot: checked
/// against the exact dot within `tolerance` (0 for accumulators that are exact on the suite's inputs, as
/// kstream's double accumulator; a float accumulator's error grows with n, so such a peer is checked within 25 %
/// at n and within `tolerance` on one more call over the first 2^16 elements); update_norm (out starts as y):
/// out = y - x and ||y - x||^2, exactly.
template <class Exec, class T, class Call, class Read>
Variant<Exec, T> reduction_variant(Op op, std::string name, Call call, Read read, double tolerance) {
  Variant<Exec, T> v{op, std::move(name), call};
  v.in_place = op == Op::update_norm;
  v.validate = [=](const Operands<Exec, T>& o) -> std::string {
    const double got = read();
    constexpr std::int64_t prefix = 1 << 16;
    if (op == Op::dot && tolerance > 0 && o.n > prefix) {
      if (std::string problem = check_dot<T>(got, o.n, 0.25); !problem.empty()) return problem;
      Operands<Exec, T> first = o;
      first.n = prefix;
      first.x = Vec<Exec, T>(o.x.data(), prefix);
      first.y = Vec<Exec, T>(o.y.data(), prefix);
      call(first);
      Exec().fence();
      if (std::string problem = check_dot<T>(read(), prefix, tolerance); !problem.empty())
        return problem + " over the first " + std::to_string(prefix) + " elements";
      return "";
    }
    if (op == Op::dot) return check_dot<T>(got, o.n, tolerance);
    long double exact = 0;
    for (std::int64_t i = 0; i < o.n; ++i) {
      const long double d = (long double)input_value<T>(1, i) - (long double)input_value<T>(0, i);
      exact += d * d;
    }
    return got == double(exact) ? "" : "norm " + std::to_string(got) + ", exact " + std::to_string(double(exact));
  };
  return v;
}

/// A function reading a rank-0 view held by `result` as a double on the host (a reduction variant's `read`).
template <class View>
auto reader(std::shared_ptr<View> result) {
  return [result] {
    typename View::non_const_value_type value{};
    Kokkos::deep_copy(value, *result);
    return double(value);
  };
}

/// The suite's operations shared by its files: BabelStream's copy and triad (scalar 0.5; see Op), and the Krylov
/// step's update r - x with the square of the updated r (update_norm; the fused form's reduce_op also takes the
/// inputs).
template <class T>
struct Same {
  KOKKOS_INLINE_FUNCTION T operator()(T x) const { return x; }
};
template <class T>
struct Triad {
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return x + T(0.5) * y; }
};
template <class T>
struct SubtractX {
  KOKKOS_INLINE_FUNCTION T operator()(T r, T x) const { return r - x; }
};
struct Square {
  template <class T>
  KOKKOS_INLINE_FUNCTION kstream::accumulator_t<T> operator()(T r) const {
    return kstream::accumulator_t<T>(r) * kstream::accumulator_t<T>(r);
  }
};
struct SquareFirst {
  template <class T>
  KOKKOS_INLINE_FUNCTION kstream::accumulator_t<T> operator()(T r, T, T) const {
    return Square{}(r);
  }
};

/// factor * x (the suite's mul and its fusion chains).
template <class T>
struct Scale {
  T factor;
  KOKKOS_INLINE_FUNCTION T operator()(T x) const { return factor * x; }
};

/// M(Exec) for every enabled backend: the explicit instantiations at the end of each suite file.
#if defined(KSTREAM_BENCH_GPU)
#define KSTREAM_BENCH_ON_GPU(M) M(KSTREAM_BENCH_GPU)
#else
#define KSTREAM_BENCH_ON_GPU(M)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define KSTREAM_BENCH_ON_OPENMP(M) M(Kokkos::OpenMP)
#else
#define KSTREAM_BENCH_ON_OPENMP(M)
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
#define KSTREAM_BENCH_ON_SERIAL(M) M(Kokkos::Serial)
#else
#define KSTREAM_BENCH_ON_SERIAL(M)
#endif
#define KSTREAM_BENCH_FOR_EACH_BACKEND(M) KSTREAM_BENCH_ON_GPU(M) KSTREAM_BENCH_ON_OPENMP(M) KSTREAM_BENCH_ON_SERIAL(M)

/// BabelStream's set through kstream's public API: copy, mul, triad, nstream, tiled and naive (suite_stream.cpp);
/// float and double.
template <class Exec, class T>
void add_stream_set(std::vector<Variant<Exec, T>>& list);
/// The reductions (suite_reductions.cpp): dot tiled and naive, the fused update-and-norm against two calls.
template <class Exec, class T>
void add_reductions(std::vector<Variant<Exec, T>>& list);
/// Kokkos' own algorithms as a Kokkos user calls them (suite_stream.cpp): add and triad through
/// Kokkos::Experimental::transform, dot through transform_reduce (rows `kokkos_std`); float and double.
template <class Exec, class T>
void add_kokkos_std_peers(std::vector<Variant<Exec, T>>& list);

/// The fusion rows (suite_fusion.cpp): fma as two naive kernels, a four-operation chain fused and unfused, chain64
/// eager and recorded; with `tuning`, tile-shape grids for chain64, add and fma. float and double.
template <class Exec, class T>
void add_fusion(std::vector<Variant<Exec, T>>& list, bool tuning);
/// Kokkos Kernels' BLAS-1 rows (peers_kokkos_kernels.cpp, built when CMake finds Kokkos Kernels), float and double:
/// add/kokkosblas (update), add/kokkosblas_inplace (axpby), fma/kokkosblas_inplace (mult), dot/kokkosblas (dot).
template <class Exec, class T>
void add_kokkos_kernels_peers(std::vector<Variant<Exec, T>>& variants);
/// A rank-2 view of any strides over Exec's memory (the suite's views of several dimensions at rank 2).
template <class Exec, class T>
using StridedMatrix =
    Kokkos::View<T**, Kokkos::LayoutStride, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
/// Kokkos Kernels' multivector update, out = x + y, on rank-2 views (peers_kokkos_kernels.cpp): the nd rows'
/// add/kokkosblas. Its multivector dot gives one dot per column, not the whole view's, and has no row.
template <class Exec, class T>
void kokkos_kernels_update(const StridedMatrix<Exec, T>& x, const StridedMatrix<Exec, T>& y,
                           const StridedMatrix<Exec, T>& out);
/// Kokkos Kernels' multivector dot (what 1), nrm2 (2) and sum (0) of each column of x (peers_kokkos_kernels.cpp):
/// the along rows' kokkosblas.
template <class Exec, class T>
void kokkos_kernels_columns(int what, const StridedMatrix<Exec, const T>& x, const StridedMatrix<Exec, const T>& y,
                            const Kokkos::View<kstream::accumulator_t<T>*, typename Exec::memory_space>& out);
/// The Kokkos Kernels version the suite was built with, e.g. "4.6.99".
std::string kokkos_kernels_version();

/// The rows of views of several dimensions (suite_rank_n.cpp): the MDRange stream set of ranks 1 to 6, interiors,
/// padded, transposed and mixed layouts, reductions on rank-3 interiors; total sizes 2^24 and 2^27 up to max_n.
/// Registered for the device where the build has one, for the host backends otherwise (suite_rank_n.hpp).
template <class Exec>
void register_rank_n(std::int64_t max_n, double min_time);

/// The rows of reductions along dimensions (suite_along.cpp): multivector columns and rows, rank-3 axes, a rank-4
/// interior's two middle axes, about 2^24 elements (fewer up to max_n); kstream, its full reduction of the same
/// bytes, a team per output, and the peers.
template <class Exec>
void register_along(std::int64_t max_n, double min_time);
/// The row operations' rows (suite_rows.cpp).
template <class Exec>
void register_rows(std::int64_t max_n, double min_time);

/// Facts for the JSON context from backend-specific files (GPU model, driver, ...); empty without CUDA.
std::vector<std::pair<std::string, std::string>> cuda_context();

}  // namespace kstream::bench

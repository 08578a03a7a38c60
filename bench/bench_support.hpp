#pragma once
// Machinery of the benchmark suite: the byte table, the operand storage shared by every variant (same
// allocation for kstream, the naive baseline and the peers), fence- or event-bracketed timing, validation.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace kstream::bench {

/// What a benchmark computes. The chain is out = 3 x + 0.5 y + z.
enum class Op { copy, add, fma, chain, empty };

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
    case Op::empty:
      return 0;
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
    case Op::empty:
      return "empty";
  }
  return "?";
}

/// Exactly representable small integers: every operation's result is exact in float and double, so fused and
/// unfused variants give identical results and validation checks indexing and coverage, not rounding.
template <class T>
KOKKOS_INLINE_FUNCTION T input_value(int which, std::int64_t i) {
  return T((i * (2 * which + 1) + 7 * which) % 1021);
}

template <class T>
KOKKOS_INLINE_FUNCTION T expected_value(Op op, std::int64_t i) {
  const T x = input_value<T>(0, i), y = input_value<T>(1, i), z = input_value<T>(2, i);
  switch (op) {
    case Op::copy:
      return x;
    case Op::add:
      return x + y;
    case Op::fma:
      return x * y + z;
    case Op::chain:
      return T(3) * x + T(0.5) * y + z;
    case Op::empty:
      return T(0);
  }
  return T(0);
}

/// A backend whose memory the host cannot read (the GPU): it gets GPU tile shapes, device memory sizing and a
/// warm-up before timing.
template <class Exec>
inline constexpr bool is_device_backend =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

template <class Exec, class T>
using Vec = Kokkos::View<T*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Views of n elements over the shared storage: three inputs, the output and two temporaries.
template <class Exec, class T>
struct Operands {
  std::int64_t n;
  Vec<Exec, T> x, y, z, out, tmp0, tmp1;
};

struct StorageBase {
  virtual ~StorageBase() = default;
};

/// One allocation per (backend, type) at the largest size, reused by every size and variant; the previous
/// backend/type's storage is released first so only one set lives at a time.
template <class Exec, class T>
struct Storage : StorageBase {
  using View = Kokkos::View<T*, typename Exec::memory_space>;
  std::int64_t capacity;
  View x, y, z, out, tmp0, tmp1;

  explicit Storage(std::int64_t n)
      : capacity(n),
        x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_x"), n),
        y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_y"), n),
        z(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_z"), n),
        out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_out"), n),
        tmp0(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_tmp0"), n),
        tmp1(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench_tmp1"), n) {
    fill_inputs();
  }

  // (A member function, not the constructor: CUDA's extended lambdas may not live in constructors.)
  void fill_inputs() {
    auto vx = x, vy = y, vz = z;
    Kokkos::parallel_for(
        "kstream::bench::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, capacity),
        KOKKOS_LAMBDA(std::int64_t i) {
          vx(i) = input_value<T>(0, i);
          vy(i) = input_value<T>(1, i);
          vz(i) = input_value<T>(2, i);
        });
    Kokkos::fence();
  }

  Operands<Exec, T> operands(std::int64_t n) const {
    using V = Vec<Exec, T>;
    return {n, V(x.data(), n), V(y.data(), n), V(z.data(), n), V(out.data(), n), V(tmp0.data(), n), V(tmp1.data(), n)};
  }
};

inline std::unique_ptr<StorageBase>& current_storage() {
  static std::unique_ptr<StorageBase> storage;
  return storage;
}

template <class Exec, class T>
Storage<Exec, T>& storage_for(std::int64_t capacity) {
  auto* existing = dynamic_cast<Storage<Exec, T>*>(current_storage().get());
  if (existing && existing->capacity >= capacity) return *existing;
  current_storage().reset();  // free first: two sets at once may not fit
  current_storage() = std::make_unique<Storage<Exec, T>>(capacity);
  return static_cast<Storage<Exec, T>&>(*current_storage());
}

/// Wrong elements of out after `op` (NaN, left by an element never written, counts as wrong).
template <class Exec, class T>
std::int64_t count_errors(Op op, const Operands<Exec, T>& ops) {
  std::int64_t errors = 0;
  auto out = ops.out;
  Kokkos::parallel_reduce(
      "kstream::bench::validate", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, ops.n),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) { sum += !(out(i) == expected_value<T>(op, i)); }, errors);
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

/// A benchmarked implementation: one call of `run` computes `op` over ops.n elements.
template <class Exec, class T>
struct Variant {
  Op op;
  std::string name;
  std::function<void(const Operands<Exec, T>&)> run;
  bool only_small = false;  ///< launch-floor probes: registered at the smallest size only
};

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
#endif

/// Facts for the JSON context from backend-specific files (GPU model, driver, ...); empty without CUDA.
std::vector<std::pair<std::string, std::string>> cuda_context();

}  // namespace kstream::bench

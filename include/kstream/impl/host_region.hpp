#pragma once
// kstream's own OpenMP region: on Kokkos' default OpenMP instance, outside parallel regions, a call's tiles run
// in an `omp parallel for` that kstream opens itself, the region Kokkos' RangePolicy dispatch opens without the
// wrapper around it, and on only as many threads as the call pays for (the plan's threads). Other instances and
// calls from inside a parallel region go through Kokkos::parallel_for. docs/engine.md has the measurements.
#include <Kokkos_Core.hpp>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace kstream::impl {

#if defined(KOKKOS_ENABLE_OPENMP)
/// Whether exec is Kokkos' default OpenMP instance, compared with a copy made on first use and kept until Kokkos
/// finalizes (constructing Kokkos::OpenMP() allocates; Kokkos forbids destroying one after finalize).
inline bool is_default_openmp_instance(const Kokkos::OpenMP& exec) {
  static std::mutex mutex;
  static std::vector<Kokkos::OpenMP> kept;  // empty, or the default instance
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept.empty()) {
    Kokkos::push_finalize_hook([] {
      const std::lock_guard<std::mutex> release_lock(mutex);
      kept.clear();
    });
    kept.emplace_back();
  }
  return exec == kept.front();
}
#endif

/// Whether kstream may run a call on fewer of exec's threads in an OpenMP region of its own: Kokkos' default
/// OpenMP instance, outside any parallel region (other instances and nested calls go through Kokkos).
template <class ExecSpace>
bool opens_own_region([[maybe_unused]] const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>)
    return !omp_in_parallel() && is_default_openmp_instance(exec);
#endif
  return false;
}

#if defined(KOKKOS_ENABLE_OPENMP)
/// 64-bit words in which a functor crosses into kstream's own region: 96 bytes, every host functor of add, fma
/// and transform with up to 8 inputs (strided: up to 4).
inline constexpr std::size_t region_words = 12;

/// Whether run_in_own_region hands this functor to its threads as scalars (else as a firstprivate copy).
template <class Functor>
inline constexpr bool crosses_as_words = std::is_trivially_copyable_v<Functor> &&
                                         sizeof(Functor) <= region_words * sizeof(std::uint64_t);

/// Tiles [0, league) split statically over `threads` threads. OpenMP hands a region its firstprivate scalars by
/// value in the argument block the calling thread fills, an object by pointer to it: two transfers from the
/// calling core's cache, one after the other. A trivially copyable functor of up to region_words words therefore
/// crosses as 64-bit scalars (one transfer), and each thread rebuilds it on its own stack.
template <class Functor>
void run_in_own_region(const Functor& functor, std::int64_t league, int threads) {
  if constexpr (crosses_as_words<Functor>) {
    std::uint64_t w[region_words] = {};
    std::memcpy(w, &functor, sizeof(Functor));
    const std::uint64_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7],
                        w8 = w[8], w9 = w[9], w10 = w[10], w11 = w[11];
#pragma omp parallel for schedule(static) num_threads(threads) \
    firstprivate(w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11)
    for (std::int64_t tile = 0; tile < league; ++tile) {
      const std::uint64_t words[region_words] = {w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11};
      std::array<unsigned char, sizeof(Functor)> bytes;
      std::memcpy(bytes.data(), words, sizeof(Functor));
      std::bit_cast<Functor>(bytes)(tile);
    }
  } else {
    Functor copy(functor);
#pragma omp parallel for schedule(static) num_threads(threads) firstprivate(copy)
    for (std::int64_t tile = 0; tile < league; ++tile) copy(tile);
  }
}
#endif

}  // namespace kstream::impl

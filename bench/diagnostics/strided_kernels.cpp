// Diagnostic, not part of the build: where a strided kstream call on a GPU loses to the naive baseline. add and fma
// over LayoutStride views (stride 2 and 3) of float and double, as kstream (default and explicit shapes), as the
// naive baseline, and as minimal kernels of each policy with raw pointers, in paired rounds (31 rounds, the
// variants taking turns in shuffled order; bench/diagnostics/paired_rounds.hpp). Prints each variant's median
// microseconds per call and its ratio to naive's (naive / variant: > 1 is faster than naive).
//   naive         kstream::naive (Kokkos RangePolicy lambda over the views, one element per thread)
//   kstream       kstream::add / fma, default shape
//   kstream_t128  kstream with {128 threads, 1 pack in flight, 1 chunk}: naive's block size (1 double, 2 floats
//                 per thread)
//   kstream_p4    kstream with {256 threads, 4 packs in flight, 1 chunk}: 4 doubles (8 floats) per thread
//   team_wide256  team_raw256's code with kstream's field layout (a stride per view; 80 bytes against 48)
//   klike_*       kstream's strided kernel rebuilt with its features switched (KLike): split_loop is kstream's
//                 structure, plain has neither the full/last tile split nor the chunk loop
//   range_raw     RangePolicy, raw pointers and strides, one element per thread
//   team_raw128   TeamPolicy of 128-thread teams, raw pointers, one element per thread
//   team_raw256   TeamPolicy of 256-thread teams (kstream's), raw pointers, one element per thread
//   team_raw256x2 the same with two elements per thread, both loaded before either is stored (x4: four)
//   cuda_raw128   a plain __global__ kernel, 128-thread blocks, one element per thread
//
//   W=<kokkos>/bin/nvcc_wrapper F="-O3 -std=c++20 -arch=sm_90 -Xcompiler -fopenmp --expt-relaxed-constexpr \
//       --extended-lambda -Iinclude -I<build>/include -I<kokkos>/include"
//   for f in configuration streaming_stores; do
//     $W $F -DKSTREAM_COMPILER='"nvcc"' -DKSTREAM_HOST_ARCH_FLAG='""' -c src/$f.cpp -o $f.o; done
//   $W $F -x cu -c bench/diagnostics/strided_kernels.cpp -o sk.o
//   $W -arch=sm_90 -Xcompiler -fopenmp sk.o configuration.o streaming_stores.o -L<kokkos>/lib -lkokkoscore -lcuda \
//       -ldl -o strided_kernels
//   strided_kernels [max_log2 = 28 [min_log2 = 20 [once]]]
#include <Kokkos_Core.hpp>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <kstream/kstream.hpp>
#include <string>
#include <utility>
#include <vector>

#include "paired_rounds.hpp"

using Exec = Kokkos::Cuda;
using Member = Kokkos::TeamPolicy<Exec>::member_type;

template <class T>
using Strided = Kokkos::View<T*, Kokkos::LayoutStride, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// out[i*s] = x[i*s] + y[i*s] (Fma: x * y + z): the raw pointer form every minimal kernel shares.
template <class T, bool Fma, int Per = 1>
struct Raw {
  const T* x;
  const T* y;
  const T* z;
  T* out;
  std::int64_t n, s;
  KOKKOS_FORCEINLINE_FUNCTION T value(std::int64_t i) const {
    if constexpr (Fma) {
      return x[i * s] * y[i * s] + z[i * s];
    } else {
      return x[i * s] + y[i * s];
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { out[i * s] = value(i); }
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = std::int64_t(team.league_rank()) * team.team_size() * Per + team.team_rank();
    if constexpr (Per == 1) {
      if (first < n) out[first * s] = value(first);
    } else {
      T v[Per];
      for (int k = 0; k < Per; ++k) {
        const std::int64_t i = first + std::int64_t(k) * team.team_size();
        if (i < n) v[k] = value(i);
      }
      for (int k = 0; k < Per; ++k) {
        const std::int64_t i = first + std::int64_t(k) * team.team_size();
        if (i < n) out[i * s] = v[k];
      }
    }
  }
};

/// Raw's code (one element per thread) with the field layout of kstream's strided functor for fma: a stride per
/// view ahead of the pointers, then the tile fields (80 bytes against Raw's 48): whether the parameter block's size
/// alone costs.
template <class T>
struct WideFields {
  std::int64_t out_stride, in_strides[3];
  T* out;
  const T* x;
  const T* y;
  const T* z;
  std::int64_t body_items;
  int chunks_per_thread = 1;
  std::int16_t head = 0, tail = 0;
};

template <class T, bool Fma>
struct RawWide : WideFields<T> {
  using WideFields<T>::out_stride, WideFields<T>::in_strides, WideFields<T>::out, WideFields<T>::x, WideFields<T>::y,
      WideFields<T>::z;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i = std::int64_t(team.league_rank()) * team.team_size() + team.team_rank();
    if (i >= this->body_items) return;
    if constexpr (Fma) {
      out[i * out_stride] = x[i * in_strides[0]] * y[i * in_strides[1]] + z[i * in_strides[2]];
    } else {
      out[i * out_stride] = x[i * in_strides[0]] + y[i * in_strides[1]];
    }
  }
};

/// kstream's strided kernel rebuilt in place, its features switched: Split (an unguarded loop for full tiles, a
/// guarded one for the last) and Loop (the chunk loop, run once here). <true, true> is kstream's structure.
template <class T, bool Fma, bool Split, bool Loop>
struct KLike : WideFields<T> {
  using WideFields<T>::out_stride, WideFields<T>::in_strides, WideFields<T>::out, WideFields<T>::x, WideFields<T>::y,
      WideFields<T>::z, WideFields<T>::body_items, WideFields<T>::chunks_per_thread;
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t tile_items(int team_size) const {
    return std::int64_t(team_size) * chunks_per_thread;
  }
  KOKKOS_FORCEINLINE_FUNCTION void one(std::int64_t item) const {
    const T a = x[item * in_strides[0]], b = y[item * in_strides[1]];
    if constexpr (Fma) {
      const T c = z[item * in_strides[2]];
      out[item * out_stride] = a * b + c;
    } else {
      out[item * out_stride] = a + b;
    }
  }
  template <bool Guarded>
  KOKKOS_FORCEINLINE_FUNCTION void tile(std::int64_t tile_first, int rank, int team_size) const {
    if constexpr (Loop) {
      int chunk = 0;
#pragma unroll 1
      do {
        const std::int64_t item = tile_first + std::int64_t(chunk) * team_size + rank;
        if (!Guarded || item < body_items) one(item);
      } while (++chunk < chunks_per_thread);
    } else {
      const std::int64_t item = tile_first + rank;
      if (!Guarded || item < body_items) one(item);
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int rank = team.team_rank(), team_size = team.team_size();
    const std::int64_t tile_first = std::int64_t(team.league_rank()) * tile_items(team_size);
    if constexpr (Split) {
      if (tile_first + tile_items(team_size) <= body_items) {
        tile<false>(tile_first, rank, team_size);
      } else {
        tile<true>(tile_first, rank, team_size);
      }
    } else {
      tile<true>(tile_first, rank, team_size);
    }
  }
};

template <class T, bool Fma>
__global__ void cuda_raw(Raw<T, Fma> f) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < f.n) f(i);
}

/// "once" (third argument): every variant makes one call per configuration, without rounds or warm-up, for a
/// profiler (ncu) to read each kernel once.
bool& once() {
  static bool value = false;
  return value;
}

template <class T, bool Fma>
void run(std::int64_t n, std::int64_t s) {
  const Exec exec;
  Kokkos::View<T*, Kokkos::CudaSpace> px("x", n * s), py("y", n * s), pz("z", n * s), po("o", n * s);
  Kokkos::deep_copy(px, T(1.5));
  Kokkos::deep_copy(py, T(0.5));
  Kokkos::deep_copy(pz, T(0.25));
  const Kokkos::LayoutStride shape(n, s);
  const Strided<const T> x(px.data(), shape), y(py.data(), shape), z(pz.data(), shape);
  const Strided<T> out(po.data(), shape);
  Raw<T, Fma> raw{px.data(), py.data(), pz.data(), po.data(), n, s};
  const Raw<T, Fma, 2> raw2{px.data(), py.data(), pz.data(), po.data(), n, s};
  const Raw<T, Fma, 4> raw4{px.data(), py.data(), pz.data(), po.data(), n, s};
  const int reps = once() ? 1 : n <= (1 << 20) ? 50 : n <= (1 << 24) ? 10 : 4;
  auto repeat = [&](auto&& call) {
    return [=] {
      for (int r = 0; r < reps; ++r) call();
      exec.fence();
    };
  };
  auto kstream_call = [&](kstream::TileShape shape_) {
    return repeat([=] {
      if constexpr (Fma) {
        kstream::fma(exec, x, y, z, out, shape_);
      } else {
        kstream::add(exec, x, y, out, shape_);
      }
    });
  };
  const kstream::TileShape t128{128, 1, 1}, p4{256, 4, 1};
  const WideFields<T> fields{s, {s, s, s}, po.data(), px.data(), py.data(), pz.data(), n};
  const RawWide<T, Fma> wide{fields};
  const KLike<T, Fma, true, true> k11{fields};
  const KLike<T, Fma, true, false> k10{fields};
  const KLike<T, Fma, false, true> k01{fields};
  const KLike<T, Fma, false, false> k00{fields};
  const int league128 = int((n + 127) / 128), league256 = int((n + 255) / 256), league512 = int((n + 511) / 512),
            league1024 = int((n + 1023) / 1024);
  // A TeamPolicy launch of `f`, repeated.
  auto team_call = [&](const char* label, int league, int team_size, auto f) {
    return repeat([=] { Kokkos::parallel_for(label, Kokkos::TeamPolicy<Exec>(exec, league, team_size), f); });
  };
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"naive", repeat([=] {
         if constexpr (Fma) {
           kstream::naive::fma(exec, x, y, z, out);
         } else {
           kstream::naive::add(exec, x, y, out);
         }
       })},
      {"kstream", kstream_call(kstream::default_tile_shape<Exec>())},
      {"kstream_t128", kstream_call(t128)},
      {"kstream_p4", kstream_call(p4)},
      {"team_wide256", team_call("team_wide256", league256, 256, wide)},
      {"klike_split_loop", team_call("k11", league256, 256, k11)},
      {"klike_split", team_call("k10", league256, 256, k10)},
      {"klike_loop", team_call("k01", league256, 256, k01)},
      {"klike_plain", team_call("k00", league256, 256, k00)},
      {"range_raw", repeat([=] {
         Kokkos::parallel_for("range_raw", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n), raw);
       })},
      {"team_raw128", team_call("team_raw128", league128, 128, raw)},
      {"team_raw256", team_call("team_raw256", league256, 256, raw)},
      {"team_raw256x4", team_call("team_raw256x4", league1024, 256, raw4)},
      {"team_raw256x2", team_call("team_raw256x2", league512, 256, raw2)},
      {"cuda_raw128", repeat([=] { cuda_raw<<<unsigned(league128), 128, 0, exec.cuda_stream()>>>(raw); })},
  };
  if (once()) {
    for (const auto& variant : vs) variant.second();
    return;
  }
  const auto t = paired_rounds(vs, 1);
  const double naive = t[0][t[0].size() / 2];
  for (std::size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    const double median = v[v.size() / 2] / reps;
    std::printf("%s %-6s stride%lld n=2^%-2d %-14s median %9.3f us  p10 %9.3f p90 %9.3f  naive/variant %.4f\n",
                Fma ? "fma" : "add", sizeof(T) == 4 ? "float" : "double", (long long)s,
                int(std::bit_width(std::uint64_t(n)) - 1), vs[k].first, median, v[v.size() / 10] / reps,
                v[v.size() * 9 / 10] / reps, naive / v[v.size() / 2]);
  }
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 28, min_log2 = argc > 2 ? std::atoi(argv[2]) : 20;
    once() = argc > 3 && std::string(argv[3]) == "once";
    for (int log2 : {20, 22, 24, 28}) {
      if (log2 > max_log2 || log2 < min_log2) continue;
      const std::int64_t n = std::int64_t(1) << log2;
      for (std::int64_t s : {2, 3}) {
        run<float, false>(n, s);
        run<float, true>(n, s);
        run<double, false>(n, s);
        run<double, true>(n, s);
      }
    }
  }
  Kokkos::finalize();
}

// Tuning program behind the strided rows of docs/engine.md (CUDA; built with -DKSTREAM_BUILD_TUNING=ON): a
// strided or unequally aligned kstream call on a GPU against the naive baseline. add and fma over LayoutStride
// views (stride 2 and 3) of float and double, or (layouts "contiguous") over contiguous views of doubles at the
// suite's contiguous layouts (aligned; offset1: every view one element in; offsets123: x + 1, y + 2, z + 3,
// out + 3 for add and + 1 for fma), in paired rounds (31 rounds, the variants taking turns in shuffled order;
// paired_rounds.hpp). Prints each variant's median microseconds per call and naive / variant (> 1: faster).
//   naive         kstream::naive (Kokkos RangePolicy lambda over the views, one element per thread)
//   naive_again   the same calls once more, as a variant of its own: the spread of identical kernels (A/A)
//   kstream       kstream::add / fma, default shape (strided: the elements strategy, or the tiled kernel for
//                 elements under 8 bytes within the device's cache)
//   kstream_t128  kstream with {128 threads, 1 pack in flight, 1 chunk}: an explicit shape, so the tiled kernel
//   kstream_p2    kstream with {256 threads, 2 packs in flight, 1 chunk} (p4: 4; strided only)
//   range_raw     RangePolicy, raw pointers and strides, one element per thread
//   team_raw256   TeamPolicy of 256-thread teams, raw pointers, one element per thread
//   team_raw256x2 the same with two elements per thread, both loaded before either is stored (x4: four; strided
//                 only)
//   cuda_raw128   a plain __global__ kernel, 128-thread blocks, one element per thread
//
//   strided_kernels [max_log2 = 28 [min_log2 = 20 [strided | contiguous [once]]]]
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
using Plain = Kokkos::View<T*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
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

/// The suite's layouts this program runs: a stride, or element offsets of x, y, z and out (bench_support.hpp).
struct Layout {
  const char* name;
  std::int64_t stride;
  std::int64_t x, y, z, out_add, out_fma;
};
constexpr Layout strided_layouts[] = {{"stride2", 2, 0, 0, 0, 0, 0}, {"stride3", 3, 0, 0, 0, 0, 0}};
constexpr Layout contiguous_layouts[] = {
    {"aligned", 1, 0, 0, 0, 0, 0}, {"offset1", 1, 1, 1, 1, 1, 1}, {"offsets123", 1, 1, 2, 3, 3, 1}};

template <class T, bool Fma>
__global__ void cuda_raw(Raw<T, Fma> f) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < f.n) f(i);
}

/// "once" (fourth argument): every variant makes one call per configuration, without rounds or warm-up, for a
/// profiler (ncu) to read each kernel once.
bool& once() {
  static bool value = false;
  return value;
}

template <class T, bool Fma>
void run(std::int64_t n, const Layout& layout) {
  const Exec exec;
  const std::int64_t s = layout.stride, out_offset = Fma ? layout.out_fma : layout.out_add;
  const std::int64_t extent = n * s + 3;  // room for the largest offset
  Kokkos::View<T*, Kokkos::CudaSpace> px("x", extent), py("y", extent), pz("z", extent), po("o", extent);
  Kokkos::deep_copy(px, T(1.5));
  Kokkos::deep_copy(py, T(0.5));
  Kokkos::deep_copy(pz, T(0.25));
  Raw<T, Fma> raw{px.data() + layout.x, py.data() + layout.y, pz.data() + layout.z, po.data() + out_offset, n, s};
  const Raw<T, Fma, 2> raw2{raw.x, raw.y, raw.z, raw.out, n, s};
  const Raw<T, Fma, 4> raw4{raw.x, raw.y, raw.z, raw.out, n, s};
  const int reps = once() ? 1 : n <= (1 << 20) ? 50 : n <= (1 << 24) ? 10 : 4;
  auto repeat = [&](auto&& call) {
    return [=] {
      for (int r = 0; r < reps; ++r) call();
      exec.fence();
    };
  };
  // kstream and naive calls on views of raw's pointers: LayoutStride views where strided, plain ones where not
  // (as the suite's).
  std::function<std::function<void()>(kstream::TileShape)> kstream_call;
  std::function<void()> naive_call;
  auto bind = [&](auto x, auto y, auto z, auto out) {
    kstream_call = [=](kstream::TileShape shape_) {
      return repeat([=] {
        if constexpr (Fma) {
          kstream::fma(exec, x, y, z, out, shape_);
        } else {
          kstream::add(exec, x, y, out, shape_);
        }
      });
    };
    naive_call = repeat([=] {
      if constexpr (Fma) {
        kstream::naive::fma(exec, x, y, z, out);
      } else {
        kstream::naive::add(exec, x, y, out);
      }
    });
  };
  if (s == 1) {
    bind(Plain<const T>(raw.x, n), Plain<const T>(raw.y, n), Plain<const T>(raw.z, n), Plain<T>(raw.out, n));
  } else {
    const Kokkos::LayoutStride shape(n, s);
    bind(Strided<const T>(raw.x, shape), Strided<const T>(raw.y, shape), Strided<const T>(raw.z, shape),
         Strided<T>(raw.out, shape));
  }
  const kstream::TileShape t128{128, 1, 1}, p2{256, 2, 1}, p4{256, 4, 1};
  const int league128 = int((n + 127) / 128), league256 = int((n + 255) / 256), league512 = int((n + 511) / 512),
            league1024 = int((n + 1023) / 1024);
  // A TeamPolicy launch of `f`, repeated.
  auto team_call = [&](const char* label, int league, int team_size, auto f) {
    return repeat([=] { Kokkos::parallel_for(label, Kokkos::TeamPolicy<Exec>(exec, league, team_size), f); });
  };
  auto range_call = [&](const char* label, auto f) {
    return repeat([=] {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n), f);
    });
  };
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"naive", naive_call},
      {"naive_again", naive_call},
      {"kstream", kstream_call(kstream::default_tile_shape<Exec>())},
      {"kstream_p2", kstream_call(p2)},
      {"range_raw", range_call("range_raw", raw)},
      {"team_raw256", team_call("team_raw256", league256, 256, raw)},
      {"team_raw256x2", team_call("team_raw256x2", league512, 256, raw2)},
      {"cuda_raw128", repeat([=] { cuda_raw<<<unsigned(league128), 128, 0, exec.cuda_stream()>>>(raw); })},
  };
  if (s != 1) {
    vs.push_back({"kstream_t128", kstream_call(t128)});
    vs.push_back({"kstream_p4", kstream_call(p4)});
    vs.push_back({"team_raw256x4", team_call("team_raw256x4", league1024, 256, raw4)});
  } else {
    vs.push_back({"kstream_t128", kstream_call(t128)});
  }
  if (once()) {
    for (const auto& variant : vs) variant.second();
    return;
  }
  const auto t = paired_rounds(vs, 1);
  const double naive = t[0][t[0].size() / 2];
  for (std::size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    const double median = v[v.size() / 2] / reps;
    std::printf("%s %-6s %-10s n=2^%-2d %-14s median %9.3f us  p10 %9.3f p90 %9.3f  naive/variant %.4f\n",
                Fma ? "fma" : "add", sizeof(T) == 4 ? "float" : "double", layout.name,
                int(std::bit_width(std::uint64_t(n)) - 1), vs[k].first, median, v[v.size() / 10] / reps,
                v[v.size() * 9 / 10] / reps, naive / v[v.size() / 2]);
  }
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 28, min_log2 = argc > 2 ? std::atoi(argv[2]) : 20;
    const bool contiguous = argc > 3 && std::string(argv[3]) == "contiguous";
    once() = argc > 4 && std::string(argv[4]) == "once";
    for (int log2 : {20, 22, 24, 28}) {
      if (log2 > max_log2 || log2 < min_log2) continue;
      const std::int64_t n = std::int64_t(1) << log2;
      if (contiguous) {  // doubles: unequally aligned floats run 1.28-1.73x naive (bench/results/README.md)
        for (const Layout& layout : contiguous_layouts) {
          run<double, false>(n, layout);
          run<double, true>(n, layout);
        }
      } else {
        for (const Layout& layout : strided_layouts) {
          run<float, false>(n, layout);
          run<float, true>(n, layout);
          run<double, false>(n, layout);
          run<double, true>(n, layout);
        }
      }
    }
  }
  Kokkos::finalize();
}

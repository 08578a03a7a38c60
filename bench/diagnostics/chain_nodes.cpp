// Diagnostic, not part of the build: what one node of a recorded chain costs on a GPU. chain64 (64 dependent
// add/fma nodes, like the suite's chain64) as Kokkos Graphs of different kernels, and as a native CUDA graph of
// plain kernels, in paired rounds (31 rounds, the variants taking turns; bench/diagnostics/paired_rounds.hpp).
// Prints the median and p10/p90 microseconds per node for n = 4096, 65536 and 2^20 (up to 2^max_log2, argument):
//   kstream          kstream::record, every view 16-byte aligned (the packed strategy)
//   kstream_offsets  kstream::record with x + 1, y + 2, out + 3 elements (the contiguous strategy)
//   team_scalar      TeamPolicy, 256-thread teams, one element per thread, nothing else
//   team_pack        TeamPolicy, 256-thread teams, one 16-byte pack per thread (kstream's shape, minimal code)
//   team_pack64      the same with 64-thread teams (4x the blocks)
//   cuda_graph       plain __global__ kernels, 256-thread blocks, captured from a stream
//
//   <kokkos>/bin/nvcc_wrapper -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -I<build>/include \
//       -I<kokkos>/include -x cu bench/diagnostics/chain_nodes.cpp -x none src/*.cpp -L<kokkos>/lib \
//       -lkokkoscore -lcuda -ldl -o chain_nodes
#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>
#include <kstream/kstream.hpp>

#include "paired_rounds.hpp"
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using Exec = Kokkos::Cuda;
using V = Kokkos::View<float*, Kokkos::CudaSpace>;
using Member = Kokkos::TeamPolicy<Exec>::member_type;
constexpr int steps = 64;

struct alignas(16) F4 {
  float v[4];
};

enum class Kind { scalar, pack };

template <Kind K, bool Fma>
struct Step {
  const float* a;
  const float* b;
  const float* c;
  float* out;
  int items;  // elements (scalar) or packs
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int i = team.league_rank() * team.team_size() + team.team_rank();
    if (i >= items) return;
    if constexpr (K == Kind::scalar) {
      out[i] = Fma ? a[i] * b[i] + c[i] : a[i] + b[i];
    } else {
      const F4 x = reinterpret_cast<const F4*>(a)[i], y = reinterpret_cast<const F4*>(b)[i];
      F4 r;
      if constexpr (Fma) {
        const F4 z = reinterpret_cast<const F4*>(c)[i];
        for (int l = 0; l < 4; ++l) r.v[l] = x.v[l] * y.v[l] + z.v[l];
      } else {
        for (int l = 0; l < 4; ++l) r.v[l] = x.v[l] + y.v[l];
      }
      reinterpret_cast<F4*>(out)[i] = r;
    }
  }
};

__global__ void add_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + y[i];
}
__global__ void fma_kernel(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                           float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(a[i], b[i], c[i]);
}

struct Operands {
  V x, y, ones, tmp0, out;  // each with 4 spare elements at the end, for the offset views
  int n;
  explicit Operands(int n_) : x("x", n_ + 4), y("y", n_ + 4), ones("ones", n_ + 4), tmp0("t", n_ + 4), out("o", n_ + 4), n(n_) {
    Kokkos::deep_copy(x, 1.0f);
    Kokkos::deep_copy(y, 0.5f);
    Kokkos::deep_copy(ones, 1.0f);
  }
  V at(const V& v, int offset) const { return Kokkos::subview(v, std::make_pair(offset, offset + n)); }
};

// The suite's chain: out = ((first + x) * 1 + y), 32 times, first = x, then out.
template <class Add, class Fma>
void chain(const Operands& o, int shift, Add&& add, Fma&& fma) {
  for (int j = 0; j < steps / 2; ++j) {
    add(o.at(j == 0 ? o.x : o.out, j == 0 ? shift : 3 * shift), o.at(o.x, shift), o.at(o.tmp0, 2 * shift));
    fma(o.at(o.tmp0, 2 * shift), o.at(o.ones, shift), o.at(o.y, 2 * shift), o.at(o.out, 3 * shift));
  }
}

template <Kind K>
Kokkos::Experimental::Graph<Exec> minimal_graph(const Operands& o, int team) {
  return Kokkos::Experimental::create_graph<Exec>([&](const auto& root) {
    Kokkos::Experimental::GraphNodeRef<Exec> last = root;
    const int items = K == Kind::scalar ? o.n : o.n / 4;
    const int league = (items + team - 1) / team;
    chain(
        o, 0,
        [&](const V& a, const V& b, const V& out) {
          last = last.then_parallel_for("add", Kokkos::TeamPolicy<Exec>(league, team),
                                        Step<K, false>{a.data(), b.data(), nullptr, out.data(), items});
        },
        [&](const V& a, const V& b, const V& c, const V& out) {
          last = last.then_parallel_for("fma", Kokkos::TeamPolicy<Exec>(league, team),
                                        Step<K, true>{a.data(), b.data(), c.data(), out.data(), items});
        });
  });
}

void run(int n) {
  const Operands o(n);
  const Exec exec;
  auto recorded = [&](int shift) {
    return kstream::record(exec, [&](kstream::Recorder<Exec>& r) {
      chain(
          o, shift, [&](const V& a, const V& b, const V& out) { r.add(a, b, out); },
          [&](const V& a, const V& b, const V& c, const V& out) { r.fma(a, b, c, out); });
    });
  };
  auto aligned = recorded(0), offsets = recorded(1);
  auto scalar = minimal_graph<Kind::scalar>(o, 256), pack = minimal_graph<Kind::pack>(o, 256),
       pack64 = minimal_graph<Kind::pack>(o, 64);
  cudaStream_t stream = exec.cuda_stream();
  cudaGraph_t captured{};
  cudaGraphExec_t native{};
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  const unsigned grid = unsigned((n + 255) / 256);
  chain(
      o, 0, [&](const V& a, const V& b, const V& out) { add_kernel<<<grid, 256, 0, stream>>>(a.data(), b.data(), out.data(), n); },
      [&](const V& a, const V& b, const V& c, const V& out) {
        fma_kernel<<<grid, 256, 0, stream>>>(a.data(), b.data(), c.data(), out.data(), n);
      });
  cudaStreamEndCapture(stream, &captured);
  cudaGraphInstantiate(&native, captured, 0);
  const int reps = n <= 65536 ? 100 : 20;
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"kstream", [&] { for (int r = 0; r < reps; ++r) aligned.submit(); exec.fence(); }},
      {"kstream_offsets", [&] { for (int r = 0; r < reps; ++r) offsets.submit(); exec.fence(); }},
      {"team_scalar", [&] { for (int r = 0; r < reps; ++r) scalar.submit(exec); exec.fence(); }},
      {"team_pack", [&] { for (int r = 0; r < reps; ++r) pack.submit(exec); exec.fence(); }},
      {"team_pack64", [&] { for (int r = 0; r < reps; ++r) pack64.submit(exec); exec.fence(); }},
      {"cuda_graph", [&] { for (int r = 0; r < reps; ++r) cudaGraphLaunch(native, stream); cudaStreamSynchronize(stream); }},
  };
  const auto t = paired_rounds(vs, 1);
  for (std::size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    const double per_node = 1.0 / (reps * steps);
    std::printf("chain64 float n=%d %-16s median %7.3f us/node  p10 %7.3f p90 %7.3f\n", n, vs[k].first,
                v[v.size() / 2] * per_node, v[v.size() / 10] * per_node, v[v.size() * 9 / 10] * per_node);
  }
  cudaGraphExecDestroy(native);
  cudaGraphDestroy(captured);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 20;  // n = 4096, 65536 (, 2^20)
  for (int n : {4096, 65536, 1 << 20})
    if (n <= (1 << max_log2)) run(n);
  Kokkos::finalize();
}

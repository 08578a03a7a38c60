// Native CUDA peers on the same storage and stream as the Kokkos variants: a plain one-element-per-thread
// kernel, cub::DeviceTransform (CCCL, shipped with the CUDA toolkit), cudaMemcpy device to device, and the
// plain launch floor (an empty CUDA kernel, and a CUDA graph of it, with the grid of the Kokkos floor rows).
#include <kstream/impl/elementwise_ops.hpp>  // the same operations as kstream: only the kernels differ
#include <kstream/reduce.hpp>
#include <kstream/tiling.hpp>

#include "bench_support.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cublas_v2.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_transform.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cuda/std/tuple>
#include <map>
#include <string>

namespace kstream::bench {
namespace {

template <class T>
__global__ void add_kernel(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + y[i];
}

template <class T>
__global__ void fma_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                           T* __restrict__ out, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ::fma(a[i], b[i], c[i]);
}

__global__ void empty_kernel() {}

/// A CUDA graph of one empty kernel, built on its first launch and destroyed with the benchmark variants.
struct EmptyGraph {
  cudaGraphExec_t exec = nullptr;
  void launch(int league, int team, cudaStream_t stream) {
    if (!exec) {
      cudaGraph_t graph;
      cudaGraphCreate(&graph, 0);
      cudaKernelNodeParams node{};
      node.func = reinterpret_cast<void*>(empty_kernel);
      node.gridDim = dim3(unsigned(league));
      node.blockDim = dim3(unsigned(team));
      cudaGraphNode_t added;
      cudaGraphAddKernelNode(&added, graph, nullptr, 0, &node);
      cudaGraphInstantiate(&exec, graph, 0);
      cudaGraphDestroy(graph);
    }
    cudaGraphLaunch(exec, stream);
  }
  ~EmptyGraph() {
    if (exec) cudaGraphExecDestroy(exec);
  }
};

/// Instantiated CUDA graphs by operand set, destroyed with the benchmark variants (before Kokkos finalizes).
template <class T>
struct CudaGraphCache {
  std::map<std::pair<const T*, std::int64_t>, cudaGraphExec_t> graphs;
  cudaGraphExec_t& slot(const T* out, std::int64_t n) { return graphs[{out, n}]; }
  ~CudaGraphCache() {
    for (auto& [key, exec] : graphs)
      if (exec) cudaGraphExecDestroy(exec);
  }
};

/// x(i) * y(i) in Acc, for cub's transform-reduce over the indices.
template <class T, class Acc>
struct DotAt {
  const T* x;
  const T* y;
  __host__ __device__ Acc operator()(std::int64_t i) const { return Acc(x[i]) * Acc(y[i]); }
};
/// cub's temporary storage, grown as needed and freed with the benchmark variants.
struct CubTemp {
  void* data = nullptr;
  std::size_t bytes = 0;
  void* reserve(std::size_t need) {
    if (need > bytes) {
      if (data) cudaFree(data);
      cudaMalloc(&data, need);
      bytes = need;
    }
    return data;
  }
  ~CubTemp() {
    if (data) cudaFree(data);
  }
};
/// A cuBLAS handle whose results go to device memory (so a call does not wait for them).
struct CublasHandle {
  cublasHandle_t handle{};
  CublasHandle() {
    cublasCreate(&handle);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
  }
  ~CublasHandle() { cublasDestroy(handle); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
};

constexpr int block = 256;
inline unsigned grid_for(std::int64_t n) {
  return unsigned((n + block - 1) / block);
}

template <class T>
void add_peers(std::vector<Variant<Kokkos::Cuda, T>>& variants) {
  using O = Operands<Kokkos::Cuda, T>;
  auto stream = [] { return Kokkos::Cuda().cuda_stream(); };
  variants.push_back({Op::copy, "cudaMemcpy", [=](const O& o) {
                        cudaMemcpyAsync(o.out.data(), o.x.data(), o.n * sizeof(T), cudaMemcpyDeviceToDevice, stream());
                      }});
  variants.push_back({Op::add, "cuda_kernel",
                      [=](const O& o) {
                        add_kernel<<<grid_for(o.n), block, 0, stream()>>>(o.x.data(), o.y.data(), o.out.data(), o.n);
                      },
                      false, true});
  variants.push_back({Op::fma, "cuda_kernel",
                      [=](const O& o) {
                        fma_kernel<<<grid_for(o.n), block, 0, stream()>>>(o.x.data(), o.y.data(), o.z.data(),
                                                                          o.out.data(), o.n);
                      },
                      false, true});
  variants.push_back({Op::add, "cub_transform",
                      [=](const O& o) {
                        cub::DeviceTransform::Transform(::cuda::std::make_tuple(o.x.data(), o.y.data()), o.out.data(),
                                                        o.n, impl::Plus{}, stream());
                      },
                      false, true});
  variants.push_back({Op::fma, "cub_transform",
                      [=](const O& o) {
                        cub::DeviceTransform::Transform(::cuda::std::make_tuple(o.x.data(), o.y.data(), o.z.data()),
                                                        o.out.data(), o.n, impl::FusedMultiplyAdd{}, stream());
                      },
                      false, true});
  // chain64 (bench_support.hpp) as a CUDA programmer writes it: 64 cub calls, 64 plain kernel launches, and those
  // launches captured once into a CUDA graph (stream capture) and replayed with one cudaGraphLaunch.
  auto launch_chain = [=](const O& o, auto&& add, auto&& fma) {
    for (int j = 0; j < chain64_steps / 2; ++j) {
      add(j == 0 ? o.x.data() : o.out.data(), o.x.data(), o.tmp0.data());
      fma(o.tmp0.data(), o.ones.data(), o.y.data(), o.out.data());
    }
  };
  variants.push_back({Op::chain64, "cub_eager", [=](const O& o) {
                        launch_chain(
                            o,
                            [&](const T* a, const T* b, T* out) {
                              cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), out, o.n, impl::Plus{},
                                                              stream());
                            },
                            [&](const T* a, const T* b, const T* c, T* out) {
                              cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b, c), out, o.n,
                                                              impl::FusedMultiplyAdd{}, stream());
                            });
                      }});
  auto plain_chain = [=](const O& o, cudaStream_t s) {
    launch_chain(
        o, [&](const T* a, const T* b, T* out) { add_kernel<<<grid_for(o.n), block, 0, s>>>(a, b, out, o.n); },
        [&](const T* a, const T* b, const T* c, T* out) {
          fma_kernel<<<grid_for(o.n), block, 0, s>>>(a, b, c, out, o.n);
        });
  };
  variants.push_back({Op::chain64, "cuda_launches", [=](const O& o) { plain_chain(o, stream()); }});
  auto graphs = std::make_shared<CudaGraphCache<T>>();
  variants.push_back({Op::chain64, "cuda_graph", [=](const O& o) {
                        cudaGraphExec_t& exec = graphs->slot(o.out.data(), o.n);
                        if (!exec) {  // captured on the first (warm-up) call
                          cudaStream_t s = stream();
                          cudaGraph_t graph{};
                          cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
                          plain_chain(o, s);
                          cudaStreamEndCapture(s, &graph);
                          cudaGraphInstantiate(&exec, graph, 0);
                          cudaGraphDestroy(graph);
                        }
                        cudaGraphLaunch(exec, stream());
                      }});
  // dot: cub's transform-reduce over x(i) * y(i) in the accumulator kstream uses, and cuBLAS (its own float or
  // double accumulation), each into device memory on the Kokkos stream.
  using Acc = kstream::accumulator_t<T>;
  auto cub_result = std::make_shared<Kokkos::View<Acc, Kokkos::CudaSpace>>("bench_dot_cub");
  auto cub_temp = std::make_shared<CubTemp>();
  variants.push_back(reduction_variant<Kokkos::Cuda, T>(
      Op::dot, "cub_reduce",
      [=](const O& o) {
        const DotAt<T, Acc> at{o.x.data(), o.y.data()};
        const thrust::counting_iterator<std::int64_t> first(0);
        std::size_t bytes = 0;
        cub::DeviceReduce::TransformReduce(nullptr, bytes, first, cub_result->data(), o.n, ::cuda::std::plus<>{}, at,
                                           Acc(0), stream());
        cub::DeviceReduce::TransformReduce(cub_temp->reserve(bytes), bytes, first, cub_result->data(), o.n,
                                           ::cuda::std::plus<>{}, at, Acc(0), stream());
      },
      reader(cub_result), 0.0));
  auto blas = std::make_shared<CublasHandle>();
  auto blas_result = std::make_shared<Kokkos::View<T, Kokkos::CudaSpace>>("bench_dot_cublas");
  variants.push_back(reduction_variant<Kokkos::Cuda, T>(
      Op::dot, "cublas",
      [=](const O& o) {
        cublasSetStream(blas->handle, stream());
        if constexpr (std::is_same_v<T, float>) {
          cublasSdot(blas->handle, int(o.n), o.x.data(), 1, o.y.data(), 1, blas_result->data());
        } else {
          cublasDdot(blas->handle, int(o.n), o.x.data(), 1, o.y.data(), 1, blas_result->data());
        }
      },
      reader(blas_result), std::is_same_v<T, float> ? 1e-3 : 1e-12));
  {
    // The plain launch floor, on the grid of the kokkos_team floor row (kstream_bench.cpp): kstream's add at n
    // elements launches one team per tile of 16-byte packs, so the difference is Kokkos' launch path, not work.
    const TileShape shape = default_tile_shape<Kokkos::Cuda>();
    auto league = [=](const O& o) { return floor_league(o.n, sizeof(T), shape); };
    variants.push_back({Op::empty, "cuda_kernel",
                        [=](const O& o) { empty_kernel<<<league(o), shape.team_size, 0, stream()>>>(); }, true});
    auto graph = std::make_shared<EmptyGraph>();
    variants.push_back(
        {Op::empty, "cuda_graph", [=](const O& o) { graph->launch(league(o), shape.team_size, stream()); }, true});
  }
}

// 16-bit peers: cub::DeviceTransform on CUDA's own __half / __nv_bfloat16 (kstream's half_t / bhalf_t wrap them,
// same bytes), computing in float and rounding once, as kstream and PyTorch do.
struct HalfPlus {
  __device__ __half operator()(__half a, __half b) const { return __float2half(__half2float(a) + __half2float(b)); }
};
struct HalfFma {
  __device__ __half operator()(__half a, __half b, __half c) const {
    return __float2half(fmaf(__half2float(a), __half2float(b), __half2float(c)));
  }
};
struct Bf16Plus {
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const {
    return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
  }
};
struct Bf16Fma {
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) const {
    return __float2bfloat16(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
  }
};

template <class Native, class T, class Plus, class Fma>
void add_16bit_peers(std::vector<Variant<Kokkos::Cuda, T>>& variants) {
  static_assert(sizeof(Native) == sizeof(T));
  using O = Operands<Kokkos::Cuda, T>;
  auto stream = [] { return Kokkos::Cuda().cuda_stream(); };
  auto native = [](const auto& v) { return reinterpret_cast<Native*>(v.data()); };
  variants.push_back({Op::copy, "cudaMemcpy", [=](const O& o) {
                        cudaMemcpyAsync(o.out.data(), o.x.data(), o.n * sizeof(T), cudaMemcpyDeviceToDevice, stream());
                      }});
  variants.push_back({Op::add, "cub_transform",
                      [=](const O& o) {
                        cub::DeviceTransform::Transform(::cuda::std::make_tuple(native(o.x), native(o.y)),
                                                        native(o.out), o.n, Plus{}, stream());
                      },
                      false, true});
  variants.push_back({Op::fma, "cub_transform",
                      [=](const O& o) {
                        cub::DeviceTransform::Transform(::cuda::std::make_tuple(native(o.x), native(o.y), native(o.z)),
                                                        native(o.out), o.n, Fma{}, stream());
                      },
                      false, true});
}

}  // namespace

void add_native_peers(std::vector<Variant<Kokkos::Cuda, float>>& variants) {
  add_peers(variants);
}
void add_native_peers(std::vector<Variant<Kokkos::Cuda, double>>& variants) {
  add_peers(variants);
}
#if !KOKKOS_HALF_T_IS_FLOAT
void add_native_peers(std::vector<Variant<Kokkos::Cuda, Kokkos::Experimental::half_t>>& variants) {
  add_16bit_peers<__half, Kokkos::Experimental::half_t, HalfPlus, HalfFma>(variants);
}
#endif
#if !KOKKOS_BHALF_T_IS_FLOAT
void add_native_peers(std::vector<Variant<Kokkos::Cuda, Kokkos::Experimental::bhalf_t>>& variants) {
  add_16bit_peers<__nv_bfloat16, Kokkos::Experimental::bhalf_t, Bf16Plus, Bf16Fma>(variants);
}
#endif

}  // namespace kstream::bench
#endif

#pragma once
// add and fma of float, double and (where Kokkos has them) half_t and bhalf_t, one dimension (rank 1, or views
// that normalize to one), run now or recorded, on every backend this Kokkos enables: compiled once in the kstream
// library (src/instantiate.cpp.in, one file per backend and type), so the programs that call them link those
// kernels instead of compiling them again.
// Any other call (a transform's own operation, other types) is compiled where it is made, as any template.
#include <Kokkos_Core.hpp>
#include <kstream/impl/elementwise_ops.hpp>

// The add and fma kernels of one space and element type, with sink SINK; PREFIX is `extern` (declaration) or empty
// (definition).
#define KSTREAM_ELEMENTWISE_OPS(PREFIX, SINK, SPACE, T)                                                          \
  PREFIX template void kstream::impl::launch_flat<SINK, SPACE, kstream::impl::Plus, T, T, T>(                    \
      const SINK&, const char*, const SPACE&, const kstream::TileShape&, const kstream::impl::Plan&,             \
      const kstream::impl::Plus&, const kstream::impl::Operand&, const kstream::impl::Operand*);                 \
  PREFIX template void kstream::impl::launch_flat<SINK, SPACE, kstream::impl::FusedMultiplyAdd, T, T, T, T>(     \
      const SINK&, const char*, const SPACE&, const kstream::TileShape&, const kstream::impl::Plan&,             \
      const kstream::impl::FusedMultiplyAdd&, const kstream::impl::Operand&, const kstream::impl::Operand*);

#define KSTREAM_INSTANTIATE(PREFIX, SPACE, T)                         \
  KSTREAM_ELEMENTWISE_OPS(PREFIX, kstream::impl::LaunchNow, SPACE, T) \
  KSTREAM_ELEMENTWISE_OPS(PREFIX, kstream::impl::AppendToGraph<SPACE>, SPACE, T)

// The element types compiled in the library: float and double; half_t and bhalf_t where they are 16-bit types
// (where Kokkos makes them float they are float's kernels already).
#if !KOKKOS_HALF_T_IS_FLOAT
#define KSTREAM_INSTANTIATE_HALF(PREFIX, SPACE) KSTREAM_INSTANTIATE(PREFIX, SPACE, Kokkos::Experimental::half_t)
#else
#define KSTREAM_INSTANTIATE_HALF(PREFIX, SPACE)
#endif
#if !KOKKOS_BHALF_T_IS_FLOAT
#define KSTREAM_INSTANTIATE_BHALF(PREFIX, SPACE) KSTREAM_INSTANTIATE(PREFIX, SPACE, Kokkos::Experimental::bhalf_t)
#else
#define KSTREAM_INSTANTIATE_BHALF(PREFIX, SPACE)
#endif

#define KSTREAM_INSTANTIATE_ALL_TYPES(PREFIX, SPACE) \
  KSTREAM_INSTANTIATE(PREFIX, SPACE, float)          \
  KSTREAM_INSTANTIATE(PREFIX, SPACE, double)         \
  KSTREAM_INSTANTIATE_HALF(PREFIX, SPACE)            \
  KSTREAM_INSTANTIATE_BHALF(PREFIX, SPACE)

#if !defined(KSTREAM_COMPILING_INSTANTIATIONS)
#if defined(KOKKOS_ENABLE_SERIAL)
KSTREAM_INSTANTIATE_ALL_TYPES(extern, Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
KSTREAM_INSTANTIATE_ALL_TYPES(extern, Kokkos::OpenMP)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
KSTREAM_INSTANTIATE_ALL_TYPES(extern, Kokkos::Cuda)
#endif
#if defined(KOKKOS_ENABLE_HIP)
KSTREAM_INSTANTIATE_ALL_TYPES(extern, Kokkos::HIP)
#endif
#endif

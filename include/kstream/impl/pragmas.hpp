#pragma once
// Loop pragmas of the kernels, for device and host compilers alike (no Kokkos needed).

// Keeps a loop rolled in device code (CUDA, HIP), or unrolls it (a loop over register arrays: rolled, the arrays
// would live in local memory); nothing on the host.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KSTREAM_DEVICE_NO_UNROLL _Pragma("unroll 1")
#define KSTREAM_DEVICE_UNROLL _Pragma("unroll")
#else
#define KSTREAM_DEVICE_NO_UNROLL
#define KSTREAM_DEVICE_UNROLL
#endif

// Iterations of the host loops are independent (each element is read before it is written).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__NVCC__)
#define KSTREAM_IVDEP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define KSTREAM_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define KSTREAM_IVDEP
#endif

// A host loop of a few elements that must not be vectorized: a vector body with its preamble and remainder costs
// more than the loop (g++ 16 vectorized the short-row loop at -O3, 2x slower; GCC has novector from version 14).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__NVCC__) && __GNUC__ >= 14
#define KSTREAM_NO_VECTOR _Pragma("GCC novector")
#elif defined(__clang__) && !defined(__CUDA__) && !defined(__HIP__)
#define KSTREAM_NO_VECTOR _Pragma("clang loop vectorize(disable)")
#else
#define KSTREAM_NO_VECTOR
#endif

#pragma once
// How a host tile writes its packs past the caches: x86 streaming stores, then a store fence (plain stores
// elsewhere). When they are used: kstream/streaming_stores.hpp and the plan (src/plan.cpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__)
#include <emmintrin.h>
#define KSTREAM_HOST_STREAMING_STORES 1
#else
#define KSTREAM_HOST_STREAMING_STORES 0
#endif

namespace kstream::impl {

inline void host_streaming_store_16(void* target, const void* value) {
#if KSTREAM_HOST_STREAMING_STORES
  __m128i bits;
  std::memcpy(&bits, value, 16);
  _mm_stream_si128(static_cast<__m128i*>(target), bits);
#else
  std::memcpy(target, value, 16);
#endif
}

inline void host_store_fence() {
#if KSTREAM_HOST_STREAMING_STORES
  _mm_sfence();
#endif
}

/// Writes one 16-byte pack past the caches (host x86); a plain store on a device.
template <class Pack>
KOKKOS_FORCEINLINE_FUNCTION void streaming_store(Pack* target, const Pack& value) {
  static_assert(sizeof(Pack) == 16, "streaming stores move 16-byte packs");
  KOKKOS_IF_ON_HOST((host_streaming_store_16(target, &value);))
  KOKKOS_IF_ON_DEVICE((*target = value;))
}

/// Orders this thread's streaming stores before anything it does next (the kernel's join).
KOKKOS_FORCEINLINE_FUNCTION void streaming_store_fence() {
  KOKKOS_IF_ON_HOST((host_store_fence();))
}

}  // namespace kstream::impl

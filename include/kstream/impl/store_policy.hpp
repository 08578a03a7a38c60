#pragma once
// How the tiled engine writes its packs: plain stores, or (host x86, large outputs) streaming stores followed by
// a store fence. The policy and its reasons are in kstream/streaming_stores.hpp.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <kstream/streaming_stores.hpp>
#include <kstream/tiling.hpp>

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

/// Bytes a call moves: every operand's elements once.
template <class OutView, class... InViews>
std::int64_t operand_bytes(const OutView& out, const InViews&...) {
  return std::int64_t(out.extent(0)) * (std::int64_t(sizeof(typename OutView::value_type)) +
                                        (std::int64_t(sizeof(typename InViews::value_type)) + ...));
}

/// Whether a contiguous call on ExecSpace may write `out` with streaming stores (see kstream/streaming_stores.hpp).
template <class ExecSpace, class OutView, class... InViews>
bool use_streaming_stores(const OutView& out, const InViews&... ins) {
  if constexpr (is_device_execution_space_v<ExecSpace> || !KSTREAM_HOST_STREAMING_STORES) {
    return false;
  } else {
    const StreamingStores mode = streaming_stores();
    if (mode == StreamingStores::never) return false;
    const void* target = out.data();
    if (((static_cast<const void*>(ins.data()) == target) || ...)) return false;  // re-read right away: keep in cache
    if (mode == StreamingStores::always) return true;
    return operand_bytes(out, ins...) >= 2 * last_level_cache_bytes();
  }
}

}  // namespace kstream::impl

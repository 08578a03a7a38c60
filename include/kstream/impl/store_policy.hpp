#pragma once
// How a host tile writes its packs past the caches: x86 streaming stores, then a store fence (plain stores
// elsewhere). When they are used: kstream/streaming_stores.hpp and the plan (src/plan.cpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/plan.hpp>  // elements_per_pack
#include <kstream/impl/pragmas.hpp>
#include <kstream/impl/slots.hpp>
#include <utility>

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

/// Elements [first, last) of contiguous operands on one host thread: a plain loop the compiler vectorizes, or
/// with streaming stores the output's whole 64-byte lines in 16-byte packs past the caches and the partial lines
/// at either end (a short row's, an unaligned start's) with plain stores: a streaming store of part of a line
/// costs a memory transaction of its own. The inputs are read at their own alignment. `ahead` (optional): what
/// the thread reads next, element i of it fetched into the cache beside the streaming stores of element i (a row
/// operation reads its next slice while it writes one).
template <class Op, class OutT, class Seq, class... InTs, std::size_t... Is, class Ahead = char>
void host_elements(const Op op, OutT* target, const Slots<Seq, const InTs*...>& in, std::int64_t first,
                   std::int64_t last, bool streaming, std::index_sequence<Is...>, const Ahead* ahead = nullptr) {
  constexpr int W = elements_per_pack(sizeof(OutT));
  if constexpr (W > 1) {
    if (streaming) {
      constexpr std::int64_t line = 64 / std::int64_t(sizeof(OutT));  // elements of one cache line
      const std::int64_t into_line =
          std::int64_t(reinterpret_cast<std::uintptr_t>(target + first) % 64) / std::int64_t(sizeof(OutT));
      const std::int64_t lines_from = std::min(last, first + (into_line == 0 ? 0 : line - into_line));
      const std::int64_t lines_to = lines_from + (last - lines_from) / line * line;
      KSTREAM_IVDEP
      for (std::int64_t i = first; i < lines_from; ++i) target[i] = op(get<Is>(in)[i]...);
      for (std::int64_t i = lines_from; i < lines_to; i += line) {
        for (std::size_t byte = 0; ahead != nullptr && byte < line * sizeof(Ahead); byte += 64)
          __builtin_prefetch(reinterpret_cast<const char*>(ahead + i) + byte, 0, 3);
        alignas(64) OutT result[line];  // a line computed in a loop that vectorizes, then streamed in packs
        for (int lane = 0; lane < line; ++lane) result[lane] = op(get<Is>(in)[i + lane]...);
        for (int pack = 0; pack < line / W; ++pack)
          streaming_store(reinterpret_cast<Pack<OutT, W>*>(target + i) + pack,
                          *reinterpret_cast<const Pack<OutT, W>*>(result + pack * W));
      }
      KSTREAM_IVDEP
      for (std::int64_t i = lines_to; i < last; ++i) target[i] = op(get<Is>(in)[i]...);
      return;
    }
  }
  KSTREAM_IVDEP
  for (std::int64_t i = first; i < last; ++i) target[i] = op(get<Is>(in)[i]...);
}

}  // namespace kstream::impl

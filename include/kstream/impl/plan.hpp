#pragma once
// The plan of one elementwise call: which access strategy runs and how it is launched, decided from plain facts
// about the call (the space, each operand's address, stride and element size, n, the tile shape). One
// non-template function compiled once in src/plan.cpp; the tests call it with device facts on any host, so CI
// checks every decision. The numbers behind each row are in docs/engine.md.
//
//   condition (first match)                                                               strategy
//   n == 0                                                                                nothing runs
//   device, default shape, some view strided, every stride < 2^31, and not elements of
//     fewer than 8 bytes whose operands fit the device's last-level cache                elements
//   every view contiguous, one element size that divides 16 bytes, every address equal
//     modulo 16 bytes (and a multiple of the element size)                                packed
//   device, elements of 1 or 2 bytes, every view contiguous and element-aligned, at most
//     max_shifted_inputs inputs, n long enough for one shifted pack                       shifted
//   every view contiguous                                                                 contiguous
//   otherwise                                                                             strided
//
// packed      each thread moves whole 16-byte packs: | head scalars | body of packs | tail scalars |.
// shifted     like packed for the output; each input's pack is built from the two aligned packs that hold its
//             elements, shifted in registers (16-bit views at unequal alignments).
// contiguous  single elements, one pack's worth per thread and input in flight, block-strided across the team
//             (each load instruction of a warp reads adjacent elements).
// strided     as contiguous, with the strides applied.
// elements    one element per index of a RangePolicy from a functor of pointers and 32-bit strides.
//
// Launch: on a device one TeamPolicy team per tile (elements: a RangePolicy). On a host a RangePolicy of tiles,
// each one thread's plain loop: with the default shape one tile per thread; an OpenMP call whose operands take
// at most calling_thread_bytes runs on the calling thread; on Kokkos' default OpenMP instance, outside parallel
// regions, kstream opens the region itself, a mid-small call on threads_for(bytes) threads. Large contiguous host
// outputs that are not an input are written with streaming stores (kstream/streaming_stores.hpp).
#include <cstdint>
#include <kstream/tiling.hpp>

namespace kstream::impl {

enum class Strategy : std::uint8_t { packed, contiguous, shifted, strided, elements };

/// "packed", "contiguous", ... (for messages, tests and the benchmark's counters).
const char* strategy_name(Strategy strategy);

/// One operand as the plan sees it.
struct OperandFacts {
  std::uintptr_t address = 0;
  std::int64_t stride = 1;  ///< in elements
  int element_bytes = 4;
};

/// Inputs whose shifts a shifted plan holds; calls with more take the contiguous strategy.
inline constexpr int max_shifted_inputs = 8;

/// Everything the plan depends on.
struct CallFacts {
  const char* label = "kstream";  ///< names the call in errors
  bool device = false;            ///< the space's memory is not accessible from the host
  bool may_run_inline = false;    ///< a synchronous host space (OpenMP) whose short calls may run on the caller
  bool own_region = false;        ///< kstream may open the OpenMP region itself (and use fewer threads)
  int threads = 1;                ///< host: the space's concurrency
  std::int64_t cache_bytes = 0;   ///< device: bytes of its last-level cache (0 where unknown)
  TileShape shape{};
  bool default_shape = true;  ///< shape is the space's default_tile_shape
  std::int64_t n = 0;
  OperandFacts out{};
  const OperandFacts* ins = nullptr;
  int inputs = 0;
};

/// What runs. Items are packs (packed, shifted) or single elements (the others).
struct Plan {
  Strategy strategy = Strategy::strided;
  std::int64_t head = 0;        ///< scalars before the body (packed, shifted)
  std::int64_t body_items = 0;  ///< items the tiles cover
  std::int64_t tail = 0;        ///< scalars after the body (packed, shifted)
  int width = 1;                ///< elements per item
  int items_in_flight = 1;      ///< device: items of each input a thread loads before it stores (a template value)
  int team_size = 1;            ///< device: threads per team; hosts: 1
  int chunks_per_thread = 1;    ///< device: load-store rounds per thread and tile; hosts: items per tile
  std::int64_t league = 0;      ///< teams (device) or tiles (host); elements: n
  int threads = 1;              ///< host: threads that run the tiles, 0 for the calling thread
  bool own_region = false;      ///< host: kstream opens the OpenMP region of `threads` threads itself
  bool streaming_stores = false;
  std::int8_t shifts[max_shifted_inputs] = {};  ///< shifted: each input's offset in its aligned pack

  /// Items one tile covers.
  std::int64_t tile_items() const { return std::int64_t(team_size) * items_in_flight * chunks_per_thread; }
};

/// The plan of a call. Throws std::invalid_argument for a bad tile shape and std::length_error where the call
/// needs more teams than a TeamPolicy holds.
Plan plan(const CallFacts& facts);

/// Bytes up to which an OpenMP call with the default shape runs on the calling thread (24 KiB per thread, at
/// least 256 KiB): shorter than waking and joining the threads.
constexpr std::int64_t calling_thread_bytes(int threads) {
  return 256 * 1024 > std::int64_t(24 * 1024) * threads ? 256 * 1024 : std::int64_t(24 * 1024) * threads;
}

/// Threads a host call of `bytes` wakes where it may use fewer than all `threads`: one per 128 KiB of operands,
/// rounded up to a power of two, at most all of them (fewer threads are woken and joined faster).
constexpr int threads_for(std::int64_t bytes, int threads) {
  const std::int64_t wanted = (bytes + 128 * 1024 - 1) / (128 * 1024);
  int k = 1;
  while (k < wanted && k < threads) k *= 2;
  return k < threads ? k : threads;
}

/// Elements of `element_bytes` in one 16-byte pack, or 1 where they do not tile it.
constexpr int elements_per_pack(int element_bytes) {
  return element_bytes < pack_bytes && pack_bytes % element_bytes == 0 ? pack_bytes / element_bytes : 1;
}

}  // namespace kstream::impl

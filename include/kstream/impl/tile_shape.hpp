#pragma once
// The tile shape and the pack size, without Kokkos (the plan and its fuzz target use them; kstream/tiling.hpp has
// the arithmetic, the worked example and the backends' defaults).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kstream {

/// Bytes per pack: the widest per-thread load every backend handles well (128-bit).
inline constexpr int pack_bytes = 16;

/// The packs_in_flight values the engine is compiled for (the count sizes a register array).
inline constexpr int supported_packs_in_flight[] = {1, 2, 4, 8};

struct TileShape {
  int team_size;          ///< threads per team (the CUDA block size); 1 on CPU backends
  int packs_in_flight;    ///< independent packs each thread loads per input before storing: 1, 2, 4 or 8
  int chunks_per_thread;  ///< how many times a thread repeats that load-compute-store step within its tile

  constexpr std::int64_t tile_packs() const { return std::int64_t(team_size) * packs_in_flight * chunks_per_thread; }
  friend constexpr bool operator==(const TileShape&, const TileShape&) = default;
};

/// Throws std::invalid_argument naming the bad field.
inline void validate(const TileShape& shape, const char* where) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string(where) + ": invalid tile shape: " + what);
  };
  if (shape.team_size < 1) fail("team_size = " + std::to_string(shape.team_size) + " (must be >= 1)");
  bool supported = false;
  for (int p : supported_packs_in_flight) supported = supported || p == shape.packs_in_flight;
  if (!supported) fail("packs_in_flight = " + std::to_string(shape.packs_in_flight) + " (must be 1, 2, 4 or 8)");
  if (shape.chunks_per_thread < 1)
    fail("chunks_per_thread = " + std::to_string(shape.chunks_per_thread) + " (must be >= 1)");
}

}  // namespace kstream

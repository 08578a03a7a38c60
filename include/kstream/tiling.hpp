#pragma once
// Tile shapes of the tiled engine: how a league of teams covers n elements.
//
// The engine moves data in packs of `pack_bytes` (16 bytes: 4 floats or 2 doubles, one LDG.128 on a GPU).
// One team owns one contiguous tile of
//     tile_packs = team_size * packs_in_flight * chunks_per_thread
// packs. Each thread loads `packs_in_flight` independent packs of every input before it stores anything (bytes
// in flight hide HBM latency), and repeats that `chunks_per_thread` times. Thread `r` of a team touches packs
//     tile_first + (chunk * packs_in_flight + slot) * team_size + r
// so a warp's 32 threads read 32 adjacent packs (512 contiguous bytes): coalesced on a GPU, and a plain
// contiguous loop when team_size == 1 on a CPU.
//
// Worked example, CUDA default {team_size 256, packs_in_flight 1, chunks 1}, float, n = 1000 at an aligned address:
//   pack width W = 4 floats, body packs = 1000 / 4 = 250, tail = 0, tile_packs = 256 = 1024 floats,
//   league_size = ceil(250 / 256) = 1; thread 5 loads pack 5 of each input (floats 20..23);
//   threads 250..255 find pack 250..255 >= 250: the tail guard skips them.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
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

/// A device execution space: one whose memory the host cannot read (CUDA, HIP, SYCL, OpenMPTarget). Decided from
/// the space's properties, not its name, so a backend kstream was never built for gets the GPU defaults too.
template <class ExecSpace>
inline constexpr bool is_device_execution_space_v =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

/// The shape each backend gets unless the caller passes one.
/// Device spaces: 256 threads x 1 pack per input (with 2-3 inputs, that is 2-3 independent 16-byte loads in flight
/// per thread): best or within noise of best over a 32-shape grid at n = 2^24 and 2^28 on the H200
/// (bench/results/, docs/results.md);
/// host spaces: one tile per thread, its contiguous share of the call (like `omp parallel for schedule(static)`),
/// walked as a plain loop the compiler vectorizes. There the default's packs_in_flight and chunks_per_thread only
/// name it (spread_over_threads sets the tile's length); an explicit host shape sets tiles of
/// packs_in_flight x chunks_per_thread packs (tiled_engine.hpp).
template <class ExecSpace>
constexpr TileShape default_tile_shape() {
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    return TileShape{256, 1, 1};
  } else {
    return TileShape{1, 4, 256};
  }
}

namespace impl {
/// The default shape on a host space, for a call of body_items items (slots of them per thread and chunk) that runs
/// on `threads` threads (0: the calling thread): one tile per thread, as many chunks as that takes. Explicit shapes
/// and device spaces are left alone.
/// Measured on the H200 machine's 16 cores (bench/results/README.md, host_paired with shuffled rounds): one tile
/// per thread against tiles of 1024 packs at n = 2^17 and 2^18 (2-8 tiles per thread, all 16 threads), add and fma,
/// float and double: faster in 6 of 8 cases (one tie) and 8 of 8 in two runs, by up to 5 %; at 2^24 and 2^28 tiles
/// of 256-4096 packs ran within the runs' noise of each other (2026-11-30_H200-host_openmp_tile_grid.json, from the
/// CUDA build's OpenMP backend: no host-only tile grid was run).
/// (Smaller device teams for short calls, so that they reach more multiprocessors, were measured and dropped: at
/// n = 4096, chains of recorded calls ran within 4 % of each other for teams of 32 to 256 threads;
/// bench/results/2026-11-30_H200_cuda_chain64_team_sizes.json.)
template <class ExecSpace>
TileShape spread_over_threads(int threads, const TileShape& shape, std::int64_t body_items, int slots) {
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    return shape;
  } else {
    if (shape != default_tile_shape<ExecSpace>()) return shape;
    const std::int64_t per_round = std::int64_t(std::max(threads, 1)) * shape.team_size * slots;
    const std::int64_t chunks = (body_items + per_round - 1) / per_round;
    TileShape spread = shape;
    spread.chunks_per_thread = int(std::clamp<std::int64_t>(chunks, 1, INT_MAX));
    return spread;
  }
}
}  // namespace impl

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

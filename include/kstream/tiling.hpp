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
#include <kstream/impl/tile_shape.hpp>

namespace kstream {

/// A device execution space: one whose memory the host cannot read (CUDA, HIP, SYCL, OpenMPTarget). Decided from
/// the space's properties, not its name, so a backend kstream was never built for gets the GPU defaults too.
template <class ExecSpace>
inline constexpr bool is_device_execution_space_v =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

/// The shape each backend gets unless the caller passes one (docs/engine.md has the measurements).
/// Device spaces: 256 threads x 1 pack per input in flight. Host spaces: one tile per thread, its contiguous share
/// of the call, walked as a plain loop the compiler vectorizes; there the default's packs_in_flight and
/// chunks_per_thread only name it, while an explicit host shape sets tiles of team_size x packs_in_flight x
/// chunks_per_thread packs, each one thread's loop. packs_in_flight sizes the register arrays of the packed
/// strategy on devices; the single-element and shifted strategies keep one pack's worth in flight and repeat it
/// packs_in_flight x chunks_per_thread times.
template <class ExecSpace>
constexpr TileShape default_tile_shape() {
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    return TileShape{256, 1, 1};
  } else {
    return TileShape{1, 4, 256};
  }
}

}  // namespace kstream

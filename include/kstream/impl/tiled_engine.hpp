#pragma once
// The one tiled elementwise engine behind kstream::transform, add and fma.
//
// Layout of the n elements as the engine sees them (packed path, all views contiguous and equally aligned):
//
//   | head (< W scalars) | body: body_packs packs of W elements, 16-byte aligned | tail (< W scalars) |
//
// The body is cut into tiles of tile_packs packs, one tile per team (see kstream/tiling.hpp for the arithmetic).
// Every tile but the last runs without bounds checks; the last one checks each pack against body_packs (the tail
// guard, the mask of a Triton kernel). Head and tail scalars are done by the last team, one element per thread.
// When a view is strided or the views are not equally aligned, the same engine runs with W = 1 and strides.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <kstream/impl/slots.hpp>
#include <kstream/tiling.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// W elements that move as one 16-byte access.
template <class T, int W>
struct alignas(sizeof(T) * W) Pack {
  T lane[W];
};

/// Where a view's elements live: first element and stride in elements (1 on the packed path).
template <class T>
struct Stream {
  T* data;
  std::int64_t stride;
};

/// How the n elements split into scalar head, packed body and scalar tail.
struct Partition {
  std::int64_t head;
  std::int64_t body_packs;
  std::int64_t tail;
};

template <class ExecSpace, int Width, int PacksInFlight, class Op, class OutT, class... InTs>
struct TiledFunctor {
  using Seq = std::index_sequence_for<InTs...>;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using InputStreams = Slots<Seq, Stream<const InTs>...>;
  using InputPacks = Slots<Seq, Pack<InTs, Width>...>;

  Op op;
  Stream<OutT> out;
  InputStreams in;
  Partition part;
  std::int64_t tile_packs;
  int chunks_per_thread;
  int league_size;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t tile_first = std::int64_t(team.league_rank()) * tile_packs;
    const int rank = team.team_rank();
    const int team_size = team.team_size();
    if (tile_first + tile_packs <= part.body_packs) {
      run_tile<false>(tile_first, rank, team_size);
    } else {
      run_tile<true>(tile_first, rank, team_size);
    }
    if (team.league_rank() == league_size - 1) run_edges(rank, team_size, Seq{});
  }

  // Loads PacksInFlight packs of every input, then computes and stores them; Guarded skips packs >= body_packs.
  template <bool Guarded>
  KOKKOS_INLINE_FUNCTION void run_tile(std::int64_t tile_first, int rank, int team_size) const {
    for (int chunk = 0; chunk < chunks_per_thread; ++chunk) {
      const std::int64_t first = tile_first + std::int64_t(chunk) * PacksInFlight * team_size + rank;
      InputPacks loaded[PacksInFlight]{};  // value-initialized: guarded slots stay unread, but defined
      for (int slot = 0; slot < PacksInFlight; ++slot) {
        const std::int64_t p = first + std::int64_t(slot) * team_size;
        if (!Guarded || p < part.body_packs) load_all(loaded[slot], p, Seq{});
      }
      for (int slot = 0; slot < PacksInFlight; ++slot) {
        const std::int64_t p = first + std::int64_t(slot) * team_size;
        if (!Guarded || p < part.body_packs) store(p, compute(loaded[slot], Seq{}));
      }
    }
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void load_all(InputPacks& loaded, std::int64_t p, std::index_sequence<Is...>) const {
    ((get<Is>(loaded) = load<Is>(p)), ...);
  }

  template <std::size_t I>
  KOKKOS_FORCEINLINE_FUNCTION auto load(std::int64_t p) const {
    const auto& s = get<I>(in);
    using T = std::remove_const_t<std::remove_reference_t<decltype(*s.data)>>;
    if constexpr (Width == 1) {
      return Pack<T, 1>{{s.data[p * s.stride]}};
    } else {
      return *reinterpret_cast<const Pack<T, Width>*>(s.data + part.head + p * Width);
    }
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION Pack<OutT, Width> compute(const InputPacks& loaded, std::index_sequence<Is...>) const {
    Pack<OutT, Width> result;
    for (int lane = 0; lane < Width; ++lane) result.lane[lane] = op(get<Is>(loaded).lane[lane]...);
    return result;
  }

  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t p, const Pack<OutT, Width>& result) const {
    if constexpr (Width == 1) {
      out.data[p * out.stride] = result.lane[0];
    } else {
      *reinterpret_cast<Pack<OutT, Width>*>(out.data + part.head + p * Width) = result;
    }
  }

  // Head and tail scalars (packed path only, where every stride is 1): fewer than 2 W elements in all.
  template <std::size_t... Is>
  KOKKOS_INLINE_FUNCTION void run_edges(int rank, int team_size, std::index_sequence<Is...>) const {
    const std::int64_t edge_elements = part.head + part.tail;
    for (std::int64_t e = rank; e < edge_elements; e += team_size) {
      const std::int64_t i = e < part.head ? e : part.head + part.body_packs * Width + (e - part.head);
      out.data[i] = op(get<Is>(in).data[i]...);
    }
  }
};

template <class View>
std::uintptr_t address_of(const View& v) {
  return reinterpret_cast<std::uintptr_t>(v.data());
}

template <class View>
Stream<typename View::value_type> output_stream(const View& v) {
  return {v.data(), std::int64_t(v.stride(0))};
}

template <class View>
Stream<const std::remove_const_t<typename View::value_type>> input_stream(const View& v) {
  return {v.data(), std::int64_t(v.stride(0))};
}

template <class ExecSpace, int Width, int PacksInFlight, class OutView, class Op, class... InViews>
void launch(const char* label, const ExecSpace& exec, const TileShape& shape, const Partition& part, const OutView& out,
            const Op& op, const InViews&... ins) {
  using Functor = TiledFunctor<ExecSpace, Width, PacksInFlight, Op, typename OutView::value_type,
                               std::remove_const_t<typename InViews::value_type>...>;
  const std::int64_t tile_packs = shape.tile_packs();
  const std::int64_t league = std::max<std::int64_t>(1, (part.body_packs + tile_packs - 1) / tile_packs);
  if (league > INT_MAX)
    throw std::length_error(std::string(label) + ": " + std::to_string(out.extent(0)) +
                            " elements need more teams than a TeamPolicy holds; use a larger tile shape");
  Functor functor{op,         output_stream(out), {{input_stream(ins)}...}, part, tile_packs, shape.chunks_per_thread,
                  int(league)};
  if (shape != default_tile_shape<ExecSpace>()) {  // a default shape is known to fit; others are checked first
    const int team_size_max =
        Kokkos::TeamPolicy<ExecSpace>(exec, int(league), Kokkos::AUTO).team_size_max(functor, Kokkos::ParallelForTag());
    if (shape.team_size > team_size_max)
      throw std::invalid_argument(std::string(label) +
                                  ": invalid tile shape: team_size = " + std::to_string(shape.team_size) +
                                  " exceeds this execution space's maximum of " + std::to_string(team_size_max));
  }
  Kokkos::parallel_for(label, Kokkos::TeamPolicy<ExecSpace>(exec, int(league), shape.team_size), functor);
}

template <class ExecSpace, int Width, class OutView, class Op, class... InViews>
void dispatch_packs_in_flight(const char* label, const ExecSpace& exec, const TileShape& shape, const Partition& part,
                              const OutView& out, const Op& op, const InViews&... ins) {
  switch (shape.packs_in_flight) {
    case 1:
      return launch<ExecSpace, Width, 1>(label, exec, shape, part, out, op, ins...);
    case 2:
      return launch<ExecSpace, Width, 2>(label, exec, shape, part, out, op, ins...);
    case 4:
      return launch<ExecSpace, Width, 4>(label, exec, shape, part, out, op, ins...);
    case 8:
      return launch<ExecSpace, Width, 8>(label, exec, shape, part, out, op, ins...);
    default:
      validate(shape, label);  // throws
  }
}

/// Pack width for these element types: 16 bytes of the common element size, or 1 (scalar) for mixed sizes.
template <class OutT, class... InTs>
constexpr int pack_width() {
  constexpr std::size_t size = sizeof(OutT);
  constexpr bool same_size = ((sizeof(InTs) == size) && ...);
  return (same_size && size < std::size_t(pack_bytes) && pack_bytes % size == 0) ? int(pack_bytes / size) : 1;
}

/// Checks nothing (the callers do); picks packed or strided path and launches. n == 0 launches nothing.
template <class ExecSpace, class OutView, class Op, class... InViews>
void tiled_transform(const char* label, const ExecSpace& exec, const TileShape& shape, const OutView& out, const Op& op,
                     const InViews&... ins) {
  validate(shape, label);
  const std::int64_t n = std::int64_t(out.extent(0));
  if (n == 0) return;
  using OutT = typename OutView::value_type;
  constexpr int width = pack_width<OutT, typename InViews::value_type...>();
  if constexpr (width > 1) {
    const std::uintptr_t misalignment = address_of(out) % pack_bytes;
    const bool packable =
        out.stride(0) == 1 && ((ins.stride(0) == 1) && ...) && ((address_of(ins) % pack_bytes == misalignment) && ...);
    if (packable) {
      const std::int64_t head = std::min<std::int64_t>(n, ((pack_bytes - misalignment) % pack_bytes) / sizeof(OutT));
      const std::int64_t body_packs = (n - head) / width;
      const Partition part{head, body_packs, n - head - body_packs * width};
      return dispatch_packs_in_flight<ExecSpace, width>(label, exec, shape, part, out, op, ins...);
    }
  }
  dispatch_packs_in_flight<ExecSpace, 1>(label, exec, shape, Partition{0, n, 0}, out, op, ins...);
}

}  // namespace kstream::impl

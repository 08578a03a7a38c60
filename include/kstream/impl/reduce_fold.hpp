#pragma once
// The folds of partial results. A full reduction's (kstream/impl/reduce_kernel.hpp's second launch): on a device by
// one team, or by Kokkos' parallel_reduce over many (plan.hpp: one_team_fold_partials); on a host in tile order. A
// reduction along dimensions' (kstream/impl/reduce_along.hpp): each output's slices, and a device team's lanes of an
// output (fold_team_lanes, also the tile kernel's last step). Each folds in an order fixed for a given count and
// device, so a reduction gives the same bits on every run.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/pragmas.hpp>
#include <kstream/impl/reduce_step.hpp>
#include <type_traits>

namespace kstream::impl {

/// Threads of the team that folds a two-launch device reduction's partial results (at most the device's).
inline constexpr int device_fold_threads = 1024;

/// from[first], from[first + step], ... below `count` folded into device_in_flight accumulators (their loads go out
/// together), then those in order: one thread's share of a device fold, in an order fixed by first, step and count.
template <class Acc, class Reducer>
KOKKOS_INLINE_FUNCTION Acc fold_in_flight(const Reducer& r, const Acc* from, std::int64_t first, std::int64_t step,
                                          std::int64_t count) {
  constexpr int InFlight = device_in_flight;
  Acc acc[InFlight];
  KSTREAM_DEVICE_UNROLL
  for (int k = 0; k < InFlight; ++k) acc[k] = r.template identity<Acc>();
  std::int64_t t = first;
  for (; t + (InFlight - 1) * step < count; t += InFlight * step) {
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < InFlight; ++k) acc[k] = r(acc[k], from[t + k * step]);
  }
  for (; t < count; t += step) acc[0] = r(acc[0], from[t]);
  Acc value = acc[0];
  KSTREAM_DEVICE_UNROLL
  for (int k = 1; k < InFlight; ++k) value = r(value, acc[k]);
  return value;
}

/// The device partials folded by one team (the second of two launches): each thread folds every threads-th partial
/// from its rank (fold_in_flight), the team folds the threads' values (Kokkos' team_reduce: a fixed order for a
/// given team size and device), and its first thread writes the value into `into`, as the result's type (a rank-0
/// view) or as Acc (Acc*: device memory the caller copies from).
template <class ExecSpace, class Acc, class Reducer, class Into>
struct FoldPartialsInOneTeam {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Reducer r;
  const Acc* partials;
  std::int64_t count;
  Into into;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    Acc mine = fold_in_flight(r, partials, team.team_rank(), team.team_size(), count);
    team.team_reduce(KokkosReducer<Reducer, Acc, Kokkos::HostSpace>(r, mine));
    if (team.team_rank() == 0) {
      if constexpr (std::is_pointer_v<Into>) {
        *into = mine;
      } else {
        into() = from_accumulator<typename Into::value_type>(mine);
      }
    }
  }
};

/// The device partials folded by Kokkos' parallel_reduce (in a fixed order for a given count and device).
template <class Acc, class Reducer>
struct FoldDevicePartials {
  Reducer r;
  const Acc* partials;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, Acc& value) const { value = r(value, partials[t]); }
};

/// The host partials folded in tile order.
template <class Acc, class Reducer>
Acc fold(const Reducer& r, const Acc* partials, std::int64_t tiles) {
  Acc total = r.template identity<Acc>();
  for (std::int64_t t = 0; t < tiles; ++t) total = r(total, partials[t]);
  return total;
}

/// fold() into a rank-0 view (as its type): a recorded host reduction's last node.
template <class Acc, class Reducer, class Result>
struct FoldPartials {
  Reducer r;
  const Acc* partials;
  std::int64_t tiles;
  Result result;
  void operator()(std::int64_t) const {
    result() = from_accumulator<typename Result::value_type>(fold(r, partials, tiles));
  }
};

/// The values of a device team's outputs, `lanes` threads each (thread block_output * lanes + lane), folded
/// pairwise in a fixed tree in team scratch (team_size values of Acc): the output's value, in every thread.
template <class ExecSpace, class Acc, class Reducer, class Member>
KOKKOS_INLINE_FUNCTION Acc fold_team_lanes(const Member& team, const Reducer& r, Acc value, int block_output, int lane,
                                           int lanes) {
  using Shared = Kokkos::View<Acc*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Shared shared(team.team_scratch(0), team.team_size());
  const int slot = block_output * lanes + lane;
  shared(slot) = value;
  team.team_barrier();
  for (int half = lanes / 2; half > 0; half /= 2) {
    if (lane < half) shared(slot) = r(shared(slot), shared(slot + half));
    team.team_barrier();
  }
  return shared(block_output * lanes);
}

/// The second kernel of a sliced reduction: output o's partial results folded into the result. Host: one output an
/// index, its partials in slice order. Device teams: `lanes` threads an output (team_size / lanes outputs a team), each
/// folding every lanes-th partial from its lane (fold_in_flight), then the lanes in a fixed tree (fold_team_lanes): a
/// fixed order for a given plan.
template <class ExecSpace, class Acc, class Reducer, class Finish, class R>
struct FoldAlong {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Reducer r;
  Finish finish;
  Strides<1> result_at;  ///< the result's offsets over the kept dimensions
  const Acc* partials;
  std::int64_t slices;
  R* result;
  std::int64_t outputs = 0;  ///< device teams: the outputs
  int lanes = 1;             ///< device teams: threads on one output's partials

  KOKKOS_INLINE_FUNCTION void write(std::int64_t o, Acc acc) const {
    std::int64_t at[1];
    result_at.offsets(o, at);
    result[at[0]] = from_accumulator<R>(finish(acc));
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t o) const {
    Acc acc = partials[o * slices];
    for (std::int64_t s = 1; s < slices; ++s) acc = r(acc, partials[o * slices + s]);
    write(o, acc);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int lane = team.team_rank() % lanes, block_output = team.team_rank() / lanes;
    const std::int64_t o = std::int64_t(team.league_rank()) * (team.team_size() / lanes) + block_output;
    Acc value = r.template identity<Acc>();
    if (o < outputs) value = fold_in_flight(r, partials + o * slices, lane, lanes, slices);
    if (lanes > 1) value = fold_team_lanes<ExecSpace>(team, r, value, block_output, lane, lanes);
    if (lane == 0 && o < outputs) write(o, value);
  }
};

}  // namespace kstream::impl

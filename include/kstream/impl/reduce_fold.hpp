#pragma once
// The folds of a device reduction's partial results (kstream/impl/reduce_kernel.hpp's second launch): by one team,
// or by Kokkos' parallel_reduce over many (plan.hpp: one_team_fold_partials); a host reduction's, in tile order.
// Each folds in an order fixed for a given count and device, so a reduction gives the same bits on every run.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/pragmas.hpp>
#include <kstream/impl/reduce_step.hpp>
#include <type_traits>

namespace kstream::impl {

/// Threads of the team that folds a two-launch device reduction's partial results (at most the device's).
inline constexpr int device_fold_threads = 1024;

/// The device partials folded by one team (the second of two launches): each thread folds every threads-th partial
/// from its rank into device_in_flight accumulators (their loads go out together), the team folds the threads'
/// values (Kokkos' team_reduce: a fixed order for a given team size and device), and its first thread writes the
/// value into `into`, as the result's type (a rank-0 view) or as Acc (Acc*: device memory the caller copies from).
template <class ExecSpace, class Acc, class Reducer, class Into>
struct FoldPartialsInOneTeam {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Reducer r;
  const Acc* partials;
  std::int64_t count;
  Into into;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    constexpr int InFlight = device_in_flight;
    const std::int64_t threads = team.team_size();
    Acc acc[InFlight];
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < InFlight; ++k) acc[k] = r.template identity<Acc>();
    std::int64_t t = team.team_rank();
    for (; t + (InFlight - 1) * threads < count; t += InFlight * threads) {
      KSTREAM_DEVICE_UNROLL
      for (int k = 0; k < InFlight; ++k) acc[k] = r(acc[k], partials[t + k * threads]);
    }
    for (; t < count; t += threads) acc[0] = r(acc[0], partials[t]);
    Acc mine = acc[0];
    KSTREAM_DEVICE_UNROLL
    for (int k = 1; k < InFlight; ++k) mine = r(mine, acc[k]);
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

}  // namespace kstream::impl

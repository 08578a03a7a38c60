#pragma once
// A reduction along dimensions run: the tile kernels (kstream/impl/along_tiles.hpp) as the plan
// (kstream/impl/reduce_plan.hpp) shares them, and where outputs are sliced, their partial results in instance scratch
// (or a recording's own view) and a second kernel that folds each output's partials (kstream/impl/reduce_fold.hpp:
// device, a team's lanes, then their fixed tree; host, in slice order). No atomics: the same bits on every run.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/along_tiles.hpp>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/instance_scratch.hpp>
#include <kstream/impl/reduce_fold.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <kstream/impl/sinks.hpp>
#include <type_traits>

namespace kstream::impl {

/// Reduces `step` along the plan's dimensions into `result` (the widened result's data), through `sink` (run now,
/// or recorded). `operands`: the step's operands (inputs, then a fused output), then the widened result.
template <class ExecSpace, class Acc, bool DeviceKernel = is_device_execution_space_v<ExecSpace>, class Sink,
          class Reducer, class Finish, class Step, class R>
void reduce_along(const Sink& sink, const char* label, const ExecSpace& exec, const Reducer& r, const Finish& finish,
                  const Step& step, const AlongPlan& p, const Operand* const (&operands)[Step::operands + 1],
                  R* result) {
  constexpr int K = Step::operands;
  if (p.outputs == 0) return;
  const Geometry& g = p.geometry;
  const Geometry kept = geometry_part(g, g.reduced, g.dims), across = geometry_part(g, 0, g.reduced);
  const Operand* inputs[K];
  for (int k = 0; k < K; ++k) inputs[k] = operands[k];
  using Space = typename ExecSpace::memory_space;
  const auto launch = [&](Acc* partials) {
    if constexpr (DeviceKernel) {
      DeviceAlongTiles<ExecSpace, Acc, Reducer, Finish, Step, R> tiles(r, finish, step, p, result, partials);
      Geometry table = g;  // one reduced dimension may be 2^31 long or more: offsets along it are 64-bit
      if (g.reduced == 1) table.extents[0] = 1;
      tiles.coordinates = Coordinates<K + 1, max_rank>(table, operands, 0);
      tiles.reduced = g.reduced;
      const auto run = [&](auto policy) {
        if (p.reduce_lanes > 1) policy.set_scratch_size(0, Kokkos::PerTeam(std::size_t(p.team_size) * sizeof(Acc)));
        sink(label, policy, tiles);
      };
      if (p.thread_outputs > 1 || g.reduced > 1) {
        run(Kokkos::TeamPolicy<ExecSpace, typename decltype(tiles)::Apart>(exec, int(p.league), p.team_size));
      } else {
        run(Kokkos::TeamPolicy<ExecSpace>(exec, int(p.league), p.team_size));
      }
    } else {
      HostAlongTiles<Acc, Reducer, Finish, Step, R> tiles(r, finish, step, p, result, partials);
      tiles.kept = Strides<K + 1>(kept, operands);
      tiles.across = Strides<K>(across, inputs);
      sink(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.league), tiles);
    }
    if (p.slices > 1) {
      const Operand* const at[1] = {operands[K]};
      FoldAlong<ExecSpace, Acc, Reducer, Finish, R> fold{r, finish, Strides<1>(kept, at), partials, p.slices, result};
      if constexpr (DeviceKernel) {
        fold.outputs = p.outputs;
        fold.lanes = p.fold_lanes;
        Kokkos::TeamPolicy<ExecSpace> policy(exec, int(p.fold_league), p.team_size);
        if (p.fold_lanes > 1) policy.set_scratch_size(0, Kokkos::PerTeam(std::size_t(p.team_size) * sizeof(Acc)));
        sink("kstream::reduce[fold]", policy, fold);
      } else {
        sink("kstream::reduce[fold]",
             Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.outputs), fold);
      }
    }
  };
  if (p.slices == 1) return launch(nullptr);
  const std::int64_t count = p.outputs * p.slices;
  if constexpr (std::is_same_v<Sink, LaunchNow> && is_device_execution_space_v<ExecSpace>) {
    with_instance_scratch(exec, std::size_t(count) * sizeof(Acc), [&](void* at) { launch(static_cast<Acc*>(at)); });
  } else {  // (a recording keeps its own partials: it may be replayed on another instance)
    Kokkos::View<Acc*, Space> partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kstream::partials"), count);
    sink.keep(partials);
    launch(partials.data());
  }
}

}  // namespace kstream::impl

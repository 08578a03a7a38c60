#pragma once
// One elementwise call from views to a kernel: the views become plain operand descriptions (kstream/impl/
// operand.hpp), so every layout and rank of one element type shares one set of kernels; plan() (src/plan.cpp)
// picks the strategy; the kernel goes to a sink, which runs it now (LaunchNow) or appends it to a graph
// (AppendToGraph, kstream::record).
//
//   one dimension     launch_flat: TeamPolicy, one team per tile (elements: a RangePolicy of one element per
//                     index); hosts: a RangePolicy of tiles, each one thread's loop; a short OpenMP call runs on
//                     the calling thread, and on Kokkos' default OpenMP instance kstream opens the region itself
//   several           launch_ranked: device rows (TiledFunctor<Rows>) or general; hosts: tiles walked row by row
//
// Views of rank 1 compile launch_flat alone; views of higher rank add launch_ranked (its kernels do not depend
// on the rank). The common calls (add and fma of float, double and the 16-bit types, on every enabled backend,
// one dimension, run now or recorded) are compiled once in the kstream library (src/instantiate.cpp.in);
// instantiations.hpp declares them.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/checks.hpp>
#include <kstream/impl/general_functors.hpp>
#include <kstream/impl/host_region.hpp>
#include <kstream/impl/operand.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/sinks.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/tiled_functor.hpp>
#include <kstream/tiling.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kstream::impl {

/// Bytes of the device's last-level cache (CUDA, HIP; 0 where kstream does not know it).
template <class ExecSpace>
std::int64_t device_cache_bytes([[maybe_unused]] const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) return std::int64_t(exec.cuda_device_prop().l2CacheSize);
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::HIP>) return std::int64_t(exec.hip_device_prop().l2CacheSize);
#endif
  return 0;
}

/// Threads of a device that issue together: a warp (CUDA, 32) or a wavefront (HIP: 64 on CDNA); 1 on hosts.
template <class ExecSpace>
int device_warp_size() {
  if constexpr (is_device_execution_space_v<ExecSpace>) return Kokkos::TeamPolicy<ExecSpace>::vector_length_max();
  return 1;
}

/// The plan of a call on exec; `now`: run now (a short OpenMP call may then run on the calling thread).
template <class ExecSpace>
Plan plan_on(const char* label, const ExecSpace& exec, const TileShape& shape, [[maybe_unused]] bool now,
             const Operand& out, const Operand* ins, int inputs) {
  CallFacts call;
  call.label = label;
  call.device = is_device_execution_space_v<ExecSpace>;
#if defined(KOKKOS_ENABLE_OPENMP)
  call.may_run_inline = now && std::is_same_v<ExecSpace, Kokkos::OpenMP>;
  call.own_region = call.may_run_inline && opens_own_region(exec);
#endif
  call.threads = call.device ? 1 : exec.concurrency();
  call.cache_bytes = device_cache_bytes(exec);
  call.warp_size = device_warp_size<ExecSpace>();
  if constexpr (is_device_execution_space_v<ExecSpace>)
    call.scratch_bytes = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  call.shape = shape;
  call.default_shape = shape == default_tile_shape<ExecSpace>();
  call.out = out;
  call.ins = ins;
  call.inputs = inputs;
  return plan(call);
}

/// The plan kstream makes for a call on these views (tests and the benchmark's counters).
template <class ExecSpace, class OutView, class... InViews>
Plan plan_of(const ExecSpace& exec, const TileShape& shape, const OutView& out, const InViews&... ins) {
  const Operand in_operands[] = {operand_of(ins)...};
  return plan_on("kstream", exec, shape, true, operand_of(out), in_operands, int(sizeof...(InViews)));
}

/// An operand's stride along a plan of one dimension.
inline std::int64_t flat_stride(const Plan& p, const Operand& o) {
  return p.geometry.dims == 0 ? 1 : o.strides[p.geometry.axes[0]];
}

/// The first element of each operand, typed.
template <class OutT, class... InTs, std::size_t... Is>
Bases<std::index_sequence_for<InTs...>, OutT, InTs...> bases_of(const Operand& out, const Operand* ins,
                                                                std::index_sequence<Is...>) {
  return {out.data<OutT>(), {{ins[Is].data<const InTs>()}...}};
}

/// Runs `body()` as one kernel for Kokkos Tools (a profiler sees its label and space as for parallel_for).
template <class ExecSpace, class Body>
void as_tools_kernel(const char* label, const ExecSpace& exec, const Body& body) {
  std::uint64_t kernel_id = 0;
  const bool tools = Kokkos::Tools::profileLibraryLoaded();
  if (tools) Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(exec), &kernel_id);
  body();
  if (tools) Kokkos::Tools::endParallelFor(kernel_id);
}

/// out and the K - 1 inputs as one array of pointers, in operand order (what the index math takes).
template <int K>
struct OperandList {
  const Operand* at[K];
  OperandList(const Operand& out, const Operand* ins) : at{&out} {
    for (int k = 1; k < K; ++k) at[k] = &ins[k - 1];
  }
};

/// A team kernel that does nothing: asks a host space for its largest team.
template <class ExecSpace>
struct TeamProbe {
  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<ExecSpace>::member_type&) const {}
};

/// An explicit shape's team size must fit the space (a default shape is known to).
template <class ExecSpace, class Functor>
void check_team_size(const char* label, const ExecSpace& exec, const TileShape& shape, const Functor& functor) {
  int most = 0;
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    most = Kokkos::TeamPolicy<ExecSpace>(exec, 1, Kokkos::AUTO).team_size_max(functor, Kokkos::ParallelForTag());
  } else {
    most = Kokkos::TeamPolicy<ExecSpace>(exec, 1, Kokkos::AUTO)
               .team_size_max(TeamProbe<ExecSpace>{}, Kokkos::ParallelForTag());
  }
  if (shape.team_size > most)
    throw std::invalid_argument(std::string(label) +
                                ": invalid tile shape: team_size = " + std::to_string(shape.team_size) +
                                " exceeds this execution space's maximum of " + std::to_string(most));
}

template <class ExecSpace, Strategy Mode, int Width, int Items, bool Rows, class Sink, class Op, class OutT,
          class... InTs>
void launch_tiles(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape, const Plan& p,
                  const Op& op, const Operand& out, const Operand* ins) {
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  using Seq = std::index_sequence_for<InTs...>;
  const auto at = bases_of<OutT, InTs...>(out, ins, Seq{});
  std::conditional_t<device, TiledFunctor<ExecSpace, Mode, Width, Items, Rows, Op, OutT, InTs...>,
                     HostTileFunctor<Mode, Width, Op, OutT, InTs...>>
      functor(at.out, at.in, p, op);
  if constexpr (Mode == Strategy::strided) {
    functor.out_stride = flat_stride(p, out);
    for (std::size_t k = 0; k < sizeof...(InTs); ++k) functor.in_strides[k] = flat_stride(p, ins[k]);
  }
  if constexpr (Mode == Strategy::shifted) {
    for (std::size_t k = 0; k < sizeof...(InTs); ++k) functor.shift[k] = p.shifts[k];
  }
  if constexpr (Rows) {
    constexpr int K = 1 + int(sizeof...(InTs));
    const OperandList<K> operands(out, ins);
    functor.segments = FastDivider(std::uint32_t(p.league / p.rows));
    functor.starts = RowStarts<K>(p.geometry, operands.at, 1);
  }
  if (shape != default_tile_shape<ExecSpace>()) check_team_size(label, exec, shape, functor);
  if constexpr (device) {
#if defined(KOKKOS_ENABLE_CUDA)
    // Shifted packs of one or two inputs are compiled for full occupancy (8 teams of 256 per multiprocessor):
    // unbounded, bf16 add took 36 registers (docs/engine.md). Three inputs spill when bounded. CUDA only: a register
    // budget is measured per architecture, and HIP's second bound counts waves per SIMD, not teams.
    if constexpr (Mode == Strategy::shifted && sizeof...(InTs) <= 2 && std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      constexpr int team = default_tile_shape<ExecSpace>().team_size;
      if (shape == default_tile_shape<ExecSpace>())
        return sink(
            label,
            Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<team, 2048 / team>>(exec, int(p.league), p.team_size),
            functor);
    }
#endif
    sink(label, Kokkos::TeamPolicy<ExecSpace>(exec, int(p.league), p.team_size), functor);
  } else {
    if constexpr (std::is_same_v<Sink, LaunchNow>) {
      if (p.threads == 0) {  // a call shorter than waking the threads
        return as_tools_kernel(label, exec, [&] {
          for (std::int64_t tile = 0; tile < p.league; ++tile) functor(tile);
        });
      }
#if defined(KOKKOS_ENABLE_OPENMP)
      if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
        if (p.own_region) {  // the tiles over p.threads threads, as Kokkos' RangePolicy without its dispatch
          return as_tools_kernel(label, exec, [&] { run_in_own_region(functor, p.league, p.threads); });
        }
      }
#endif
    }
    sink(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.league), functor);
  }
}

/// A plan of one dimension to its kernel (the callers check and plan; nothing runs for n == 0).
template <class Sink, class ExecSpace, class Op, class OutT, class... InTs>
void launch_flat(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape, const Plan& p,
                 const Op& op, const Operand& out, const Operand* ins) {
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  constexpr int width = common_pack_elements<OutT, InTs...>;
  constexpr int elements_in_flight = elements_per_pack(sizeof(OutT));
  switch (p.strategy) {
    case Strategy::elements:
      if constexpr (device) {
        std::int32_t in_strides[sizeof...(InTs)];
        for (std::size_t k = 0; k < sizeof...(InTs); ++k) in_strides[k] = std::int32_t(flat_stride(p, ins[k]));
        const auto at = bases_of<OutT, InTs...>(out, ins, std::index_sequence_for<InTs...>{});
        return sink(
            label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.league),
            ElementsFunctor<Op, OutT, InTs...>(at.out, at.in, std::int32_t(flat_stride(p, out)), in_strides, op));
      }
      break;
    case Strategy::packed:
      if constexpr (width > 1) {
        if constexpr (device) {
          switch (p.items_in_flight) {
            case 2:
              return launch_tiles<ExecSpace, Strategy::packed, width, 2, false, Sink, Op, OutT, InTs...>(
                  sink, label, exec, shape, p, op, out, ins);
            case 4:
              return launch_tiles<ExecSpace, Strategy::packed, width, 4, false, Sink, Op, OutT, InTs...>(
                  sink, label, exec, shape, p, op, out, ins);
            case 8:
              return launch_tiles<ExecSpace, Strategy::packed, width, 8, false, Sink, Op, OutT, InTs...>(
                  sink, label, exec, shape, p, op, out, ins);
            default:
              break;
          }
        }
        return launch_tiles<ExecSpace, Strategy::packed, width, 1, false, Sink, Op, OutT, InTs...>(
            sink, label, exec, shape, p, op, out, ins);
      }
      break;
    case Strategy::shifted:
      if constexpr (device && width > 1 && sizeof(OutT) < 4 && sizeof...(InTs) <= max_shifted_inputs)
        return launch_tiles<ExecSpace, Strategy::shifted, width, 1, false, Sink, Op, OutT, InTs...>(
            sink, label, exec, shape, p, op, out, ins);
      break;
    case Strategy::contiguous:
      return launch_tiles<ExecSpace, Strategy::contiguous, 1, elements_in_flight, false, Sink, Op, OutT, InTs...>(
          sink, label, exec, shape, p, op, out, ins);
    case Strategy::strided:
      return launch_tiles<ExecSpace, Strategy::strided, 1, elements_in_flight, false, Sink, Op, OutT, InTs...>(
          sink, label, exec, shape, p, op, out, ins);
    case Strategy::general:
      break;
  }
  throw std::logic_error(std::string(label) + ": no one-dimension kernel for the " + plan_name(p) + " plan");
}

/// A general plan with a cross dimension to its tiles (TileFunctor): a team per tile, of the plan's team size on a
/// device (one thread on a host: the tests run the device kernel there), scratch for the staged inputs.
template <class Sink, class ExecSpace, class Op, class OutT, class... InTs>
void launch_general_tiles(const Sink& sink, const char* label, const ExecSpace& exec, const Plan& p, const Op& op,
                          const Operand& out, const Operand* ins) {
  constexpr int K = 1 + int(sizeof...(InTs));
  const OperandList<K> operands(out, ins);
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<transpose_team>>;
  const TileFunctor<typename Policy::member_type, Op, OutT, InTs...> functor(
      op, bases_of<OutT, InTs...>(out, ins, std::index_sequence_for<InTs...>{}),
      TiledCoordinates<K>(p.geometry, p.cross_dim, p.tile_edge, operands.at), p);
  Policy policy(exec, int(p.league), is_device_execution_space_v<ExecSpace> ? p.team_size : 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(functor.scratch_bytes()));
  sink(label, policy, functor);
}

/// A device general plan to its kernel: tiles where it has a cross dimension, else GeneralFunctor over the
/// flattened order, 64-bit index math where the plan says (hosts run it too: the tests).
template <class Sink, class ExecSpace, class Op, class OutT, class... InTs>
void launch_general(const Sink& sink, const char* label, const ExecSpace& exec, const Plan& p, const Op& op,
                    const Operand& out, const Operand* ins) {
  if (p.cross_dim >= 0)
    return launch_general_tiles<Sink, ExecSpace, Op, OutT, InTs...>(sink, label, exec, p, op, out, ins);
  constexpr int K = 1 + int(sizeof...(InTs));
  const OperandList<K> operands(out, ins);
  const auto at = bases_of<OutT, InTs...>(out, ins, std::index_sequence_for<InTs...>{});
  const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>> policy(exec, 0, p.league);
  if (p.wide_indices)
    return sink(label, policy,
                GeneralFunctor<Strides<K>, Op, OutT, InTs...>{op, at, Strides<K>(p.geometry, operands.at), p});
  return sink(label, policy,
              GeneralFunctor<Coordinates<K, max_rank>, Op, OutT, InTs...>{
                  op, at, Coordinates<K, max_rank>(p.geometry, operands.at, 0), p});
}

/// A plan of several dimensions to its kernel: device rows (packed rows with one pack in flight per thread and
/// round, as the other row strategies) or general, host tiles walked row by row.
template <class Sink, class ExecSpace, class Op, class OutT, class... InTs>
void launch_ranked(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape, const Plan& p,
                   const Op& op, const Operand& out, const Operand* ins) {
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  constexpr int width = common_pack_elements<OutT, InTs...>;
  if constexpr (!device) {
    constexpr int K = 1 + int(sizeof...(InTs));
    const OperandList<K> operands(out, ins);
    const auto at = bases_of<OutT, InTs...>(out, ins, std::index_sequence_for<InTs...>{});
    const HostWalkFunctor<Op, OutT, InTs...> functor(at, p, Strides<K>(p.geometry, operands.at), op);
    if constexpr (std::is_same_v<Sink, LaunchNow>) {
      if (p.threads == 0)
        return as_tools_kernel(label, exec, [&] {
          for (std::int64_t tile = 0; tile < p.league; ++tile) functor(tile);
        });
#if defined(KOKKOS_ENABLE_OPENMP)
      if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
        if (p.own_region) return as_tools_kernel(label, exec, [&] { run_in_own_region(functor, p.league, p.threads); });
      }
#endif
    }
    return sink(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.league), functor);
  } else {
    switch (p.strategy) {
      case Strategy::packed:
        if constexpr (width > 1)
          return launch_tiles<ExecSpace, Strategy::packed, width, 1, true, Sink, Op, OutT, InTs...>(
              sink, label, exec, shape, p, op, out, ins);
        break;
      case Strategy::shifted:
        if constexpr (width > 1 && sizeof(OutT) < 4 && sizeof...(InTs) <= max_shifted_inputs)
          return launch_tiles<ExecSpace, Strategy::shifted, width, 1, true, Sink, Op, OutT, InTs...>(
              sink, label, exec, shape, p, op, out, ins);
        break;
      case Strategy::contiguous:
        return launch_tiles<ExecSpace, Strategy::contiguous, 1, elements_per_pack(sizeof(OutT)), true, Sink, Op, OutT,
                            InTs...>(sink, label, exec, shape, p, op, out, ins);
      case Strategy::general:
        return launch_general<Sink, ExecSpace, Op, OutT, InTs...>(sink, label, exec, p, op, out, ins);
      default:
        break;
    }
  }
  throw std::logic_error(std::string(label) + ": no kernel for the " + plan_name(p) + " plan");
}

/// A call on checked views (`operands`, from check_arguments): plan, then the kernel of the plan's dimensions,
/// labelled `label` and the plan's strategy (kernel_label).
template <class Sink, class ExecSpace, class OutView, class Op, class... InViews>
void run_on_views(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape,
                  const CallOperands<sizeof...(InViews)>& operands, const OutView&, const Op& op, const InViews&...) {
  using OutT = typename OutView::value_type;
  const Operand& target = operands.out;
  const Operand* const sources = operands.ins;
  const Plan p = plan_on(label, exec, shape, std::is_same_v<Sink, LaunchNow>, target, sources, int(sizeof...(InViews)));
  if (p.league == 0) return;
  label = Kokkos::Tools::profileLibraryLoaded() ? kernel_label(label, p) : label;  // only a tool reads it
  if (OutView::rank() == 1 || p.geometry.dims <= 1)
    return launch_flat<Sink, ExecSpace, Op, OutT, std::remove_const_t<typename InViews::value_type>...>(
        sink, label, exec, shape, p, op, target, sources);
  if constexpr (OutView::rank() > 1)
    launch_ranked<Sink, ExecSpace, Op, OutT, std::remove_const_t<typename InViews::value_type>...>(
        sink, label, exec, shape, p, op, target, sources);
}

}  // namespace kstream::impl

#include <kstream/impl/instantiations.hpp>

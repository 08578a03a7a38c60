#pragma once
// One elementwise call from views to a kernel: the views become plain operands (pointer, extent, stride), so
// every layout of one element type shares one set of kernels; plan() (src/plan.cpp) picks the strategy; the
// kernel goes to a sink, which runs it now (LaunchNow) or appends it to a graph (AppendToGraph, kstream::record).
//
//   device  TeamPolicy, one team per tile (elements: a RangePolicy of one element per index)
//   host    RangePolicy of tiles, each one thread's loop; a short OpenMP call runs on the calling thread, and on
//           Kokkos' default OpenMP instance kstream opens the region itself (a mid-small call on fewer threads)
//
// The common calls (add and fma of float, double and the 16-bit types, on every enabled backend, run now or
// recorded) are compiled once in the kstream library (src/instantiate.cpp.in); instantiations.hpp declares them.
#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>
#include <any>
#include <cstdint>
#include <kstream/impl/host_region.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/tiled_functor.hpp>
#include <kstream/tiling.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kstream::impl {

/// A rank-1 operand as the kernels see it.
template <class T>
struct Operand {
  T* data;
  std::int64_t extent;
  std::int64_t stride;  // in elements
};

template <class View>
Operand<typename View::value_type> operand_of(const View& v) {
  return {v.data(), std::int64_t(v.extent(0)), std::int64_t(v.stride(0))};
}

/// An input view as the kernels read it (its elements const).
template <class View>
Operand<const typename View::value_type> input_of(const View& v) {
  const auto operand = operand_of(v);
  return {operand.data, operand.extent, operand.stride};
}

/// Runs the kernel now.
struct LaunchNow {
  template <class Policy, class Functor>
  void operator()(const char* label, const Policy& policy, const Functor& functor) const {
    Kokkos::parallel_for(label, policy, functor);
  }
  /// A reduction into a Kokkos reducer (kstream/reduce.hpp).
  template <class Policy, class Functor, class Reducer>
  void reduce(const char* label, const Policy& policy, const Functor& functor, const Reducer& reducer) const {
    Kokkos::parallel_reduce(label, policy, functor, reducer);
  }
  /// Something the kernels use after the call returns: nothing to keep, a call's kernels finish with it or with
  /// the deallocation's fence.
  template <class T>
  void keep(const T&) const {}
};

/// Appends the kernel to a graph after the last node (kstream::record's program order).
template <class ExecSpace>
struct AppendToGraph {
  Kokkos::Experimental::GraphNodeRef<ExecSpace>* last;
  std::size_t* kernels;
  std::vector<std::any>* held;  // what the recording keeps alive (its views, a reduction's partials)
  template <class Policy, class Functor>
  void operator()(const char* label, const Policy& policy, const Functor& functor) const {
    *last = last->then_parallel_for(std::string(label), policy, functor);
    ++*kernels;
  }
  template <class Policy, class Functor, class Reducer>
  void reduce(const char* label, const Policy& policy, const Functor& functor, const Reducer& reducer) const {
    Reducer into = reducer;  // Kokkos takes the reducer by non-const reference
    *last = last->then_parallel_reduce(std::string(label), policy, functor, into);
    ++*kernels;
  }
  template <class T>
  void keep(const T& value) const {
    held->emplace_back(value);
  }
};

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

template <class T>
OperandFacts facts_of(const Operand<T>& v) {
  return {reinterpret_cast<std::uintptr_t>(v.data), v.stride, int(sizeof(T))};
}

/// The plan of a call on exec; `now`: run now (a short OpenMP call may then run on the calling thread).
template <class ExecSpace, class OutT, class... InTs>
Plan plan_on(const char* label, const ExecSpace& exec, const TileShape& shape, [[maybe_unused]] bool now,
             const Operand<OutT>& out, const Operand<InTs>&... ins) {
  const OperandFacts in_facts[] = {facts_of(ins)...};
  CallFacts call;
  call.label = label;
  call.device = is_device_execution_space_v<ExecSpace>;
#if defined(KOKKOS_ENABLE_OPENMP)
  call.may_run_inline = now && std::is_same_v<ExecSpace, Kokkos::OpenMP>;
  call.own_region = call.may_run_inline && opens_own_region(exec);
#endif
  call.threads = call.device ? 1 : exec.concurrency();
  call.cache_bytes = device_cache_bytes(exec);
  call.shape = shape;
  call.default_shape = shape == default_tile_shape<ExecSpace>();
  call.n = out.extent;
  call.out = facts_of(out);
  call.ins = in_facts;
  call.inputs = int(sizeof...(InTs));
  return plan(call);
}

/// The plan kstream makes for a call on these views (tests and the benchmark's counters).
template <class ExecSpace, class OutView, class... InViews>
Plan plan_of(const ExecSpace& exec, const TileShape& shape, const OutView& out, const InViews&... ins) {
  return plan_on("kstream", exec, shape, true, operand_of(out), operand_of(ins)...);
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

template <class ExecSpace, Strategy Mode, int Width, int Items, class Sink, class Op, class OutT, class... InTs>
void launch_tiles(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape, const Plan& p,
                  const Op& op, const Operand<OutT>& out, const Operand<const InTs>&... ins) {
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  TiledFunctor<ExecSpace, Mode, Width, device ? Items : 1, Op, OutT, InTs...> functor(out.data, {{ins.data}...}, p, op);
  if constexpr (Mode == Strategy::strided) {
    functor.out_stride = out.stride;
    const std::int64_t strides[] = {ins.stride...};
    for (std::size_t k = 0; k < sizeof...(InTs); ++k) functor.in_strides[k] = strides[k];
  }
  if constexpr (Mode == Strategy::shifted) {
    for (std::size_t k = 0; k < sizeof...(InTs); ++k) functor.shift[k] = p.shifts[k];
  }
  if constexpr (!device) functor.streaming_stores = p.streaming_stores;
  if (shape != default_tile_shape<ExecSpace>()) check_team_size(label, exec, shape, functor);
  if constexpr (device) {
#if defined(KOKKOS_ENABLE_CUDA)
    // Shifted packs of one or two inputs are compiled for full occupancy (8 teams of 256 per multiprocessor):
    // unbounded, bf16 add took 36 registers (docs/engine.md). Three inputs spill when bounded.
    if constexpr (Mode == Strategy::shifted && sizeof...(InTs) <= 2 && std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      constexpr int team = default_tile_shape<ExecSpace>().team_size;
      if (shape == default_tile_shape<ExecSpace>())
        return sink(label,
                    Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<team, 2048 / team>>(exec, int(p.league), team),
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

/// The engine's entry: checks nothing (the callers do), plans, and hands the kernel to `sink`.
template <class Sink, class ExecSpace, class Op, class OutT, class... InTs>
void run_elementwise(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape, const Op& op,
                     Operand<OutT> out, Operand<const InTs>... ins) {
  const Plan p = plan_on(label, exec, shape, std::is_same_v<Sink, LaunchNow>, out, ins...);
  if (out.extent == 0) return;
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  constexpr int width = ((sizeof(InTs) == sizeof(OutT)) && ...) ? elements_per_pack(sizeof(OutT)) : 1;
  constexpr int elements_in_flight = elements_per_pack(sizeof(OutT));
  switch (p.strategy) {
    case Strategy::elements:
      if constexpr (device) {
        const std::int32_t in_strides[] = {std::int32_t(ins.stride)...};
        return sink(
            label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, out.extent),
            ElementsFunctor<Op, OutT, InTs...>(out.data, {{ins.data}...}, std::int32_t(out.stride), in_strides, op));
      }
      break;
    case Strategy::packed:
      if constexpr (width > 1) {
        if constexpr (device) {
          switch (p.items_in_flight) {
            case 2:
              return launch_tiles<ExecSpace, Strategy::packed, width, 2>(sink, label, exec, shape, p, op, out, ins...);
            case 4:
              return launch_tiles<ExecSpace, Strategy::packed, width, 4>(sink, label, exec, shape, p, op, out, ins...);
            case 8:
              return launch_tiles<ExecSpace, Strategy::packed, width, 8>(sink, label, exec, shape, p, op, out, ins...);
            default:
              break;
          }
        }
        return launch_tiles<ExecSpace, Strategy::packed, width, 1>(sink, label, exec, shape, p, op, out, ins...);
      }
      break;
    case Strategy::shifted:
      if constexpr (device && width > 1 && sizeof(OutT) < 4 && sizeof...(InTs) <= max_shifted_inputs)
        return launch_tiles<ExecSpace, Strategy::shifted, width, 1>(sink, label, exec, shape, p, op, out, ins...);
      break;
    case Strategy::contiguous:
      return launch_tiles<ExecSpace, Strategy::contiguous, 1, elements_in_flight>(sink, label, exec, shape, p, op, out,
                                                                                  ins...);
    case Strategy::strided:
      return launch_tiles<ExecSpace, Strategy::strided, 1, elements_in_flight>(sink, label, exec, shape, p, op, out,
                                                                               ins...);
  }
  throw std::logic_error(std::string(label) + ": no kernel for the " + strategy_name(p.strategy) + " strategy");
}

/// run_elementwise on views.
template <class Sink, class ExecSpace, class OutView, class Op, class... InViews>
void run_on_views(const Sink& sink, const char* label, const ExecSpace& exec, const TileShape& shape,
                  const OutView& out, const Op& op, const InViews&... ins) {
  using OutT = typename OutView::value_type;
  run_elementwise<Sink, ExecSpace, Op, OutT, std::remove_const_t<typename InViews::value_type>...>(
      sink, label, exec, shape, op, operand_of(out), input_of(ins)...);
}

}  // namespace kstream::impl

#include <kstream/impl/instantiations.hpp>

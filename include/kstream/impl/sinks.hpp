#pragma once
// Where a kernel goes: run now (LaunchNow), or appended to a Kokkos Graph (AppendToGraph, kstream::record). Every
// engine (elementwise calls, reductions) hands its kernels to one of these.
#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>
#include <any>
#include <cstddef>
#include <string>
#include <vector>

namespace kstream::impl {

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

}  // namespace kstream::impl

#pragma once
// What the row operations' kernels (kstream/impl/row_kernel.hpp, row_host.hpp) and statistics
// (kstream/row_statistics.hpp) share: the type an element is computed in, a statistic's optional parts, and the
// constants an op takes from a slice's statistics.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/low_precision.hpp>
#include <type_traits>

namespace kstream::impl {

/// What an element is computed in: double for double, float for float and the 16-bit types.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<std::remove_cv_t<T>, double>, double, float>;

/// x as compute_t (16-bit types through float).
template <class V>
KOKKOS_FORCEINLINE_FUNCTION compute_t<V> compute_value(V v) {
  if constexpr (is_low_precision_v<V>) {
    return to_float(v);
  } else {
    return compute_t<V>(v);
  }
}

/// Whether a statistic has its own loop over adjacent elements (add_run), and a start from a slice's first element
/// (traits at namespace scope: nvcc 13 rejects these requires-expressions inside the kernel's member templates).
template <class Stat, class State, class T>
inline constexpr bool has_add_run_v = requires(const Stat& stat, State& s, const T* x, std::int64_t n) {
  stat.add_run(s, x, n);
};
template <class Stat, class T>
inline constexpr bool has_start_v = requires(const Stat& stat, compute_t<T> c) { stat.template start<T>(c); };

/// The statistics of a slice as an op sees them: op.row(state) where the op has it (a row's constants, computed
/// once), else the state.
template <class Op, class State>
KOKKOS_INLINE_FUNCTION auto row_constants(const Op& op, const State& s) {
  if constexpr (requires { op.row(s); }) {
    return op.row(s);
  } else {
    return s;
  }
}

}  // namespace kstream::impl

#pragma once
// 16-bit floating point: Kokkos::Experimental::half_t (IEEE binary16) and bhalf_t (bfloat16).
//
// kstream's add, fma and transform accept views of both on every backend. Semantics, the same on every backend
// and Kokkos version: compute in float, round once to the storage type (round to nearest even), as PyTorch does:
//   add(x, y)    = round(float(x) + float(y))
//   fma(a, b, c) = round(fmaf(float(a), float(b), float(c)))
// The conversions go through float explicitly (kstream::to_float, kstream::from_float<T>), not through the half
// types' own arithmetic operators, which differ between Kokkos versions. Use the same two in your own
// transform ops, e.g. bf16 inputs and a float output:
//   kstream::transform(exec, out_float, KOKKOS_LAMBDA(bhalf_t x, bhalf_t y) {
//     return kstream::to_float(x) * kstream::to_float(y); }, x, y);
// Packs stay 16 bytes: 8 elements per pack.
//
// Where Kokkos has no 16-bit type for a build (host-only builds: Serial, OpenMP), Kokkos defines half_t and
// bhalf_t as float (KOKKOS_HALF_T_IS_FLOAT): they are then float in kstream too, 4 bytes, rounding to float.
#include <Kokkos_Core.hpp>
#include <type_traits>

namespace kstream {

/// A real 16-bit half_t / bhalf_t in this build (false where Kokkos makes them float).
template <class T>
inline constexpr bool is_half_v =
    !KOKKOS_HALF_T_IS_FLOAT && std::is_same_v<std::remove_cv_t<T>, Kokkos::Experimental::half_t>;
template <class T>
inline constexpr bool is_bhalf_v =
    !KOKKOS_BHALF_T_IS_FLOAT && std::is_same_v<std::remove_cv_t<T>, Kokkos::Experimental::bhalf_t>;
template <class T>
inline constexpr bool is_low_precision_v = is_half_v<T> || is_bhalf_v<T>;

/// The value as float (exact for half_t and bhalf_t).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION float to_float(T x) {
  if constexpr (is_half_v<T>) {
    return Kokkos::Experimental::cast_from_half<float>(x);
  } else if constexpr (is_bhalf_v<T>) {
    return Kokkos::Experimental::cast_from_bhalf<float>(x);
  } else {
    return static_cast<float>(x);
  }
}

/// A float rounded (to nearest even) to T.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T from_float(float x) {
  if constexpr (is_half_v<T>) {
    return Kokkos::Experimental::cast_to_half(x);
  } else if constexpr (is_bhalf_v<T>) {
    return Kokkos::Experimental::cast_to_bhalf(x);
  } else {
    return static_cast<T>(x);
  }
}

}  // namespace kstream

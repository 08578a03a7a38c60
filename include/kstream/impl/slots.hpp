#pragma once
// A minimal device-friendly tuple for functors that hold one member per input (std::tuple is not usable in
// device code on every backend).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <utility>

namespace kstream::impl {

/// A minimal device-friendly tuple: Slots<index_sequence<0..N-1>, T0..TN-1>, read with get<I>.
template <std::size_t I, class T>
struct Slot {
  T value;
};
template <class Seq, class... Ts>
struct Slots;
template <std::size_t... Is, class... Ts>
struct Slots<std::index_sequence<Is...>, Ts...> : Slot<Is, Ts>... {};

template <std::size_t I, class T>
KOKKOS_FORCEINLINE_FUNCTION T& get(Slot<I, T>& slot) {
  return slot.value;
}
template <std::size_t I, class T>
KOKKOS_FORCEINLINE_FUNCTION const T& get(const Slot<I, T>& slot) {
  return slot.value;
}

}  // namespace kstream::impl

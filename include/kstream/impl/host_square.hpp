#pragma once
// Host transposes in registers: a square of S x S elements, S = host_square_bytes of the element (8 floats,
// 4 doubles, 16 16-bit), read along one dimension as S vectors and handed out along the other after log2(S)
// rounds of two-vector shuffles (the vector extensions of GCC and Clang). Where the compiler has no shuffles,
// host_square_edge is 0 and the callers keep their element loops.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

// Clang: __builtin_shufflevector; GCC (and front ends that take its extensions, as nvcc's): __builtin_shuffle,
// whose mask is a vector (GCC 12 cannot expand a pack in __builtin_shufflevector's indices).
#if defined(__clang__)
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define KSTREAM_HOST_SHUFFLES 1
#endif
#endif
#elif defined(__GNUC__)
#define KSTREAM_HOST_SHUFFLES 1
#endif
#ifndef KSTREAM_HOST_SHUFFLES
#define KSTREAM_HOST_SHUFFLES 0
#endif

namespace kstream::impl {

inline constexpr int host_square_bytes = 32;

/// Elements along each side of a host square of elements of `bytes` bytes; 0 where they are not transposed in
/// registers.
constexpr int host_square_edge(int bytes) {
  return KSTREAM_HOST_SHUFFLES && (bytes == 2 || bytes == 4 || bytes == 8) ? host_square_bytes / bytes : 0;
}

template <class T>
inline constexpr int host_square_edge_of = std::is_trivially_copyable_v<T> ? host_square_edge(int(sizeof(T))) : 0;

#if KSTREAM_HOST_SHUFFLES
template <int Bytes>
struct SquareLanes {
  using Lane =
      std::conditional_t<Bytes == 2, std::uint16_t, std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>;
  static constexpr int S = host_square_bytes / Bytes;
  typedef Lane Vector __attribute__((vector_size(host_square_bytes)));

  /// Rows a and b after the round that swaps their H x H blocks off the diagonal (by reference: a vector
  /// argument's ABI depends on the target's vector width).
  template <int H, int... L>
  static void swap_blocks(Vector& a, Vector& b, std::integer_sequence<int, L...>) {
    const Vector x = a, y = b;
#if defined(__clang__)
    a = __builtin_shufflevector(x, y, ((L & H) == 0 ? L : S + L - H)...);
    b = __builtin_shufflevector(x, y, ((L & H) == 0 ? L + H : S + L)...);
#else
    const Vector first = {Lane((L & H) == 0 ? L : S + L - H)...}, second = {Lane((L & H) == 0 ? L + H : S + L)...};
    a = __builtin_shuffle(x, y, first);
    b = __builtin_shuffle(x, y, second);
#endif
  }

  /// Rounds H, 2H, ... S/2: after them row r holds what column r held.
  template <int H>
  static void rounds(Vector (&row)[S]) {
    if constexpr (H < S) {
      for (int k = 0; k < S; ++k) {
        if ((k & H) != 0) continue;
        swap_blocks<H>(row[k], row[k | H], std::make_integer_sequence<int, S>{});
      }
      rounds<2 * H>(row);
    }
  }
};
#endif

/// square[c * S + i] = source[i * stride + c] for c, i < S: S rows of `source` read along c.
/// Only where host_square_edge_of<T> > 0.
template <class T>
[[gnu::always_inline]] inline void load_across(const T* source, std::int64_t stride, T* square) {
#if KSTREAM_HOST_SHUFFLES
  using Lanes = SquareLanes<int(sizeof(T))>;
  constexpr int S = Lanes::S;
  typename Lanes::Vector row[S];
  for (int i = 0; i < S; ++i) std::memcpy(&row[i], source + i * stride, host_square_bytes);
  Lanes::template rounds<1>(row);
  for (int c = 0; c < S; ++c) std::memcpy(static_cast<void*>(square + c * S), &row[c], host_square_bytes);
#else
  (void)source, (void)stride, (void)square;
#endif
}

}  // namespace kstream::impl

#pragma once
// One operand as the engine sees it, whatever its layout or rank: where its elements lie. The checks, the plan,
// the launch, the reductions and the tests read this one description, made from a Kokkos::View by operand_of.
#include <cstdint>

namespace kstream::impl {

/// The ranks kstream takes: 1 to Kokkos' own limit.
inline constexpr int max_rank = 8;

struct Operand {
  std::uintptr_t address = 0;  ///< its first element (the view's data())
  int element_bytes = 4;
  int rank = 1;
  std::int64_t extents[max_rank] = {};
  std::int64_t strides[max_rank] = {};  ///< in elements

  /// Elements: the product of the extents.
  std::int64_t size() const {
    std::int64_t n = 1;
    for (int r = 0; r < rank; ++r) n *= extents[r];
    return n;
  }
  /// Bytes from the first element to one past the last (0 for an empty operand).
  std::int64_t span_bytes() const {
    std::int64_t last = 0;
    for (int r = 0; r < rank; ++r) {
      if (extents[r] == 0) return 0;
      last += (extents[r] - 1) * strides[r];
    }
    return (last + 1) * element_bytes;
  }
  template <class T>
  T* data() const {
    return reinterpret_cast<T*>(address);
  }
};

/// A rank-1 operand: n elements `stride` apart.
inline Operand flat_operand(std::uintptr_t address, int element_bytes, std::int64_t n, std::int64_t stride) {
  Operand o;
  o.address = address;
  o.element_bytes = element_bytes;
  o.extents[0] = n;
  o.strides[0] = stride;
  return o;
}

template <class View>
Operand operand_of(const View& v) {
  static_assert(View::rank() >= 1 && int(View::rank()) <= max_rank, "kstream: views must be rank 1 to 8");
  Operand o;
  o.address = reinterpret_cast<std::uintptr_t>(v.data());
  o.element_bytes = int(sizeof(typename View::value_type));
  o.rank = int(View::rank());
  for (int r = 0; r < o.rank; ++r) {
    o.extents[r] = std::int64_t(v.extent(r));
    o.strides[r] = std::int64_t(v.stride(r));
  }
  return o;
}

}  // namespace kstream::impl

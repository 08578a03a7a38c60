#pragma once
// Views of rank 1 to 8 placed inside a guarded parent allocation: any offset and strides per dimension (Kokkos'
// layouts, padded rows, interiors of a halo, transposes, strided inner dimensions), the host copy of every
// element, and the check that nothing outside the view changed.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>

#include "test_support.hpp"

namespace kstream::test {

/// T with R pointer levels: T***.
template <class T, int R>
struct with_rank {
  using type = typename with_rank<T*, R - 1>::type;
};
template <class T>
struct with_rank<T, 0> {
  using type = T;
};

template <class T, int R, class MemorySpace>
using TensorView = Kokkos::View<typename with_rank<T, R>::type, Kokkos::LayoutStride, MemorySpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Where a rank-R view's elements sit in its parent: element (i0, ..., iR-1) at offset + sum of i_d * strides[d].
template <int R>
struct Mapping {
  std::string name;
  std::int64_t offset = 0;
  std::array<std::int64_t, R> strides{};
  std::string describe() const {
    std::ostringstream os;
    os << name << "{offset " << offset << " strides";
    for (const auto st : strides) os << ' ' << st;
    os << '}';
    return os.str();
  }
};

/// Strides of a packed layout whose dimensions, innermost first, are `order`, each padded to pitch[d] elements.
template <int R>
std::array<std::int64_t, R> packed_strides(const std::array<std::int64_t, R>& extents, const std::array<int, R>& order,
                                           std::int64_t inner_stride = 1, std::int64_t pad = 0) {
  std::array<std::int64_t, R> strides{};
  std::int64_t next = inner_stride;
  for (int j = 0; j < R; ++j) {
    strides[order[j]] = next;
    next *= extents[order[j]] + (j == 0 ? pad : 0);
  }
  return strides;
}

template <int R>
std::array<int, R> right_order() {  // the last index innermost
  std::array<int, R> order{};
  for (int j = 0; j < R; ++j) order[j] = R - 1 - j;
  return order;
}
template <int R>
std::array<int, R> left_order() {  // the first index innermost
  std::array<int, R> order{};
  std::iota(order.begin(), order.end(), 0);
  return order;
}

/// The mappings every rank-N test runs, for views of `extents`.
template <int R>
std::vector<Mapping<R>> standard_mappings(const std::array<std::int64_t, R>& extents) {
  std::vector<Mapping<R>> list;
  list.push_back({"right", 0, packed_strides<R>(extents, right_order<R>())});
  list.push_back({"left", 0, packed_strides<R>(extents, left_order<R>())});
  // The interior of a halo'd LayoutRight (LayoutLeft) allocation: one more element on each side of every dimension.
  for (const bool right : {true, false}) {
    std::array<std::int64_t, R> parent = extents;
    for (auto& e : parent) e += 2;
    Mapping<R> m{right ? "interior_right" : "interior_left", 0,
                 packed_strides<R>(parent, right ? right_order<R>() : left_order<R>())};
    m.offset = std::accumulate(m.strides.begin(), m.strides.end(), std::int64_t(0));
    list.push_back(m);
  }
  // Rows padded by 3 elements (row starts at every alignment), and rows padded to whole packs one element in.
  list.push_back({"padded3", 0, packed_strides<R>(extents, right_order<R>(), 1, 3)});
  const std::int64_t inner = extents[R - 1];
  list.push_back({"pitched16_offset1", 1, packed_strides<R>(extents, right_order<R>(), 1, (16 - inner % 16) % 16)});
  // A transposed layout: dimensions in a scrambled order.
  std::array<int, R> scrambled = right_order<R>();
  std::mt19937 rng(R);
  std::shuffle(scrambled.begin(), scrambled.end(), rng);
  list.push_back({"permuted", 2, packed_strides<R>(extents, scrambled)});
  list.push_back({"strided2", 0, packed_strides<R>(extents, right_order<R>(), 2)});
  return list;
}

/// A rank-R view at a mapping inside a parent whose other elements hold a sentinel.
template <class T, int R, class MemorySpace>
class GuardedTensor : public GuardedParent<T, MemorySpace> {
 public:
  GuardedTensor(const std::string& label, const std::array<std::int64_t, R>& extents, const Mapping<R>& mapping)
      : GuardedParent<T, MemorySpace>(label, parent_extent(extents, mapping)), extents_(extents), mapping_(mapping) {}

  TensorView<T, R, MemorySpace> view() const {
    Kokkos::LayoutStride layout;
    for (int d = 0; d < R; ++d) {
      layout.dimension[d] = std::size_t(extents_[d]);
      layout.stride[d] = std::size_t(mapping_.strides[d]);
    }
    return TensorView<T, R, MemorySpace>(this->parent_.data() + mapping_.offset, layout);
  }

  std::int64_t size() const {
    return std::accumulate(extents_.begin(), extents_.end(), std::int64_t(1), std::multiplies<>());
  }
  /// The multi-index of flat index i (the last index fastest).
  std::array<std::int64_t, R> index(std::int64_t i) const {
    std::array<std::int64_t, R> idx{};
    for (int d = R - 1; d >= 0; --d) {
      idx[d] = i % extents_[d];
      i /= extents_[d];
    }
    return idx;
  }
  std::int64_t position(const std::array<std::int64_t, R>& idx) const {
    std::int64_t p = mapping_.offset;
    for (int d = 0; d < R; ++d) p += idx[d] * mapping_.strides[d];
    return p;
  }
  T& at(std::int64_t i) { return this->host_[position(index(i))]; }
  T at(std::int64_t i) const { return this->host_[position(index(i))]; }

  /// Elements of the parent outside the view that no longer hold the sentinel.
  std::int64_t damaged_guard_elements() const {
    std::vector<unsigned char> mine(std::size_t(this->extent_), 0);
    for (std::int64_t i = 0; i < size(); ++i) mine[position(index(i))] = true;
    return this->damaged(mine);
  }

  const Mapping<R>& mapping() const { return mapping_; }

 private:
  static std::int64_t parent_extent(const std::array<std::int64_t, R>& extents, const Mapping<R>& m) {
    std::int64_t last = m.offset;
    for (int d = 0; d < R; ++d) last += std::max<std::int64_t>(extents[d] - 1, 0) * m.strides[d];
    return last + 1 + 17;  // and a guard past the last element
  }

  std::array<std::int64_t, R> extents_;
  Mapping<R> mapping_;
};

/// Small whole numbers (every sum and product exact), different per operand.
template <class T>
T small_value(std::int64_t i, int which) {
  return T(double((i * (2 * which + 3) + 5 * which) % 17) - 8.0);
}

}  // namespace kstream::test

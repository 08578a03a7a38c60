#pragma once
// Views of rank 1 to 8 placed inside a guarded parent allocation: any offset and strides per dimension (Kokkos'
// layouts, padded rows, interiors of a halo, transposes, strided inner dimensions), the host copy of every
// element, and the check that nothing outside the view changed. The rank is a run-time value here: only the
// calls under test are compiled per rank (call_at_rank), not the tests' setup and checks.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

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

/// A view's extents, one per dimension: its rank is their count (a run-time value, as in kstream's plan).
using Extents = std::vector<std::int64_t>;

/// The ranks a test's views take: the calls are compiled for these alone (AllRanks: 1 to 8).
template <int... R>
using Ranks = std::integer_sequence<int, R...>;
using AllRanks = Ranks<1, 2, 3, 4, 5, 6, 7, 8>;

/// Calls `f.template operator()<R>()` for R == rank, one of `Ranks`.
template <int... R, class F>
void call_at_rank(int rank, Ranks<R...>, F&& f) {
  const bool found = ((rank == R ? (f.template operator()<R>(), true) : false) || ...);
  if (!found) throw std::logic_error("rank " + std::to_string(rank) + " is not among the ranks this test compiles");
}

/// Where a view's elements sit in its parent: element (i0, ..., iR-1) at offset + sum of i_d * strides[d].
struct Mapping {
  std::string name;
  std::int64_t offset = 0;
  Extents strides;
  std::string describe() const {
    std::ostringstream os;
    os << name << "{offset " << offset << " strides";
    for (const auto st : strides) os << ' ' << st;
    os << '}';
    return os.str();
  }
};

/// Strides of a packed layout whose dimensions, innermost first, are `order`, each padded to pitch[d] elements.
inline Extents packed_strides(const Extents& extents, const std::vector<int>& order, std::int64_t inner_stride = 1,
                              std::int64_t pad = 0) {
  Extents strides(extents.size());
  std::int64_t next = inner_stride;
  for (std::size_t j = 0; j < order.size(); ++j) {
    strides[order[j]] = next;
    next *= extents[order[j]] + (j == 0 ? pad : 0);
  }
  return strides;
}

inline std::vector<int> right_order(int rank) {  // the last index innermost
  std::vector<int> order(rank);
  for (int j = 0; j < rank; ++j) order[j] = rank - 1 - j;
  return order;
}
inline std::vector<int> left_order(int rank) {  // the first index innermost
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

/// The mappings every rank-N test runs, for views of `extents`.
inline std::vector<Mapping> standard_mappings(const Extents& extents) {
  const int rank = int(extents.size());
  std::vector<Mapping> list;
  list.push_back({"right", 0, packed_strides(extents, right_order(rank))});
  list.push_back({"left", 0, packed_strides(extents, left_order(rank))});
  // The interior of a halo'd LayoutRight (LayoutLeft) allocation: one more element on each side of every dimension.
  for (const bool right : {true, false}) {
    Extents parent = extents;
    for (auto& e : parent) e += 2;
    Mapping m{right ? "interior_right" : "interior_left", 0,
              packed_strides(parent, right ? right_order(rank) : left_order(rank))};
    m.offset = std::accumulate(m.strides.begin(), m.strides.end(), std::int64_t(0));
    list.push_back(m);
  }
  // Rows padded by 3 elements (row starts at every alignment), and rows padded to whole packs one element in.
  const std::int64_t inner = extents[rank - 1];
  list.push_back({"padded3", 0, packed_strides(extents, right_order(rank), 1, 3)});
  list.push_back({"pitched16_offset1", 1, packed_strides(extents, right_order(rank), 1, (16 - inner % 16) % 16)});
  // A transposed layout: dimensions in a scrambled order.
  std::vector<int> scrambled = right_order(rank);
  std::mt19937 rng(rank);
  std::shuffle(scrambled.begin(), scrambled.end(), rng);
  list.push_back({"permuted", 2, packed_strides(extents, scrambled)});
  list.push_back({"strided2", 0, packed_strides(extents, right_order(rank), 2)});
  return list;
}

/// A view at a mapping inside a parent whose other elements hold a sentinel; its rank is its extents' count, and
/// view<R>() gives it as a rank-R Kokkos view.
template <class T, class MemorySpace>
class GuardedTensor : public GuardedParent<T, MemorySpace> {
 public:
  GuardedTensor(const std::string& label, const Extents& extents, const Mapping& mapping)
      : GuardedParent<T, MemorySpace>(label, parent_extent(extents, mapping)), extents_(extents), mapping_(mapping) {}

  template <int R>
  TensorView<T, R, MemorySpace> view() const {
    if (rank() != R)
      throw std::logic_error("a rank-" + std::to_string(rank()) + " tensor asked for a rank-" + std::to_string(R) +
                             " view");
    Kokkos::LayoutStride layout;
    for (int d = 0; d < R; ++d) {
      layout.dimension[d] = std::size_t(extents_[d]);
      layout.stride[d] = std::size_t(mapping_.strides[d]);
    }
    return TensorView<T, R, MemorySpace>(this->parent_.data() + mapping_.offset, layout);
  }

  int rank() const { return int(extents_.size()); }
  std::int64_t size() const {
    return std::accumulate(extents_.begin(), extents_.end(), std::int64_t(1), std::multiplies<>());
  }
  /// Where flat index i (the last index fastest) sits in the parent.
  std::int64_t position(std::int64_t i) const {
    std::int64_t p = mapping_.offset;
    for (int d = rank() - 1; d >= 0; --d) {
      p += i % extents_[d] * mapping_.strides[d];
      i /= extents_[d];
    }
    return p;
  }
  T& at(std::int64_t i) { return this->host_[position(i)]; }
  T at(std::int64_t i) const { return this->host_[position(i)]; }

  /// Elements of the parent outside the view that no longer hold the sentinel.
  std::int64_t damaged_guard_elements() const {
    std::vector<unsigned char> mine(std::size_t(this->extent_), 0);
    for (std::int64_t i = 0; i < size(); ++i) mine[position(i)] = true;
    return this->damaged(mine);
  }

 private:
  static std::int64_t parent_extent(const Extents& extents, const Mapping& m) {
    std::int64_t last = m.offset;
    for (std::size_t d = 0; d < extents.size(); ++d) last += std::max<std::int64_t>(extents[d] - 1, 0) * m.strides[d];
    return last + 1 + 17;  // and a guard past the last element
  }

  Extents extents_;
  Mapping mapping_;
};

/// Small whole numbers (every sum and product exact), different per operand.
template <class T>
T small_value(std::int64_t i, int which) {
  return T(double((i * (2 * which + 3) + 5 * which) % 17) - 8.0);
}

}  // namespace kstream::test

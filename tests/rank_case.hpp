#pragma once
// The rank-N tests' machinery: extents per rank, a case on guarded views of any mappings against a scalar
// reference by multi-index, and the mapping combinations every test runs (tests/test_rank_n*.cpp).
#include <kstream/kstream.hpp>

#include "elementwise_case.hpp"
#include "tensor_case.hpp"

namespace kstream::test {

/// Extents per rank: odd innermost extents, a 1 among them, rows long enough for the device's rows (and short
/// ones: the other layout's innermost dimension) where the rank allows.
inline Extents test_extents(int rank) {
  switch (rank) {
    case 1:
      return {1003};
    case 2:
      return {133, 259};
    case 3:
      return {5, 3, 131};
    case 4:
      return {3, 1, 4, 67};
    case 5:
      return {2, 3, 1, 3, 37};
    case 6:
      return {2, 2, 3, 1, 2, 33};
    case 7:
      return {2, 1, 2, 3, 2, 2, 9};
    case 8:
      return {2, 3, 1, 2, 2, 1, 3, 7};
  }
  throw std::invalid_argument("test_extents: rank " + std::to_string(rank) + ", not 1 to 8");
}

/// The reduction tests' operations: x * y, y - x, and the square of the first in the accumulator type (the fused
/// update-and-norm's reduce_op).
template <class T>
struct Times {
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const { return T(a * b); }
};
template <class T>
struct Minus {
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const { return T(a - b); }
};
template <class T>
struct SquareOfFirst {
  KOKKOS_INLINE_FUNCTION kstream::accumulator_t<T> operator()(T updated, T, T) const {
    return kstream::accumulator_t<T>(updated) * kstream::accumulator_t<T>(updated);
  }
};

/// Runs `launch(exec, out_view, input_views...)` on operands at `maps` (output first; `alias` >= 0: the output is
/// that input itself), views of the extents' rank (one of `Rs`), and compares with `reference(inputs...)` at every
/// multi-index. "" or what went wrong.
template <class C, std::size_t Arity, class Rs = AllRanks, class Launch, class Reference>
std::string run_tensor_case(const Extents& extents, const std::array<Mapping, Arity + 1>& maps, Launch&& launch,
                            Reference&& reference, int alias = -1) {
  using T = typename C::value_type;
  using Tensor = GuardedTensor<T, typename C::memory_space>;
  std::vector<Tensor> ins;
  ins.reserve(Arity);
  for (std::size_t k = 0; k < Arity; ++k) {
    ins.emplace_back("in" + std::to_string(k), extents, maps[k + 1]);
    for (std::int64_t i = 0; i < ins[k].size(); ++i) ins[k].at(i) = small_value<T>(i, int(k));
    ins[k].upload();
  }
  Tensor own_out("out", extents, maps[0]);
  own_out.upload();
  Tensor& out = alias >= 0 ? ins[alias] : own_out;
  std::vector<T> expected(std::size_t(out.size()));
  for (std::int64_t i = 0; i < out.size(); ++i) expected[i] = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return reference(ins[Is].at(i)...);
    }
  (std::make_index_sequence<Arity>{});
  call_at_rank(int(extents.size()), Rs{}, [&]<int R>() {
    [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      launch(typename C::execution_space(), out.template view<R>(), ins[Is].template view<R>()...);
    }
    (std::make_index_sequence<Arity>{});
  });
  out.download();
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t i = 0; i < out.size(); ++i)
    if (!same_bits(out.at(i), expected[i]) && wrong++ == 0) first = i;
  std::string error;
  if (wrong > 0)
    error = std::to_string(wrong) + " wrong elements, first at flat index " + std::to_string(first) + ": got " +
            std::to_string(double(out.at(first))) + " expected " + std::to_string(double(expected[first])) + ". ";
  if (const auto damaged = out.damaged_guard_elements(); damaged > 0)
    error += std::to_string(damaged) + " elements outside the output view were overwritten.";
  return error;
}

template <std::size_t N>
std::string describe(const std::array<Mapping, N>& maps) {
  std::string s = "rank " + std::to_string(maps[0].strides.size()) + ": out " + maps[0].describe();
  for (std::size_t k = 1; k < N; ++k) s += ", in" + std::to_string(k - 1) + " " + maps[k].describe();
  return s;
}

/// Each mapping for every operand, then mixed mappings: the layouts of one call differ.
template <std::size_t N>
std::vector<std::array<Mapping, N>> mapping_combinations(const Extents& extents) {
  const auto list = standard_mappings(extents);
  std::vector<std::array<Mapping, N>> combos;
  for (const auto& m : list) {
    std::array<Mapping, N> all;
    all.fill(m);
    combos.push_back(all);
  }
  for (std::size_t shift = 1; shift < 4; ++shift) {
    std::array<Mapping, N> mixed;
    for (std::size_t k = 0; k < N; ++k) mixed[k] = list[(k * (2 * shift + 1) + shift) % list.size()];
    combos.push_back(mixed);
  }
  return combos;
}

}  // namespace kstream::test

#pragma once
// The rank-N tests' machinery: extents per rank, a case on guarded views of any mappings against a scalar
// reference by multi-index, and the mapping combinations every test runs (tests/test_rank_n*.cpp).
#include <kstream/kstream.hpp>

#include "elementwise_case.hpp"
#include "tensor_case.hpp"

namespace kstream::test {

/// Extents per rank: odd innermost extents, a 1 among them, rows long enough for the device's rows (and short
/// ones: the other layout's innermost dimension) where the rank allows.
template <int R>
std::array<std::int64_t, R> test_extents() {
  if constexpr (R == 1) return {1003};
  if constexpr (R == 2) return {133, 259};
  if constexpr (R == 3) return {5, 3, 131};
  if constexpr (R == 4) return {3, 1, 4, 67};
  if constexpr (R == 5) return {2, 3, 1, 3, 37};
  if constexpr (R == 6) return {2, 2, 3, 1, 2, 33};
  if constexpr (R == 7) return {2, 1, 2, 3, 2, 2, 9};
  if constexpr (R == 8) return {2, 3, 1, 2, 2, 1, 3, 7};
}

/// Runs `launch(exec, out_view, input_views...)` on operands at `maps` (output first; `alias` >= 0: the output is
/// that input itself) and compares with `reference(inputs...)` at every multi-index. "" or what went wrong.
template <class C, int R, std::size_t Arity, class Launch, class Reference>
std::string run_tensor_case(const std::array<std::int64_t, R>& extents, const std::array<Mapping<R>, Arity + 1>& maps,
                            Launch&& launch, Reference&& reference, int alias = -1) {
  using T = typename C::value_type;
  using Tensor = GuardedTensor<T, R, typename C::memory_space>;
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
  [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    launch(typename C::execution_space(), out.view(), ins[Is].view()...);
  }
  (std::make_index_sequence<Arity>{});
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

template <int R, std::size_t N>
std::string describe(const std::array<Mapping<R>, N>& maps) {
  std::string s = "rank " + std::to_string(R) + ": out " + maps[0].describe();
  for (std::size_t k = 1; k < N; ++k) s += ", in" + std::to_string(k - 1) + " " + maps[k].describe();
  return s;
}

/// Each mapping for every operand, then mixed mappings: the layouts of one call differ.
template <int R, std::size_t N>
std::vector<std::array<Mapping<R>, N>> mapping_combinations(const std::array<std::int64_t, R>& extents) {
  const auto list = standard_mappings<R>(extents);
  std::vector<std::array<Mapping<R>, N>> combos;
  for (const auto& m : list) {
    std::array<Mapping<R>, N> all;
    all.fill(m);
    combos.push_back(all);
  }
  for (std::size_t shift = 1; shift < 4; ++shift) {
    std::array<Mapping<R>, N> mixed;
    for (std::size_t k = 0; k < N; ++k) mixed[k] = list[(k * (2 * shift + 1) + shift) % list.size()];
    combos.push_back(mixed);
  }
  return combos;
}

}  // namespace kstream::test

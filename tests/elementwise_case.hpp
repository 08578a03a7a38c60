#pragma once
// One elementwise test case, run the same way for add, fma, transform and their naive twins: build the operands
// at their placements, compute the scalar reference on the host, launch, read back, compare bit for bit and
// check that nothing outside the output view changed.
#include <array>
#include <functional>
#include <kstream/tiling.hpp>
#include <limits>
#include <utility>

#include "test_support.hpp"

namespace kstream::test {

template <std::size_t Arity>
struct ElementwiseCase {
  std::int64_t n = 0;
  std::array<Placement, Arity> inputs{};
  Placement out{};
  int alias = -1;           ///< >= 0: out is that input itself (exact aliasing)
  bool non_finite = false;  ///< sprinkle NaN, +Inf and -Inf over the inputs
  std::uint64_t seed = 1;

  std::string describe() const {
    std::string s = "n=" + std::to_string(n) + " out{" + out.describe() + "}";
    for (std::size_t k = 0; k < Arity; ++k) s += " in" + std::to_string(k) + "{" + inputs[k].describe() + "}";
    if (alias >= 0) s += " out==in" + std::to_string(alias);
    if (non_finite) s += " non-finite";
    return s + " seed=" + std::to_string(seed);
  }
};

/// The default tile of this backend, in elements of T: the size around which tail bugs live.
template <class C>
std::int64_t tile_elements() {
  using T = typename C::value_type;
  return default_tile_shape<typename C::execution_space>().tile_packs() * (pack_bytes / std::int64_t(sizeof(T)));
}

namespace detail {
template <class C, std::size_t Arity, class Launch, class Reference, std::size_t... Is>
std::string run_case(const ElementwiseCase<Arity>& c, Launch&& launch, Reference&& reference,
                     std::index_sequence<Is...>) {
  using T = typename C::value_type;
  using Operand = GuardedOperand<T, typename C::memory_space>;
  std::vector<Operand> ins;
  ins.reserve(Arity);
  for (std::size_t k = 0; k < Arity; ++k) {
    ins.emplace_back("in" + std::to_string(k), c.n, c.inputs[k]);
    fill_values(ins[k], c.seed * 31 + k);
    if (c.non_finite) {
      constexpr T inf = std::numeric_limits<T>::infinity();
      for (std::int64_t i = 0; i < c.n; ++i) {
        if (i % 7 == std::int64_t(k)) ins[k].at(i) = std::numeric_limits<T>::quiet_NaN();
        if (i % 11 == std::int64_t(k)) ins[k].at(i) = inf;
        if (i % 13 == std::int64_t(k) + 1) ins[k].at(i) = -inf;
      }
    }
    ins[k].upload();
  }
  std::vector<T> expected(c.n);
  for (std::int64_t i = 0; i < c.n; ++i) expected[i] = reference(ins[Is].at(i)...);

  Operand own_out("out", c.alias >= 0 ? 0 : c.n, c.out);
  own_out.upload();
  Operand& out = c.alias >= 0 ? ins[c.alias] : own_out;
  typename C::execution_space exec;
  launch(exec, out.view(), ins[Is].view()...);
  out.download();
  return compare(out, expected);
}
}  // namespace detail

/// Returns "" on success, else what went wrong.
template <class C, std::size_t Arity, class Launch, class Reference>
std::string run_case(const ElementwiseCase<Arity>& c, Launch&& launch, Reference&& reference) {
  return detail::run_case<C>(c, launch, reference, std::make_index_sequence<Arity>{});
}

/// Runs one case through a tiled and a naive launch against the same reference; "" when both are right.
template <class C, std::size_t Arity, class Tiled, class Naive, class Reference>
std::string run_tiled_and_naive(const ElementwiseCase<Arity>& c, Tiled&& tiled, Naive&& naive, Reference&& reference) {
  const std::string tiled_error = run_case<C>(c, tiled, reference);
  const std::string naive_error = run_case<C>(c, naive, reference);
  return (tiled_error.empty() ? "" : "tiled: " + tiled_error) + (naive_error.empty() ? "" : " naive: " + naive_error);
}

/// A four-input operation with two roundings in a fixed order (fma, then add): host and device agree bit for bit
/// whatever the compiler's contraction rules.
struct FmaPlus {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b, T c, T d) const {
    const T fused = Kokkos::fma(a, b, c);
    return fused + d;
  }
};

/// Placements worth testing for every operation: aligned, equally offset (packed body with a scalar head),
/// unequally offset (scalar path), strided.
template <std::size_t Arity>
std::vector<std::pair<std::array<Placement, Arity>, Placement>> standard_placements() {
  std::vector<std::pair<std::array<Placement, Arity>, Placement>> result;
  auto all = [](Placement p) {
    std::array<Placement, Arity> a;
    a.fill(p);
    return a;
  };
  result.push_back({all({0, 1}), {0, 1}});
  result.push_back({all({3, 1}), {3, 1}});
  result.push_back({all({1, 1}), {5, 1}});
  std::array<Placement, Arity> mixed;
  for (std::size_t k = 0; k < Arity; ++k) mixed[k] = {std::int64_t(k) + 1, 1};
  result.push_back({mixed, {0, 1}});
  std::array<Placement, Arity> strided;
  for (std::size_t k = 0; k < Arity; ++k) strided[k] = {std::int64_t(k), std::int64_t(k) + 2};
  result.push_back({strided, {2, 3}});
  return result;
}

}  // namespace kstream::test

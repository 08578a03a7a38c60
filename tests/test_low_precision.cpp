// half_t and bhalf_t on every backend: add, fma and transform (tiled and naive) bit for bit against a host
// reference that applies the documented semantics (compute in float, round once to the storage type): random
// inputs, sizes around packs and tiles, operand offsets and strides, NaN/Inf, overflow to Inf, subnormals, the case
// where fusing matters, and mixed storage through transform. In builds where Kokkos makes the 16-bit types float
// (host-only builds) the same tests run on float, which is then what those types are.
#include <cmath>
#include <cstring>
#include <kstream/kstream.hpp>
#include <limits>
#include <random>

#include "test_support.hpp"

namespace kstream::test {
namespace {

using Kokkos::Experimental::bhalf_t;
using Kokkos::Experimental::half_t;

template <class Space>
using LowCasesFor = ::testing::Types<Case<Space, half_t>, Case<Space, bhalf_t>>;
using LowCases = ForEachTestedSpace<LowCasesFor>;

struct LowCaseNames {
  template <class C>
  static std::string GetName(int index) {
    // half_t and bhalf_t are the same type (float) where Kokkos has no 16-bit type: name them by position.
    return std::string(C::execution_space::name()) + (index % 2 == 0 ? "_half" : "_bf16");
  }
};

template <class C>
class LowPrecisionTest : public ::testing::Test {};
TYPED_TEST_SUITE(LowPrecisionTest, LowCases, LowCaseNames);

/// Operands as strided views into one parent each (offset, stride per operand), filled from host values.
template <class C>
struct Operands {
  using T = typename C::value_type;
  using View = Kokkos::View<T*, Kokkos::LayoutStride, typename C::memory_space>;
  std::vector<Kokkos::View<T*, typename C::memory_space>> parents;
  std::vector<View> views;
  std::int64_t n;

  Operands(std::int64_t n_, const std::vector<std::pair<std::int64_t, std::int64_t>>& placements) : n(n_) {
    for (const auto& [offset, stride] : placements) {
      parents.emplace_back("low", offset + std::max<std::int64_t>(n, 1) * stride + 8);
      Kokkos::deep_copy(parents.back(), from_float<T>(-7.0f));  // guard value around the views
      views.emplace_back(parents.back().data() + offset, Kokkos::LayoutStride(n, stride));
    }
  }
  void set(std::size_t k, const std::vector<float>& values) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parents[k]);
    const auto stride = views[k].stride(0);
    const auto offset = views[k].data() - parents[k].data();
    for (std::int64_t i = 0; i < n; ++i) host(offset + i * stride) = from_float<T>(values[i]);
    Kokkos::deep_copy(parents[k], host);
  }
  /// Host copy of a view's n elements and the count of parent elements outside it that changed from the guard.
  std::pair<std::vector<T>, std::int64_t> get(std::size_t k) const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parents[k]);
    const auto stride = views[k].stride(0);
    const auto offset = views[k].data() - parents[k].data();
    std::vector<T> values(n);
    std::vector<bool> mine(host.extent(0), false);
    for (std::int64_t i = 0; i < n; ++i) {
      values[i] = host(offset + i * stride);
      mine[offset + i * stride] = true;
    }
    std::int64_t damaged = 0;
    for (std::size_t e = 0; e < host.extent(0); ++e) damaged += !mine[e] && !same_bits(host(e), from_float<T>(-7.0f));
    return {values, damaged};
  }
};

/// Values with a spread of magnitudes (normal, subnormal, near the top of the range) and, optionally, specials.
template <class T>
std::vector<float> random_values(std::int64_t n, std::uint64_t seed, bool specials) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-26, 15);
  const float largest = to_float(from_float<T>(is_half_v<T> ? 65504.0f : 3.3e38f));
  std::vector<float> v(n);
  for (std::int64_t i = 0; i < n; ++i) {
    v[i] = to_float(from_float<T>(std::ldexp(mantissa(rng), exponent(rng))));
    if (specials) {
      switch (i % 11) {
        case 0:
          v[i] = std::numeric_limits<float>::quiet_NaN();
          break;
        case 3:
          v[i] = std::numeric_limits<float>::infinity();
          break;
        case 5:
          v[i] = -std::numeric_limits<float>::infinity();
          break;
        case 7:
          v[i] = largest;
          break;  // two of them overflow to Inf in half
        case 9:
          v[i] = to_float(from_float<T>(std::ldexp(1.0f, -24)));  // smallest half subnormal (bf16: normal)
      }
    }
  }
  return v;
}

template <class C, std::size_t Arity, class Launch, class Reference>
std::string run(std::int64_t n, const std::vector<std::pair<std::int64_t, std::int64_t>>& placements, bool specials,
                std::uint64_t seed, Launch&& launch, Reference&& reference) {
  using T = typename C::value_type;
  Operands<C> ops(n, placements);  // Arity inputs, then the output
  std::vector<std::vector<float>> in(Arity);
  for (std::size_t k = 0; k < Arity; ++k) {
    in[k] = random_values<T>(n, seed * 7 + k, specials);
    ops.set(k, in[k]);
  }
  launch(typename C::execution_space(), ops.views);
  const auto [out, damaged] = ops.get(Arity);
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    T expected;
    if constexpr (Arity == 2) expected = reference(in[0][i], in[1][i]);
    if constexpr (Arity == 3) expected = reference(in[0][i], in[1][i], in[2][i]);
    if (!same_bits(out[i], expected)) {
      if (first < 0) first = i;
      ++wrong;
    }
  }
  std::string error;
  if (wrong) error += std::to_string(wrong) + " wrong, first at i=" + std::to_string(first) + ". ";
  if (damaged) error += std::to_string(damaged) + " elements outside the output changed.";
  return error;
}

template <class T>
T add_reference(float x, float y) {
  return from_float<T>(x + y);
}
template <class T>
T fma_reference(float a, float b, float c) {
  return from_float<T>(std::fma(a, b, c));
}

TYPED_TEST(LowPrecisionTest, AddAndFmaMatchTheDocumentedSemantics) {
  using T = typename TypeParam::value_type;
  constexpr std::int64_t per_pack = 16 / sizeof(T);
  const std::int64_t tile = default_tile_shape<typename TypeParam::execution_space>().tile_packs() * per_pack;
  std::uint64_t seed = 0;
  for (const std::int64_t n : {std::int64_t(1), per_pack - 1, per_pack + 1, tile - 1, tile + 3, 3 * tile + 7}) {
    for (const bool specials : {false, true}) {
      // Offsets inside a pack for every operand (equal: packed path; unequal: single elements), and a stride.
      for (const std::vector<std::pair<std::int64_t, std::int64_t>>& place :
           std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>{{{0, 1}, {0, 1}, {0, 1}, {0, 1}},
                                                                           {{3, 1}, {3, 1}, {3, 1}, {3, 1}},
                                                                           {{1, 1}, {2, 1}, {3, 1}, {7, 1}},
                                                                           {{0, 2}, {1, 3}, {0, 1}, {5, 2}}}) {
        ++seed;
        const std::vector<std::pair<std::int64_t, std::int64_t>> add_place{place[0], place[1], place[3]};
        const std::string what =
            " n=" + std::to_string(n) + " specials=" + std::to_string(specials) + " seed=" + std::to_string(seed);
        EXPECT_EQ((run<TypeParam, 2>(
                      n, add_place, specials, seed,
                      [](auto exec, const auto& v) { kstream::add(exec, v[0], v[1], v[2]); }, add_reference<T>)),
                  "")
            << "add" << what;
        EXPECT_EQ((run<TypeParam, 2>(
                      n, add_place, specials, seed,
                      [](auto exec, const auto& v) { kstream::naive::add(exec, v[0], v[1], v[2]); }, add_reference<T>)),
                  "")
            << "naive add" << what;
        EXPECT_EQ((run<TypeParam, 3>(
                      n, place, specials, seed,
                      [](auto exec, const auto& v) { kstream::fma(exec, v[0], v[1], v[2], v[3]); }, fma_reference<T>)),
                  "")
            << "fma" << what;
        EXPECT_EQ(
            (run<TypeParam, 3>(
                n, place, specials, seed,
                [](auto exec, const auto& v) { kstream::naive::fma(exec, v[0], v[1], v[2], v[3]); }, fma_reference<T>)),
            "")
            << "naive fma" << what;
      }
    }
  }
}

// Unequally aligned views: every pair of offsets of the first two inputs inside a pack (fma's third input at
// another), against an aligned and an unaligned output, past a few packs and around tiles, for every
// packs_in_flight (compute-sanitizer checks the loads on a GPU; the guards here the stores).
TYPED_TEST(LowPrecisionTest, UnequallyAlignedAtEveryOffsetSizeAndPacksInFlight) {
  using T = typename TypeParam::value_type;
  constexpr std::int64_t per_pack = 16 / sizeof(T);
  std::uint64_t seed = 1000;
  for (const int packs : supported_packs_in_flight) {
    const TileShape shape{on_device<TypeParam> ? 32 : 1, packs, 2};
    const std::int64_t tile = shape.tile_packs() * per_pack;
    for (const std::int64_t n : {3 * per_pack + 5, tile + 1, 2 * tile + per_pack + 3}) {
      for (const std::int64_t out_offset : {std::int64_t(0), per_pack - 3}) {
        for (std::int64_t first = 0; first < per_pack; ++first) {
          for (std::int64_t second = 0; second < per_pack; ++second) {
            const std::string what = " n=" + std::to_string(n) + " packs_in_flight=" + std::to_string(packs) +
                                     " offsets " + std::to_string(first) + ", " + std::to_string(second) + " -> " +
                                     std::to_string(out_offset);
            ++seed;
            EXPECT_EQ(
                (run<TypeParam, 2>(
                    n, {{first, 1}, {second, 1}, {out_offset, 1}}, false, seed,
                    [&](auto exec, const auto& v) { kstream::add(exec, v[0], v[1], v[2], shape); }, add_reference<T>)),
                "")
                << "add" << what;
            const std::int64_t third = (first + second + 1) % per_pack;
            EXPECT_EQ((run<TypeParam, 3>(
                          n, {{first, 1}, {second, 1}, {third, 1}, {out_offset, 1}}, false, seed,
                          [&](auto exec, const auto& v) { kstream::fma(exec, v[0], v[1], v[2], v[3], shape); },
                          fma_reference<T>)),
                      "")
                << "fma" << what << " (third input at " << third << ")";
          }
        }
      }
    }
  }
}

struct FmaThroughTransform {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b, T c) const {
    return from_float<T>(Kokkos::fma(to_float(a), to_float(b), to_float(c)));
  }
};

TYPED_TEST(LowPrecisionTest, TransformAndRandomShapes) {
  using T = typename TypeParam::value_type;
  std::mt19937_64 rng(2026);
  for (int k = 0; k < 40; ++k) {
    const std::int64_t n = std::int64_t(rng() % 3000);
    std::vector<std::pair<std::int64_t, std::int64_t>> place(4);
    for (auto& p : place) p = {std::int64_t(rng() % 8), std::int64_t(rng() % 5 == 0 ? 2 : 1)};
    const TileShape shape{on_device<TypeParam> ? int(32 << (rng() % 3)) : 1, supported_packs_in_flight[rng() % 4],
                          int(1 + rng() % 3)};
    EXPECT_EQ((run<TypeParam, 3>(
                  n, place, k % 4 == 0, 100 + k,
                  [&](auto exec, const auto& v) {
                    kstream::transform(exec, shape, v[3], FmaThroughTransform{}, v[0], v[1], v[2]);
                  },
                  fma_reference<T>)),
              "")
        << "case " << k << " n=" << n;
  }
}

// Where fusing matters: a * b + c with the product rounded to T first would cancel to 0; rounded once it is exact.
TYPED_TEST(LowPrecisionTest, FmaRoundsOnce) {
  using T = typename TypeParam::value_type;
  // Mantissa bits of the storage type: 10 for half, 7 for bf16, 23 where the type is float.
  const int bits = is_half_v<T> ? 10 : is_bhalf_v<T> ? 7 : 23;
  const float a = 1.0f + std::ldexp(1.0f, -bits), c = -(1.0f + std::ldexp(1.0f, -bits + 1));
  const float fused = std::ldexp(1.0f, -2 * bits);  // a * a + c exactly, representable in T
  Kokkos::View<T*, typename TypeParam::memory_space> va("a", 9), vc("c", 9), out("out", 9);
  Kokkos::deep_copy(va, from_float<T>(a));
  Kokkos::deep_copy(vc, from_float<T>(c));
  kstream::fma(typename TypeParam::execution_space(), va, va, vc, out);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(to_float(host(i)), fused) << "i=" << i;
  EXPECT_EQ(to_float(from_float<T>(to_float(from_float<T>(a * a)) + c)), 0.0f)
      << "the unfused result this test tells apart";
}

struct FloatProduct {  // exact in float for 16-bit inputs
  template <class T>
  KOKKOS_INLINE_FUNCTION float operator()(T x, T y) const {
    return to_float(x) * to_float(y);
  }
};

// Mixed storage: 16-bit inputs, a float output, through transform (the scalar strategy: element sizes differ).
TYPED_TEST(LowPrecisionTest, MixedStorageThroughTransform) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const std::int64_t n = 1001;
  Kokkos::View<T*, M> x("x", n), y("y", n);
  Kokkos::View<float*, M> out("out", n);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  for (std::int64_t i = 0; i < n; ++i) {
    hx(i) = from_float<T>(float(i % 37) * 0.25f);
    hy(i) = from_float<T>(float(i % 11) - 5.0f);
  }
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);
  kstream::transform(typename TypeParam::execution_space(), out, FloatProduct{}, x, y);
  auto hout = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) wrong += hout(i) != to_float(hx(i)) * to_float(hy(i));
  EXPECT_EQ(wrong, 0);
}

TYPED_TEST(LowPrecisionTest, DotAccumulatesInFloat) {
  // Integers in [-4, 4]: every product and every partial sum (|s| <= 16 n < 2^24) is exact in float, so the dot is
  // exact in any order. Sizes around the 8-element packs and the device's 8192-element rounds; aligned, both one
  // element in, unequally offset (single elements) and strided operands.
  using T = typename TypeParam::value_type;
  const std::vector<std::pair<std::int64_t, std::int64_t>> placements[] = {
      {{0, 1}, {0, 1}}, {{1, 1}, {1, 1}}, {{1, 1}, {2, 1}}, {{0, 2}, {1, 3}}};
  for (const std::int64_t n : {0, 1, 7, 8, 9, 8191, 8192, 8193, 65539, 262147}) {
    std::vector<float> xs(n), ys(n);
    double exact = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      xs[i] = float((i * 3 + 1) % 9 - 4);
      ys[i] = float((i * 5 + 2) % 9 - 4);
      exact += double(xs[i]) * double(ys[i]);
    }
    for (const auto& placement : placements) {
      Operands<TypeParam> ops(n, placement);
      ops.set(0, xs);
      ops.set(1, ys);
      const auto d = kstream::dot(typename TypeParam::execution_space(), ops.views[0], ops.views[1]);
      static_assert(std::is_same_v<decltype(d), const kstream::accumulator_t<T>>);
      EXPECT_EQ(double(d), exact) << "n " << n << ", x at " << placement[0].first << " stride " << placement[0].second
                                  << ", y at " << placement[1].first;
    }
  }
}

}  // namespace
}  // namespace kstream::test

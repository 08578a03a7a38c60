// Randomized property tests: many random cases per backend (sizes, offsets, strides, aliasing, tile shapes,
// operations, variants, store paths) against the scalar host reference. On failure the case's seed is printed; replay
// one case with KSTREAM_PROPERTY_SEED=<seed> KSTREAM_PROPERTY_CASES=1. Defaults: 5000 cases per value type, i.e. 10 000
// per backend.
#include <cmath>
#include <kstream/kstream.hpp>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class PropertyTest : public ::testing::Test {};
TYPED_TEST_SUITE(PropertyTest, AllCases, CaseNames);

struct FmaMinus {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b, T c) const {
    const T fused = Kokkos::fma(a, b, c);
    return fused - a;
  }
};

template <std::size_t Arity>
ElementwiseCase<Arity> random_case(std::mt19937_64& rng, std::uint64_t seed) {
  ElementwiseCase<Arity> c;
  c.seed = seed;
  const int size_class = int(rng() % 10);
  c.n = size_class < 3   ? std::int64_t(rng() % 65)
        : size_class < 9 ? std::int64_t(rng() % 5000)
                         : std::int64_t(rng() % 70000);
  auto place = [&] {
    const bool strided = rng() % 4 == 0;
    return Placement{std::int64_t(rng() % 8), strided ? std::int64_t(1 + rng() % 4) : 1};
  };
  const bool same_offset = rng() % 2 == 0;  // equal offsets keep the packed path, unequal ones leave it
  c.out = place();
  for (auto& p : c.inputs) p = same_offset ? Placement{c.out.offset, c.out.stride} : place();
  if (rng() % 5 == 0) {
    c.alias = int(rng() % Arity);
    c.out = c.inputs[c.alias];
  }
  c.non_finite = rng() % 20 == 0;
  return c;
}

template <class C>
TileShape random_shape(std::mt19937_64& rng) {
  using Exec = typename C::execution_space;
  if (rng() % 2 == 0) return default_tile_shape<Exec>();
  const int packs = supported_packs_in_flight[rng() % 4];
  constexpr bool gpu = on_device<C>;
  const int team = gpu ? int(32 << (rng() % 4)) : 1;
  return TileShape{team, packs, int(1 + rng() % 4)};
}

template <class C>
std::string run_random_case(std::uint64_t seed) {
  using T = typename C::value_type;
  std::mt19937_64 rng(seed);
  const TileShape shape = random_shape<C>(rng);
  const bool naive = rng() % 4 == 0;
  // Host x86: a third of the cases force the streaming-store path (the default only takes it for huge n).
  const bool streaming = rng() % 3 == 0;
  kstream::set_streaming_stores(streaming ? StreamingStores::always : StreamingStores::automatic);
  const std::string shape_text = " shape{" + std::to_string(shape.team_size) + "," +
                                 std::to_string(shape.packs_in_flight) + "," + std::to_string(shape.chunks_per_thread) +
                                 "}" + (naive ? " naive" : " tiled") + (streaming ? " streaming-stores" : "");
  auto report = [&](const std::string& op, const std::string& error, const std::string& described) {
    return error.empty() ? std::string() : op + " " + described + shape_text + ": " + error;
  };
  switch (rng() % 3) {
    case 0: {
      const auto c = random_case<2>(rng, seed);
      return report("add",
                    run_case<C>(
                        c,
                        [&](auto exec, auto out, auto x, auto y) {
                          if (naive)
                            kstream::naive::add(exec, x, y, out);
                          else
                            kstream::add(exec, x, y, out, shape);
                        },
                        [](T x, T y) { return T(x + y); }),
                    c.describe());
    }
    case 1: {
      const auto c = random_case<3>(rng, seed);
      return report("fma",
                    run_case<C>(
                        c,
                        [&](auto exec, auto out, auto a, auto b, auto cc) {
                          if (naive)
                            kstream::naive::fma(exec, a, b, cc, out);
                          else
                            kstream::fma(exec, a, b, cc, out, shape);
                        },
                        [](T a, T b, T cc) { return std::fma(a, b, cc); }),
                    c.describe());
    }
    default: {
      const auto c = random_case<3>(rng, seed);
      return report("transform",
                    run_case<C>(
                        c,
                        [&](auto exec, auto out, auto... ins) {
                          if (naive)
                            kstream::naive::transform(exec, out, FmaMinus{}, ins...);
                          else
                            kstream::transform(exec, shape, out, FmaMinus{}, ins...);
                        },
                        FmaMinus{}),
                    c.describe());
    }
  }
}

TYPED_TEST(PropertyTest, RandomCasesMatchTheScalarReference) {
  const std::uint64_t base = env_or("KSTREAM_PROPERTY_SEED", 20261130);
  const std::uint64_t cases = env_or("KSTREAM_PROPERTY_CASES", 5000);
  std::uint64_t failures = 0;
  for (std::uint64_t k = 0; k < cases; ++k) {
    const std::uint64_t seed = base + k;
    const std::string error = run_random_case<TypeParam>(seed);
    if (!error.empty()) {
      ++failures;
      ADD_FAILURE() << "replay with KSTREAM_PROPERTY_SEED=" << seed << " KSTREAM_PROPERTY_CASES=1: " << error;
      if (failures >= 10) break;
    }
  }
  kstream::set_streaming_stores(StreamingStores::automatic);
  EXPECT_EQ(failures, 0u) << "of " << cases << " cases from seed " << base;
  std::printf("[ property ] %s: %llu cases from seed %llu\n", CaseNames::GetName<TypeParam>(0).c_str(),
              static_cast<unsigned long long>(cases), static_cast<unsigned long long>(base));
}

}  // namespace
}  // namespace kstream::test

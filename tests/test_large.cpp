// n = 2^31 + 7 floats: indices past INT_MAX, a league that only 64-bit tile arithmetic covers, and a tail at
// that size. About 34 GB of memory (four arrays); built with KSTREAM_LARGE_TESTS=ON (the cuda preset), run
// on the GPU and the OpenMP host backend. Values are set and checked on the device by formula: every element
// must be written with its own expected value, and none is left at the NaN it started with.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/kstream.hpp>
#include <limits>

#include "test_support.hpp"

namespace {

template <class Exec>
class LargeTest : public ::testing::Test {};

#if defined(KSTREAM_TEST_GPU) && defined(KOKKOS_ENABLE_OPENMP)
using LargeBackends = ::testing::Types<kstream::test::GpuSpace, Kokkos::OpenMP>;
#elif defined(KSTREAM_TEST_GPU)
using LargeBackends = ::testing::Types<kstream::test::GpuSpace>;
#else
using LargeBackends = ::testing::Types<Kokkos::DefaultHostExecutionSpace>;
#endif
TYPED_TEST_SUITE(LargeTest, LargeBackends);

constexpr std::int64_t large_n = (std::int64_t(1) << 31) + 7;

KOKKOS_INLINE_FUNCTION float value_a(std::int64_t i) {
  return float(i & 1023);
}
KOKKOS_INLINE_FUNCTION float value_b(std::int64_t i) {
  return float((i >> 10) & 1023);
}
KOKKOS_INLINE_FUNCTION float value_c(std::int64_t i) {
  return float((i >> 20) & 2047);
}

struct TimesFourPlus {  // out = 4 a + c, exact for these values
  KOKKOS_INLINE_FUNCTION float operator()(float a, float c) const { return 4.0f * a + c; }
};

template <class Exec>
struct Arrays {
  using View = Kokkos::View<float*, typename Exec::memory_space>;
  View a{Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), large_n};
  View b{Kokkos::view_alloc(Kokkos::WithoutInitializing, "b"), large_n};
  View c{Kokkos::view_alloc(Kokkos::WithoutInitializing, "c"), large_n};
  View out{Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), large_n};

  Arrays() { fill(); }

  // (Not in the constructor: CUDA's extended lambdas may not live there.)
  void fill() {
    auto va = a, vb = b, vc = c;
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, large_n), KOKKOS_LAMBDA(std::int64_t i) {
          va(i) = value_a(i);
          vb(i) = value_b(i);
          vc(i) = value_c(i);
        });
  }

  void poison() { Kokkos::deep_copy(Exec(), out, std::numeric_limits<float>::quiet_NaN()); }

  // 0: add, 1: fma, 2: transform 4a + c
  std::int64_t errors(int which) const {
    auto o = out;
    std::int64_t count = 0;
    Kokkos::parallel_reduce(
        "check", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, large_n),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
          const float expected = which == 0   ? value_a(i) + value_b(i)
                                 : which == 1 ? value_a(i) * value_b(i) + value_c(i)
                                              : 4.0f * value_a(i) + value_c(i);
          sum += !(o(i) == expected);
        },
        count);
    return count;
  }

  // After an add over elements 1..n-1: element 0 must still be NaN, the others a + b.
  std::int64_t shifted_add_errors() const {
    auto o = out;
    std::int64_t count = 0;
    Kokkos::parallel_reduce(
        "check_shifted", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, large_n),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
          sum += i == 0 ? !(o(i) != o(i)) : !(o(i) == value_a(i) + value_b(i));
        },
        count);
    return count;
  }
};

TYPED_TEST(LargeTest, AddFmaTransformPastTwoToThe31) {
  Arrays<TypeParam> arrays;
  const TypeParam exec;
  arrays.poison();
  kstream::add(exec, arrays.a, arrays.b, arrays.out);
  EXPECT_EQ(arrays.errors(0), 0) << "tiled add, n=" << large_n;
  arrays.poison();
  kstream::naive::add(exec, arrays.a, arrays.b, arrays.out);
  EXPECT_EQ(arrays.errors(0), 0) << "naive add, n=" << large_n;
  arrays.poison();
  kstream::fma(exec, arrays.a, arrays.b, arrays.c, arrays.out);
  EXPECT_EQ(arrays.errors(1), 0) << "tiled fma, n=" << large_n;
  arrays.poison();
  kstream::transform(exec, arrays.out, TimesFourPlus{}, arrays.a, arrays.c);
  EXPECT_EQ(arrays.errors(2), 0) << "tiled transform, n=" << large_n;
  // Offset by one element: the packed body starts after a scalar head, and the tail moves.
  arrays.poison();
  const auto shifted = std::make_pair(std::int64_t(1), large_n);
  kstream::add(exec, Kokkos::subview(arrays.a, shifted), Kokkos::subview(arrays.b, shifted),
               Kokkos::subview(arrays.out, shifted));
  EXPECT_EQ(arrays.shifted_add_errors(), 0) << "tiled add on the offset subview, n=" << large_n - 1;
}

}  // namespace

// Every operand layout the engine's strategies must handle, on every backend: each combination of element offsets
// of each operand (0..3 for float, 0..1 for double: every position inside a 16-byte pack), at sizes around pack
// and tile edges, for every packs_in_flight; strides 1..3, equal and mixed. Tiled results are compared bit for
// bit with the scalar reference, and the guards around every view must stay untouched.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <kstream/kstream.hpp>
#include <vector>

#include "elementwise_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class LayoutTest : public ::testing::Test {};
TYPED_TEST_SUITE(LayoutTest, AllCases, CaseNames);

/// Shapes with small tiles (so tile edges come at small n), one per packs_in_flight value.
template <class C>
std::vector<TileShape> small_tile_shapes() {
  std::vector<TileShape> shapes;
  for (const int packs : supported_packs_in_flight) shapes.push_back({on_device<C> ? 32 : 1, packs, 2});
  return shapes;
}

template <class C>
std::vector<std::int64_t> sizes_around(const TileShape& shape) {
  constexpr std::int64_t per_pack = pack_bytes / std::int64_t(sizeof(typename C::value_type));
  const std::int64_t tile = shape.tile_packs() * per_pack;  // elements in one tile of the packed strategy
  return {1, per_pack + 1, tile - 1, tile + 1, 2 * tile + per_pack + 3};
}

/// Calls `check(inputs, out)` for every assignment of offsets 0..max_offset to the Arity inputs and the output.
template <std::size_t Arity, class Check>
void for_every_offset_combination(std::int64_t max_offset, Check&& check) {
  std::array<std::int64_t, Arity + 1> offset{};
  while (true) {
    std::array<Placement, Arity> inputs;
    for (std::size_t k = 0; k < Arity; ++k) inputs[k] = {offset[k], 1};
    check(inputs, Placement{offset[Arity], 1});
    std::size_t k = 0;
    while (k <= Arity && offset[k] == max_offset) offset[k++] = 0;
    if (k > Arity) return;
    ++offset[k];
  }
}

template <class C>
std::int64_t max_offset_in_pack() {
  return pack_bytes / std::int64_t(sizeof(typename C::value_type)) - 1;
}

template <class T>
struct ScaleBy3 {
  KOKKOS_INLINE_FUNCTION T operator()(T x) const { return T(3) * x; }
};

TYPED_TEST(LayoutTest, AddAtEveryOffsetCombinationSizeAndPacksInFlight) {
  using T = typename TypeParam::value_type;
  int cases = 0;
  for_every_offset_combination<2>(max_offset_in_pack<TypeParam>(), [&](const auto& inputs, Placement out) {
    for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
      for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
        ElementwiseCase<2> c{.n = n, .inputs = inputs, .out = out, .seed = std::uint64_t(++cases)};
        EXPECT_EQ(run_case<TypeParam>(
                      c, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                      [](T x, T y) { return T(x + y); }),
                  "")
            << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
      }
    }
  });
}

TYPED_TEST(LayoutTest, FmaAtEveryOffsetCombinationSizeAndPacksInFlight) {
  using T = typename TypeParam::value_type;
  int cases = 0;
  for_every_offset_combination<3>(max_offset_in_pack<TypeParam>(), [&](const auto& inputs, Placement out) {
    for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
      for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
        ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out, .seed = std::uint64_t(++cases)};
        EXPECT_EQ(run_case<TypeParam>(
                      c, [&](auto exec, auto o, auto a, auto b, auto cc) { kstream::fma(exec, a, b, cc, o, shape); },
                      [](T a, T b, T cc) { return std::fma(a, b, cc); }),
                  "")
            << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
      }
    }
  });
}

TYPED_TEST(LayoutTest, TransformOfOneAndFourInputsAtEveryOffsetCombination) {
  using T = typename TypeParam::value_type;
  const std::int64_t max_offset = max_offset_in_pack<TypeParam>();
  for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
    for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
      for_every_offset_combination<1>(max_offset, [&](const auto& inputs, Placement out) {
        ElementwiseCase<1> c{.n = n, .inputs = inputs, .out = out};
        EXPECT_EQ(run_case<TypeParam>(
                      c, [&](auto exec, auto o, auto x) { kstream::transform(exec, shape, o, ScaleBy3<T>{}, x); },
                      ScaleBy3<T>{}),
                  "")
            << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
      });
      // Four inputs: the output's offset against each input offset in turn (the others at 0 and at the output's).
      for (std::int64_t out_offset = 0; out_offset <= max_offset; ++out_offset) {
        for (std::size_t moved = 0; moved < 4; ++moved) {
          for (std::int64_t offset = 0; offset <= max_offset; ++offset) {
            ElementwiseCase<4> c{.n = n, .out = {out_offset, 1}};
            for (std::size_t k = 0; k < 4; ++k) c.inputs[k] = {k == moved ? offset : out_offset, 1};
            EXPECT_EQ(
                run_case<TypeParam>(
                    c, [&](auto exec, auto o, auto... ins) { kstream::transform(exec, shape, o, FmaPlus{}, ins...); },
                    FmaPlus{}),
                "")
                << c.describe() << " packs_in_flight=" << shape.packs_in_flight;
          }
        }
      }
    }
  }
}

TYPED_TEST(LayoutTest, StridesOneToThreeEqualAndMixed) {
  using T = typename TypeParam::value_type;
  for (const TileShape& shape : small_tile_shapes<TypeParam>()) {
    for (const std::int64_t n : sizes_around<TypeParam>(shape)) {
      for (std::int64_t sx = 1; sx <= 3; ++sx) {
        for (std::int64_t sy = 1; sy <= 3; ++sy) {
          for (std::int64_t so = 1; so <= 3; ++so) {
            ElementwiseCase<2> add_case{.n = n, .inputs = {Placement{1, sx}, Placement{0, sy}}, .out = {2, so}};
            EXPECT_EQ(run_tiled_and_naive<TypeParam>(
                          add_case, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                          [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); },
                          [](T x, T y) { return T(x + y); }),
                      "")
                << add_case.describe() << " packs_in_flight=" << shape.packs_in_flight;
          }
          ElementwiseCase<3> fma_case{
              .n = n, .inputs = {Placement{0, sx}, Placement{3, sy}, Placement{1, sx}}, .out = {0, sy}};
          EXPECT_EQ(
              run_tiled_and_naive<TypeParam>(
                  fma_case, [&](auto exec, auto o, auto a, auto b, auto c) { kstream::fma(exec, a, b, c, o, shape); },
                  [](auto exec, auto o, auto a, auto b, auto c) { kstream::naive::fma(exec, a, b, c, o); },
                  [](T a, T b, T c) { return std::fma(a, b, c); }),
              "")
              << fma_case.describe() << " packs_in_flight=" << shape.packs_in_flight;
        }
      }
    }
  }
}

/// kstream::fma and its naive twin with their default shapes on case c, against std::fma: "" or what was wrong.
template <class C>
std::string default_shape_fma_error(const ElementwiseCase<3>& c) {
  using T = typename C::value_type;
  return run_tiled_and_naive<C>(
      c, [](auto exec, auto o, auto a, auto b, auto cc) { kstream::fma(exec, a, b, cc, o); },
      [](auto exec, auto o, auto a, auto b, auto cc) { kstream::naive::fma(exec, a, b, cc, o); },
      [](T a, T b, T cc) { return std::fma(a, b, cc); });
}

// The default shapes (what users get) on the benchmark's layouts, at a size that spans many tiles.
TYPED_TEST(LayoutTest, DefaultShapeOnTheBenchmarkLayouts) {
  const std::int64_t n = 3 * tile_elements<TypeParam>() + 5;
  const std::vector<std::pair<std::array<Placement, 3>, Placement>> layouts = {
      {{Placement{1, 1}, Placement{1, 1}, Placement{1, 1}}, {1, 1}},  // offset1
      {{Placement{1, 1}, Placement{2, 1}, Placement{3, 1}}, {1, 1}},  // offsets123 (fma)
      {{Placement{0, 2}, Placement{0, 2}, Placement{0, 2}}, {0, 2}},  // stride2
      {{Placement{0, 3}, Placement{0, 3}, Placement{0, 3}}, {0, 3}},  // stride3
  };
  for (const auto& [inputs, out] : layouts) {
    ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out};
    EXPECT_EQ(default_shape_fma_error<TypeParam>(c), "") << c.describe();
  }
}

// Strided operands spanning more than a device's cache, default shape: on a device every element type runs one
// element per index (StridedElements), floats included; on a host the tile path (device_cache_bytes is 0 there,
// so the size is the tile-spanning one). Equal and unequal strides, an odd tail.
TYPED_TEST(LayoutTest, DefaultShapeOnStridedOperandsBeyondTheDeviceCache) {
  using T = typename TypeParam::value_type;
  const std::int64_t cache = impl::device_cache_bytes(typename TypeParam::execution_space());
  // fma's four operands at stride 3 span 12 n sizeof(T) bytes: a third past the cache.
  const std::int64_t n =
      std::max<std::int64_t>(3 * tile_elements<TypeParam>(), cache / (9 * std::int64_t(sizeof(T)))) + 7;
  ElementwiseCase<3> fma_case{.n = n, .inputs = {Placement{0, 3}, Placement{1, 3}, Placement{2, 3}}, .out = {1, 3}};
  EXPECT_EQ(default_shape_fma_error<TypeParam>(fma_case), "") << fma_case.describe();
  ElementwiseCase<2> add_case{.n = n, .inputs = {Placement{3, 2}, Placement{0, 3}}, .out = {2, 4}};
  EXPECT_EQ(run_tiled_and_naive<TypeParam>(
                add_case, [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); },
                [](T x, T y) { return T(x + y); }),
            "")
      << add_case.describe();
}

// Contiguous operands spanning more than a device's cache, default shape: on a device fma of doubles runs one
// element per thread (ContiguousElements) at every alignment, the other element types the tiled strategies; on a
// host the tile path (the tile-spanning size). The suite's unequal layouts and one with only the output shifted,
// an odd tail (n is not a multiple of the 256-thread teams).
TYPED_TEST(LayoutTest, DefaultShapeOnContiguousOperandsBeyondTheDeviceCache) {
  using T = typename TypeParam::value_type;
  const std::int64_t cache = impl::device_cache_bytes(typename TypeParam::execution_space());
  // fma's four operands span 4 n sizeof(T) bytes: a third past the cache.
  const std::int64_t n =
      std::max<std::int64_t>(3 * tile_elements<TypeParam>(), cache / (3 * std::int64_t(sizeof(T)))) + 7;
  const std::vector<std::pair<std::array<Placement, 3>, Placement>> layouts = {
      {{Placement{0, 1}, Placement{0, 1}, Placement{0, 1}}, {0, 1}},  // aligned
      {{Placement{1, 1}, Placement{1, 1}, Placement{1, 1}}, {1, 1}},  // offset1
      {{Placement{1, 1}, Placement{2, 1}, Placement{3, 1}}, {1, 1}},  // offsets123 (fma)
      {{Placement{0, 1}, Placement{0, 1}, Placement{0, 1}}, {3, 1}},  // the output alone shifted
  };
  for (const auto& [inputs, out] : layouts) {
    ElementwiseCase<3> c{.n = n, .inputs = inputs, .out = out};
    EXPECT_EQ(default_shape_fma_error<TypeParam>(c), "") << c.describe();
  }
}

/// A device address for views that only a strategy decision reads (extents, strides, element sizes): never
/// dereferenced.
template <class T>
T* nowhere() {
  return reinterpret_cast<T*>(std::uintptr_t(4096));
}

// Which calls run one element per thread on contiguous views (tiled_engine.hpp, contiguous_elements): a device, the
// default shape, three or more inputs, 8-byte elements throughout, every view contiguous, operands beyond the
// device's cache.
TEST(ContiguousElements, DeviceCallsOfThreeEightByteInputsBeyondTheCache) {
  const Kokkos::DefaultHostExecutionSpace host;
  const Kokkos::View<double*, Kokkos::HostSpace> host_doubles("host_doubles", 10);
  EXPECT_FALSE(impl::contiguous_elements(host, default_tile_shape<Kokkos::DefaultHostExecutionSpace>(), host_doubles,
                                         host_doubles, host_doubles, host_doubles));
  using Exec = Kokkos::DefaultExecutionSpace;
  if constexpr (is_device_execution_space_v<Exec>) {
    const Exec exec;
    const std::int64_t cache = impl::device_cache_bytes(exec);
    ASSERT_GT(cache, 0) << "a CUDA or HIP device reports its last-level cache";
    using Doubles = Kokkos::View<double*, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using Floats = Kokkos::View<float*, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using Int64s = Kokkos::View<std::int64_t*, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using StridedDoubles =
        Kokkos::View<double*, Kokkos::LayoutStride, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const std::int64_t past = cache / 32 + 1;  // four views of `past` doubles span more than the cache
    const Doubles big(nowhere<double>(), past), small(nowhere<double>(), 1000);
    const Floats big_floats(nowhere<float>(), 2 * past);
    const Int64s big_integers(nowhere<std::int64_t>(), past);
    const StridedDoubles strided(nowhere<double>(), Kokkos::LayoutStride(past, 2));
    const TileShape shape = default_tile_shape<Exec>();
    EXPECT_TRUE(impl::contiguous_elements(exec, shape, big, big, big, big));
    EXPECT_TRUE(impl::contiguous_elements(exec, shape, big_integers, big_integers, big_integers, big_integers));
    EXPECT_TRUE(impl::contiguous_elements(exec, shape, big, big, big, big, big));  // four inputs
    EXPECT_FALSE(impl::contiguous_elements(exec, shape, small, small, small, small));
    EXPECT_FALSE(impl::contiguous_elements(exec, shape, big, big, big));  // two inputs
    EXPECT_FALSE(impl::contiguous_elements(exec, shape, big_floats, big_floats, big_floats, big_floats));
    EXPECT_FALSE(impl::contiguous_elements(exec, shape, big, big_floats, big, big));
    EXPECT_FALSE(impl::contiguous_elements(exec, shape, big, strided, big, big));
    EXPECT_FALSE(impl::contiguous_elements(exec, TileShape{128, 1, 1}, big, big, big, big));
  }
}

// Strided calls keep every element of a pack in flight on a device when the default shape runs and the operands
// span at most the device's cache (tiled_engine.hpp, strided_slots_in_cache; used for elements under 8 bytes, the
// others run StridedElements); with other shapes half of them.
TEST(StridedInCache, OnlyTheDefaultDeviceShapeOnOperandsWithinTheDeviceCache) {
  using Strided =
      Kokkos::View<float*, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  std::vector<float> storage(64);
  const Strided every_third(storage.data(), Kokkos::LayoutStride(10, 3));
  const Kokkos::View<double*, Kokkos::HostSpace> contiguous("contiguous", 5);
  EXPECT_EQ(impl::spanned_bytes(every_third), (9 * 3 + 1) * 4);
  EXPECT_EQ(impl::spanned_bytes(every_third, contiguous, every_third), 2 * 112 + 5 * 8);
  const Kokkos::DefaultHostExecutionSpace host;
  EXPECT_FALSE(
      impl::strided_in_cache(host, default_tile_shape<Kokkos::DefaultHostExecutionSpace>(), every_third, every_third));
  using Exec = Kokkos::DefaultExecutionSpace;
  if constexpr (is_device_execution_space_v<Exec>) {
    const Exec exec;
    const std::int64_t cache = impl::device_cache_bytes(exec);
    ASSERT_GT(cache, 0) << "a CUDA or HIP device reports its last-level cache";
    using DeviceStrided =
        Kokkos::View<float*, Kokkos::LayoutStride, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const DeviceStrided small(nowhere<float>(), Kokkos::LayoutStride(1000, 2));
    const std::int64_t stride_past_cache = cache / 4;  // two elements span cache + 4 bytes
    const DeviceStrided wide(nowhere<float>(), Kokkos::LayoutStride(2, std::size_t(stride_past_cache)));
    const TileShape shape = default_tile_shape<Exec>();
    EXPECT_TRUE(impl::strided_in_cache(exec, shape, small, small, small));
    EXPECT_FALSE(impl::strided_in_cache(exec, TileShape{128, 1, 1}, small, small, small));
    EXPECT_FALSE(impl::strided_in_cache(exec, shape, wide, small));
  }
}

// Which strided calls run one element per index (tiled_engine.hpp, strided_elements): a device, the default shape,
// strides below 2^31, and not floats within the device's cache (they keep strided_slots_in_cache); doubles always.
TEST(StridedElements, DefaultDeviceShapeExceptFloatsWithinTheCache) {
  const Kokkos::DefaultHostExecutionSpace host;
  std::vector<double> storage(64);
  const Kokkos::View<double*, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host_doubles(storage.data(), Kokkos::LayoutStride(10, 3));
  EXPECT_FALSE(impl::strided_elements(host, default_tile_shape<Kokkos::DefaultHostExecutionSpace>(), host_doubles,
                                      host_doubles));
  using Exec = Kokkos::DefaultExecutionSpace;
  if constexpr (is_device_execution_space_v<Exec>) {
    const Exec exec;
    const std::int64_t cache = impl::device_cache_bytes(exec);
    ASSERT_GT(cache, 0) << "a CUDA or HIP device reports its last-level cache";
    using Floats =
        Kokkos::View<float*, Kokkos::LayoutStride, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using Doubles =
        Kokkos::View<double*, Kokkos::LayoutStride, Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const Floats small_floats(nowhere<float>(), Kokkos::LayoutStride(1000, 2));
    const Floats wide_floats(nowhere<float>(), Kokkos::LayoutStride(2, std::size_t(cache / 4)));
    const Doubles small_doubles(nowhere<double>(), Kokkos::LayoutStride(1000, 2));
    const Doubles huge_stride(nowhere<double>(), Kokkos::LayoutStride(2, std::size_t(INT32_MAX) + 1));
    const TileShape shape = default_tile_shape<Exec>();
    EXPECT_FALSE(impl::strided_elements(exec, shape, small_floats, small_floats, small_floats));
    EXPECT_TRUE(impl::strided_elements(exec, shape, wide_floats, small_floats));
    EXPECT_TRUE(impl::strided_elements(exec, shape, small_doubles, small_doubles, small_doubles));
    EXPECT_FALSE(impl::strided_elements(exec, TileShape{128, 1, 1}, small_doubles, small_doubles));
    EXPECT_FALSE(impl::strided_elements(exec, shape, small_doubles, huge_stride));
  }
}

// The shifted strategy's partition (tiled_engine.hpp, shifted_partition): for 2-byte elements at every address
// offset of the output and two inputs and every n up to 80, every load (one or two aligned 16-byte input packs per
// output pack) lies inside its input view and is 16-byte aligned, every output pack lies inside the output and
// is aligned, and head + body + tail cover n. Pure address arithmetic: runs on every build.
TEST(ShiftedPartition, EveryAlignedPackStaysInsideItsView) {
  using T = std::int16_t;
  constexpr int W = 8;
  using View = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  alignas(16) static T storage[3][128];
  int with_body = 0;
  for (int out_offset = 0; out_offset < W; ++out_offset) {
    for (int x_offset = 0; x_offset < W; ++x_offset) {
      for (int y_offset = 0; y_offset < W; ++y_offset) {
        for (std::int64_t n = 0; n <= 80; ++n) {
          const View out(storage[0] + out_offset, n), x(storage[1] + x_offset, n), y(storage[2] + y_offset, n);
          const impl::Partition part = impl::shifted_partition<W>(out, x, y);
          const std::string what = "n=" + std::to_string(n) + " offsets out " + std::to_string(out_offset) + " x " +
                                   std::to_string(x_offset) + " y " + std::to_string(y_offset);
          if (part.body_items == 0) continue;
          ++with_body;
          ASSERT_EQ(part.head + part.body_items * W + part.tail, n) << what;
          ASSERT_GE(part.head, 0) << what;
          ASSERT_LT(part.head, 2 * W) << what;
          ASSERT_LT(part.tail, 2 * W) << what;
          for (std::int64_t p = 0; p < part.body_items; ++p) {
            const std::int64_t e = part.head + p * W;
            ASSERT_EQ(reinterpret_cast<std::uintptr_t>(out.data() + e) % 16, 0u) << what;
            ASSERT_LE(e + W, n) << what;
            for (const View* in : {&x, &y}) {
              const int shift = impl::input_shift(*in, part.head);
              const std::int64_t first = e - shift, end = first + (shift == 0 ? W : 2 * W);
              ASSERT_EQ(reinterpret_cast<std::uintptr_t>(in->data() + first) % 16, 0u) << what;
              ASSERT_GE(first, 0) << what;
              ASSERT_LE(end, n) << what;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(with_body, 20000);  // most cases past a few packs run the shifted body
}

}  // namespace
}  // namespace kstream::test

// Views of several dimensions on every backend: fma and transforms of four inputs, explicit tile shapes, rows at
// every offset inside a pack, exact aliasing, empty and single-element views, kstream::copy between any two
// mappings (tests/rank_case.hpp).
#include "rank_case.hpp"

namespace kstream::test {
namespace {

template <class C>
class RankCallsTest : public ::testing::Test {};
TYPED_TEST_SUITE(RankCallsTest, AllCases, CaseNames);

TYPED_TEST(RankCallsTest, FmaAndFourInputTransforms) {
  using T = typename TypeParam::value_type;
  using Some = Ranks<2, 3, 5, 8>;
  for (const int rank : {2, 3, 5, 8}) {
    const Extents extents = test_extents(rank);
    for (const auto& maps : mapping_combinations<4>(extents)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 3, Some>(
                    extents, maps, [](auto exec, auto o, auto a, auto b, auto c) { kstream::fma(exec, a, b, c, o); },
                    [](T a, T b, T c) { return std::fma(a, b, c); })),
                "")
          << "fma " << describe(maps);
    }
    for (const auto& maps : mapping_combinations<5>(extents)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 4, Some>(
                    extents, maps,
                    [](auto exec, auto o, auto... ins) { kstream::transform(exec, o, FmaPlus{}, ins...); }, FmaPlus{})),
                "")
          << "transform " << describe(maps);
    }
  }
  // The naive fma and transform on rank 3 (MDRange; add covers every rank).
  const Extents extents = test_extents(3);
  for (const auto& maps : mapping_combinations<4>(extents))
    EXPECT_EQ(
        (run_tensor_case<TypeParam, 3, Ranks<3>>(
            extents, maps, [](auto exec, auto o, auto a, auto b, auto c) { kstream::naive::fma(exec, a, b, c, o); },
            [](T a, T b, T c) { return std::fma(a, b, c); })),
        "")
        << "naive fma " << describe(maps);
}

// Explicit tile shapes (small tiles: many per row, edges everywhere) and long rows at every pack offset.
TYPED_TEST(RankCallsTest, ExplicitShapesAndRowsAtEveryOffset) {
  using T = typename TypeParam::value_type;
  const Extents extents{3, 4, 301};
  const int team = on_device<TypeParam> ? 32 : 1;
  for (const TileShape shape : {TileShape{team, 1, 1}, TileShape{team, 2, 2}, TileShape{team, 8, 1}}) {
    for (const auto& maps : mapping_combinations<3>(extents))
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<3>>(
                    extents, maps, [&](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o, shape); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << describe(maps) << " shape " << shape.team_size << "," << shape.packs_in_flight << ","
          << shape.chunks_per_thread;
  }
  // Rows whose starts sit at every offset inside a 16-byte pack, the same for every operand (packed rows with
  // a head) and different (single-element rows).
  const std::int64_t per_pack = pack_bytes / std::int64_t(sizeof(T));
  for (std::int64_t offset = 0; offset < per_pack; ++offset) {
    for (std::int64_t pitch_pad : {std::int64_t(0), std::int64_t(1)}) {
      Mapping m{"pitched", offset,
                packed_strides(extents, right_order(3), 1, (per_pack - 301 % per_pack) % per_pack + pitch_pad)};
      Mapping other = m;
      other.offset = (offset + 1) % per_pack;
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<3>>(
                    extents, std::array<Mapping, 3>{m, m, m},
                    [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << m.describe();
      EXPECT_EQ((run_tensor_case<TypeParam, 3, Ranks<3>>(
                    extents, std::array<Mapping, 4>{m, other, m, other},
                    [](auto exec, auto o, auto a, auto b, auto c) { kstream::fma(exec, a, b, c, o); },
                    [](T a, T b, T c) { return std::fma(a, b, c); })),
                "")
          << m.describe() << " with inputs at " << other.offset;
    }
  }
}

TYPED_TEST(RankCallsTest, ExactAliasingEmptyAndSingleElementViews) {
  using T = typename TypeParam::value_type;
  const Extents extents = test_extents(3);
  for (const auto& m : standard_mappings(extents))
    EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<3>>(
                  extents, std::array<Mapping, 3>{m, m, m},
                  [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                  [](T x, T y) { return T(x + y); }, 0)),
              "")
        << "out == x, " << m.describe();
  for (const Extents& odd : {Extents{3, 0, 5, 7}, Extents{1, 1, 1, 1}}) {
    for (const auto& m : standard_mappings(odd)) {
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<4>>(
                    odd, std::array<Mapping, 3>{m, m, m},
                    [](auto exec, auto o, auto x, auto y) { kstream::add(exec, x, y, o); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << m.describe();
      EXPECT_EQ((run_tensor_case<TypeParam, 2, Ranks<4>>(
                    odd, std::array<Mapping, 3>{m, m, m},
                    [](auto exec, auto o, auto x, auto y) { kstream::naive::add(exec, x, y, o); },
                    [](T x, T y) { return T(x + y); })),
                "")
          << "naive " << m.describe();
    }
  }
}

// kstream::copy from every mapping to every mapping of ranks 1 to 8 (transposes, interiors, padded, strided), and
// onto itself.
TYPED_TEST(RankCallsTest, CopyBetweenEveryPairOfMappings) {
  using T = typename TypeParam::value_type;
  for (int rank = 1; rank <= 8; ++rank) {
    const Extents extents = test_extents(rank);
    const auto list = standard_mappings(extents);
    for (const auto& to : list) {
      for (const auto& from : list)
        EXPECT_EQ((run_tensor_case<TypeParam, 1>(
                      extents, std::array<Mapping, 2>{to, from},
                      [](auto exec, auto dst, auto src) { kstream::copy(exec, dst, src); }, [](T v) { return v; })),
                  "")
            << "rank " << rank << ": dst " << to.describe() << ", src " << from.describe();
      EXPECT_EQ((run_tensor_case<TypeParam, 1>(
                    extents, std::array<Mapping, 2>{to, to},
                    [](auto exec, auto dst, auto src) { kstream::copy(exec, dst, src); }, [](T v) { return v; }, 0)),
                "")
          << "dst == src, rank " << rank << ": " << to.describe();
    }
  }
}

/// op over the views by a CUDA device's general kernels (tiles, or the flattened order) with `scratch` bytes of
/// team scratch (at most what exec's teams may take), run on exec (hosts: a thread a team): the plan, nothing run
/// where it is not general.
template <class Exec, class Op, class Out, class... Ins>
impl::Plan device_general_plan(const Exec& exec, std::int64_t scratch, const Op& op, const Out& out,
                               const Ins&... ins) {
  const impl::Operand in_operands[] = {impl::operand_of(ins)...};
  impl::CallFacts c;
  c.label = "device general";
  c.device = true;
  c.scratch_bytes = std::min<std::int64_t>(scratch, Kokkos::TeamPolicy<Exec>::scratch_size_max(0));
  c.shape = TileShape{256, 1, 1};
  c.out = impl::operand_of(out);
  c.ins = in_operands;
  c.inputs = int(sizeof...(Ins));
  const impl::Plan p = impl::plan(c);
  if (p.strategy == impl::Strategy::general)
    impl::launch_general<impl::LaunchNow, Exec, Op, typename Out::value_type, typename Ins::non_const_value_type...>(
        impl::LaunchNow{}, c.label, exec, p, op, c.out, in_operands);
  return p;
}

/// device_general_plan's tile edge: 0 for the flattened order, -1 where the plan is not general.
template <class Exec, class Op, class Out, class... Ins>
int device_general(const Exec& exec, std::int64_t scratch, const Op& op, const Out& out, const Ins&... ins) {
  const impl::Plan p = device_general_plan(exec, scratch, op, out, ins...);
  return p.strategy == impl::Strategy::general ? p.tile_edge : -1;
}

// The device's general kernels on every backend: tiles (an input along another dimension than out's innermost:
// transposes, mixed layouts) and the flattened order (short or strided rows; several elements an index, a partial
// last round): every pair of mappings of ranks 2 to 4, edges of every size, one input and three (some through
// scratch, some read directly), with 48 KiB of scratch and none.
TYPED_TEST(RankCallsTest, DeviceGeneralKernelsOnEveryPairOfMappings) {
  using T = typename TypeParam::value_type;
  int tiled = 0, flattened = 0;
  const auto count = [&](int edge) { return edge > 0 ? ++tiled : edge == 0 ? ++flattened : 0; };
  for (const Extents& extents : {Extents{37, 70}, Extents{5, 33, 40}, Extents{64, 3, 2, 31}}) {
    const auto list = standard_mappings(extents);
    for (const std::int64_t scratch : {std::int64_t(48) << 10, std::int64_t(0)}) {
      const auto copy = [&](auto exec, auto o, auto x) {
        if (count(device_general(exec, scratch, impl::ConvertTo<T>{}, o, x)) == 0) kstream::copy(exec, o, x);
      };
      const auto fma = [&](auto exec, auto o, auto a, auto b, auto c) {
        if (count(device_general(exec, scratch, impl::FusedMultiplyAdd{}, o, a, b, c)) == 0)
          kstream::fma(exec, a, b, c, o);
      };
      for (const auto& to : list)
        for (const auto& from : list) {
          EXPECT_EQ((run_tensor_case<TypeParam, 1, Ranks<2, 3, 4>>(extents, std::array<Mapping, 2>{to, from}, copy,
                                                                   [](T v) { return v; })),
                    "")
              << "copy, scratch " << scratch << ", " << describe(std::array<Mapping, 2>{to, from});
          const std::array<Mapping, 4> maps{to, from, to, list[(&from - list.data() + 1) % list.size()]};
          EXPECT_EQ((run_tensor_case<TypeParam, 3, Ranks<2, 3, 4>>(extents, maps, fma,
                                                                   [](T a, T b, T c) { return std::fma(a, b, c); })),
                    "")
              << "fma, scratch " << scratch << ", " << describe(maps);
        }
    }
  }
  EXPECT_GT(tiled, 300) << "the plan tiles the pairs whose input runs along another dimension";
  EXPECT_GT(flattened, 100) << "the plan runs short and strided rows in the flattened order";
}

/// out = x^T (+ y) on rows x cols of H in M: out and y LayoutRight, x LayoutLeft, small integers (exact in every
/// type); wrong(add) counts out's elements unequal to x, or to x + y.
template <class H, class M>
struct TransposeCase {
  int rows, cols;
  Kokkos::View<H**, Kokkos::LayoutRight, M> out, y;
  Kokkos::View<H**, Kokkos::LayoutLeft, M> x;

  static float x_value(int i, int j) { return float((i * 7 + j * 3) % 128); }
  static float y_value(int, int j) { return float(j % 16 - 8); }

  TransposeCase(int rows_, int cols_)
      : rows(rows_), cols(cols_), out("out", rows_, cols_), y("y", rows_, cols_), x("x", rows_, cols_) {
    auto hx = Kokkos::create_mirror_view(x);
    auto hy = Kokkos::create_mirror_view(y);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        hx(i, j) = from_float<H>(x_value(i, j));
        hy(i, j) = from_float<H>(y_value(i, j));
      }
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, hy);
  }

  int wrong(bool add) const {
    const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    int count = 0;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) count += to_float(ho(i, j)) != x_value(i, j) + (add ? y_value(i, j) : 0.0f);
    return count;
  }
};

// 16-bit elements take tiles of 128 x 128 (rows of 256 bytes; hosts store them as floats: 64 x 64): a transposed
// copy and add through them, bhalf_t beside the float cases and half_t beside the double ones, on every backend.
TYPED_TEST(RankCallsTest, DeviceTilesOf16BitElements) {
  using T = typename TypeParam::value_type;
  using H = std::conditional_t<std::is_same_v<T, float>, Kokkos::Experimental::bhalf_t, Kokkos::Experimental::half_t>;
  const typename TypeParam::execution_space exec;
  const TransposeCase<H, typename TypeParam::memory_space> c(150, 260);  // 2 x 3 tiles, partial ones along both
  const int edge = sizeof(H) == 2 ? 128 : 64;
  EXPECT_EQ(device_general(exec, 48 << 10, impl::ConvertTo<H>{}, c.out, c.x), edge);
  EXPECT_EQ(c.wrong(false), 0) << "copy";
  EXPECT_EQ(device_general(exec, 48 << 10, impl::Plus{}, c.out, c.x, c.y), edge);
  EXPECT_EQ(c.wrong(true), 0) << "add";
}

// Tiles move whole 16-byte packs (Plan::width) where every run of a pack's elements starts on a pack boundary:
// extents of whole packs in LayoutRight and LayoutLeft, and rows padded to whole packs whose extents are not
// (groups cut short at the views' edges; the padding, guarded, stays untouched); a transposed copy and an add with
// one input along out's innermost and one across it, partial tiles along both dimensions, in the test's type and
// in 16-bit elements (bhalf_t).
template <class C>
void expect_tiles_in_whole_packs() {
  using T = typename C::value_type;
  const auto pitched = [](const Extents& e, bool right) {
    const int rank = int(e.size());
    const std::int64_t inner = e[right ? rank - 1 : 0], per_pack = pack_bytes / std::int64_t(sizeof(T));
    return Mapping{
        right ? "right_pitched" : "left_pitched", 0,
        packed_strides(e, right ? right_order(rank) : left_order(rank), 1, (per_pack - inner % per_pack) % per_pack)};
  };
  for (const Extents& extents : {Extents{72, 136}, Extents{70, 133}, Extents{3, 72, 40}}) {
    const Mapping right = pitched(extents, true), left = pitched(extents, false);
    int width = 0;
    const auto copy = [&](auto exec, auto o, auto x) {
      width = device_general_plan(exec, 48 << 10, impl::ConvertTo<T>{}, o, x).width;
    };
    const auto add = [&](auto exec, auto o, auto x, auto y) {
      width = device_general_plan(exec, 48 << 10, impl::Plus{}, o, x, y).width;
    };
    const auto maps = std::array<Mapping, 3>{right, left, right};
    EXPECT_EQ(
        (run_tensor_case<C, 1, Ranks<2, 3>>(extents, std::array<Mapping, 2>{right, left}, copy, [](T v) { return v; })),
        "")
        << "copy " << describe(maps);
    EXPECT_EQ(width, int(pack_bytes / sizeof(T))) << "copy " << describe(maps);
    EXPECT_EQ(
        (run_tensor_case<C, 2, Ranks<2, 3>>(extents, maps, add, [](T x, T y) { return T(to_float(x) + to_float(y)); })),
        "")
        << "add " << describe(maps);
    EXPECT_EQ(width, int(pack_bytes / sizeof(T))) << "add " << describe(maps);
  }
}

TYPED_TEST(RankCallsTest, DeviceTilesInWholePacks) {
  expect_tiles_in_whole_packs<TypeParam>();
  expect_tiles_in_whole_packs<Case<typename TypeParam::execution_space, Kokkos::Experimental::bhalf_t>>();
}

// A transposed input whose pitch is a multiple of 4 KiB (1024 rows of a LayoutLeft view): hosts walk narrow blocks
// of one cache line by 256 rows (kstream/impl/plan.hpp), partial ones along the columns; every element right.
TYPED_TEST(RankCallsTest, TransposesAcrossAPowerOfTwoPitch) {
  const typename TypeParam::execution_space exec;
  const TransposeCase<typename TypeParam::value_type, typename TypeParam::memory_space> c(1024, 37);
  kstream::copy(exec, c.out, c.x);
  EXPECT_EQ(c.wrong(false), 0) << "copy";
  kstream::add(exec, c.x, c.y, c.out);
  EXPECT_EQ(c.wrong(true), 0) << "add";
}

// Host blocks go in squares transposed in registers (kstream/impl/host_square.hpp: 8 floats, 4 doubles, 16 16-bit
// elements a side) and the rest of each block row by row: extents that leave partial squares along both
// dimensions, 16-bit elements, and a rank-3 mix with one input along the output's innermost and one across it.
TYPED_TEST(RankCallsTest, TransposesInSquaresWithPartialEdges) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  for (const auto& [rows, cols] : {std::pair{45, 67}, std::pair{1024, 21}, std::pair{8, 8}}) {
    const TransposeCase<T, M> c(rows, cols);
    kstream::copy(exec, c.out, c.x);
    EXPECT_EQ(c.wrong(false), 0) << "copy " << rows << " x " << cols;
    kstream::add(exec, c.x, c.y, c.out);
    EXPECT_EQ(c.wrong(true), 0) << "add " << rows << " x " << cols;
  }
  const TransposeCase<Kokkos::Experimental::bhalf_t, M> h(70, 37);
  kstream::add(exec, h.x, h.y, h.out);
  EXPECT_EQ(h.wrong(true), 0) << "bhalf_t";
  Kokkos::View<T***, Kokkos::LayoutRight, M> out("out", 9, 13, 19), y("y", 9, 13, 19);
  Kokkos::View<T***, Kokkos::LayoutLeft, M> x("x", 9, 13, 19);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 13; ++j)
      for (int k = 0; k < 19; ++k) {
        hx(i, j, k) = T(i * 13 * 19 + j * 19 + k);
        hy(i, j, k) = T(k % 5);
      }
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);
  kstream::add(exec, x, y, out);
  const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int wrong = 0;
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 13; ++j)
      for (int k = 0; k < 19; ++k) wrong += ho(i, j, k) != T(i * 13 * 19 + j * 19 + k) + T(k % 5);
  EXPECT_EQ(wrong, 0) << "rank 3, x LayoutLeft";
}

// kstream::copy between Kokkos layout types and a subview, with a conversion (float <-> double) and recorded; its
// errors.
TYPED_TEST(RankCallsTest, CopyAcrossLayoutTypesConversionsRecordingAndErrors) {
  using T = typename TypeParam::value_type;
  using O = std::conditional_t<std::is_same_v<T, float>, double, float>;
  using M = typename TypeParam::memory_space;
  const typename TypeParam::execution_space exec;
  Kokkos::View<T**, Kokkos::LayoutRight, M> src("src", 37, 45);
  Kokkos::View<O**, Kokkos::LayoutLeft, M> dst("dst", 37, 45);
  Kokkos::View<T***, Kokkos::LayoutLeft, M> parent("parent", 37, 3, 45);
  auto column = Kokkos::subview(parent, Kokkos::ALL, 1, Kokkos::ALL);  // LayoutStride
  auto hs = Kokkos::create_mirror_view(src);
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 45; ++j) hs(i, j) = T(0.1) * T(i * 45 + j) - T(7);  // not exact in float
  Kokkos::deep_copy(src, hs);
  kstream::copy(exec, dst, src);  // LayoutRight -> LayoutLeft, converted
  kstream::copy(exec, column, dst);  // and back, converted again, into a subview
  auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
  auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parent);
  std::int64_t wrong = 0;
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 45; ++j) {
      wrong += !same_bits(hd(i, j), static_cast<O>(hs(i, j)));
      wrong += !same_bits(hp(i, 1, j), static_cast<T>(static_cast<O>(hs(i, j))));
      wrong += hp(i, 0, j) != T(0) || hp(i, 2, j) != T(0);  // the rest of the parent untouched
    }
  EXPECT_EQ(wrong, 0);

  Kokkos::View<T**, Kokkos::LayoutLeft, M> copied("copied", 37, 45);
  auto chain = kstream::record(exec, [&](kstream::Recorder<typename TypeParam::execution_space>& r) {
    r.copy(copied, src);
  });
  chain.submit();
  exec.fence();
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copied);
  wrong = 0;
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 45; ++j) wrong += !same_bits(hc(i, j), hs(i, j));
  EXPECT_EQ(wrong, 0) << "recorded copy";

  Kokkos::View<T**, Kokkos::LayoutRight, M> narrow("narrow", 37, 44);
  const std::string mismatch = rejection([&] { kstream::copy(exec, narrow, src); });
  for (const char* part : {"kstream::copy", "extent mismatch in dimension 1", "'src'", "'dst'"})
    EXPECT_TRUE(mentions(mismatch, part));
  Kokkos::View<T*, M> flat("flat", 100);
  const std::string overlap = rejection([&] {
    kstream::copy(exec, Kokkos::subview(flat, Kokkos::pair<int, int>(1, 51)),
                  Kokkos::subview(flat, Kokkos::pair<int, int>(0, 50)));
  });
  EXPECT_TRUE(mentions(overlap, "partially overlaps"));
}

}  // namespace
}  // namespace kstream::test

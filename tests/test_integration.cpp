// How kstream presents itself to the Kokkos ecosystem: every entry point launches exactly one kernel with its
// documented label (what Kokkos Tools profilers show), and default tile shapes follow the execution space's
// properties (device vs host memory), not its name.
#include <functional>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif
#include <kstream/kstream.hpp>
#include <kstream/version.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace kstream::test {
namespace {

// ---- default tile shapes: checked at compile time for every backend built here ----
template <class ExecSpace>
constexpr bool has_shape_for_its_kind() {
  constexpr TileShape expected = is_device_execution_space_v<ExecSpace> ? TileShape{256, 1, 1} : TileShape{1, 4, 256};
  return default_tile_shape<ExecSpace>() == expected;
}
static_assert(!is_device_execution_space_v<Kokkos::DefaultHostExecutionSpace>);
static_assert(has_shape_for_its_kind<Kokkos::DefaultHostExecutionSpace>());
static_assert(has_shape_for_its_kind<Kokkos::DefaultExecutionSpace>());
#if defined(KOKKOS_ENABLE_SERIAL)
static_assert(!is_device_execution_space_v<Kokkos::Serial> && default_tile_shape<Kokkos::Serial>().team_size == 1);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
static_assert(!is_device_execution_space_v<Kokkos::OpenMP> && default_tile_shape<Kokkos::OpenMP>().team_size == 1);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
static_assert(is_device_execution_space_v<Kokkos::Cuda> && default_tile_shape<Kokkos::Cuda>().team_size == 256);
// Any space whose memory the host cannot read gets the device shape: a stand-in with Cuda's memory, another name.
struct SomeOtherDeviceSpace {
  using memory_space = Kokkos::CudaSpace;
};
static_assert(default_tile_shape<SomeOtherDeviceSpace>() == default_tile_shape<Kokkos::Cuda>());
#endif
#if defined(KOKKOS_ENABLE_HIP)
static_assert(is_device_execution_space_v<Kokkos::HIP> && default_tile_shape<Kokkos::HIP>().team_size == 256);
#endif
#if defined(KOKKOS_ENABLE_SYCL)
static_assert(is_device_execution_space_v<Kokkos::SYCL> && default_tile_shape<Kokkos::SYCL>().team_size == 256);
#endif

// ---- kernel labels, seen through the Kokkos Tools begin-parallel-for callback ----
std::vector<std::string>& launched() {
  static std::vector<std::string> labels;
  return labels;
}
void record_parallel_for(const char* name, std::uint32_t, std::uint64_t*) {
  launched().emplace_back(name);
}

/// The labels of the parallel_for kernels `call` launches (and nothing else).
template <class Call>
std::vector<std::string> kernels_of(Call&& call) {
  Kokkos::fence();
  launched().clear();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record_parallel_for);
  call();
  Kokkos::fence();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  return launched();
}

template <class C>
class IntegrationTest : public ::testing::Test {};
TYPED_TEST_SUITE(IntegrationTest, AllCases, CaseNames);

struct Triple {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x) const {
    return T(3) * x;
  }
};

/// "<call>[<strategy>]": the label Kokkos Tools see for a call whose plan is p.
std::string labelled(const char* call, const kstream::impl::Plan& p) {
  return std::string(call) + "[" + kstream::impl::plan_name(p) + "]";
}

TYPED_TEST(IntegrationTest, EveryEntryPointLaunchesOneKernelLabelledWithItsStrategy) {
  using T = typename TypeParam::value_type;
  using M = typename TypeParam::memory_space;
  using E = typename TypeParam::execution_space;
  const E exec;
  const TileShape own{1, 2, 3}, space = kstream::default_tile_shape<E>();
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(1000), std::int64_t(100003)}) {
    Kokkos::View<T*, M> x("x", n), y("y", n), z("z", n), out("out", n);
    const auto p = kstream::impl::plan_of(exec, space, out, x, y);
    const std::vector<std::pair<std::string, std::function<void()>>> calls = {
        {labelled("kstream::add", p), [&] { kstream::add(exec, x, y, out); }},
        {labelled("kstream::add", p), [&] { kstream::add(x, y, out); }},
        {labelled("kstream::fma", kstream::impl::plan_of(exec, space, out, x, y, z)),
         [&] { kstream::fma(exec, x, y, z, out); }},
        {labelled("kstream::fma", kstream::impl::plan_of(exec, own, out, x, y, z)),
         [&] { kstream::fma(exec, x, y, z, out, own); }},
        {labelled("kstream::transform", kstream::impl::plan_of(exec, space, out, x)),
         [&] { kstream::transform(exec, out, Triple{}, x); }},
        {labelled("kstream::copy", kstream::impl::plan_of(exec, space, out, x)), [&] { kstream::copy(exec, out, x); }},
        {"kstream::add[naive]", [&] { kstream::naive::add(exec, x, y, out); }},
        {"kstream::fma[naive]", [&] { kstream::naive::fma(exec, x, y, z, out); }},
        {"kstream::transform[naive]", [&] { kstream::naive::transform(exec, out, Triple{}, x); }},
    };
    for (const auto& [label, call] : calls) {
      const auto kernels = kernels_of(call);
      ASSERT_EQ(kernels.size(), 1u) << label << " n=" << n;
      EXPECT_EQ(kernels[0], label) << "n=" << n;
    }
    // Unequally aligned and strided views run other strategies of the same engine: still one kernel, its label.
    auto shifted = Kokkos::subview(x, Kokkos::pair<std::int64_t, std::int64_t>(n > 1 ? 1 : 0, n));
    auto shifted_out = Kokkos::subview(out, Kokkos::pair<std::int64_t, std::int64_t>(0, shifted.extent(0)));
    Kokkos::View<T*, M> wide("wide", 2 * n);
    Kokkos::View<T*, Kokkos::LayoutStride, M> strided(wide.data(), Kokkos::LayoutStride(n, 2));
    EXPECT_EQ(kernels_of([&] { kstream::add(exec, shifted, shifted, shifted_out); }),
              std::vector<std::string>{
                  labelled("kstream::add", kstream::impl::plan_of(exec, space, shifted_out, shifted, shifted))});
    EXPECT_EQ(kernels_of([&] { kstream::transform(exec, strided, Triple{}, strided); }),
              std::vector<std::string>{
                  labelled("kstream::transform", kstream::impl::plan_of(exec, space, strided, strided))});
  }
  // A transpose: the host's blocks or the device's tiles, named so.
  Kokkos::View<T**, Kokkos::LayoutRight, M> right("right", 40, 50);
  Kokkos::View<T**, Kokkos::LayoutLeft, M> left("left", 40, 50);
  const char* const transpose =
      kstream::is_device_execution_space_v<E> ? "kstream::copy[general/tiles]" : "kstream::copy[general/blocks]";
  EXPECT_EQ(kernels_of([&] { kstream::copy(exec, right, left); }), std::vector<std::string>{transpose});
  // n == 0 launches nothing.
  Kokkos::View<T*, M> empty("empty", 0);
  EXPECT_TRUE(kernels_of([&] { kstream::add(exec, empty, empty, empty); }).empty());
}

// ---- short calls on OpenMP: the calling thread, then only the threads a call pays for (explicit shapes and
// instances are obeyed as given) ----
#if defined(KOKKOS_ENABLE_OPENMP)
/// out = x + 1, counting the elements computed inside an OpenMP parallel region (through a pointer: the op is
/// copied into the kernel).
struct CountParallelElements {
  int* in_parallel;
  int* largest_team = nullptr;  // if set: the most threads seen in a region that ran an element
  KOKKOS_INLINE_FUNCTION float operator()(float x) const {
    KOKKOS_IF_ON_HOST((if (omp_in_parallel()) {
      Kokkos::atomic_inc(in_parallel);
      if (largest_team) Kokkos::atomic_max(largest_team, omp_get_num_threads());
    }))
    return x + 1.0f;
  }
};

TEST(ShortCalls, OpenMPRunsSmallCallsOnTheCallingThread) {
  const Kokkos::OpenMP exec;
  const int threads = exec.concurrency();
  // transform(out, op, x) on floats moves 8 bytes per element.
  const std::int64_t last_inline = impl::calling_thread_bytes(threads) / 8;
  EXPECT_EQ(impl::calling_thread_bytes(2), 256 * 1024);
  EXPECT_EQ(impl::calling_thread_bytes(16), 384 * 1024);
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(100), last_inline, last_inline + 1, 4 * last_inline}) {
    Kokkos::View<float*, Kokkos::HostSpace> x("x", n), out("out", n);
    for (std::int64_t i = 0; i < n; ++i) x(i) = float(i % 1000);
    for (const bool explicit_shape : {false, true}) {
      int in_parallel = 0;
      Kokkos::deep_copy(out, -1.0f);
      if (explicit_shape) {
        kstream::transform(exec, TileShape{1, 4, 1}, out, CountParallelElements{&in_parallel}, x);
      } else {
        kstream::transform(exec, out, CountParallelElements{&in_parallel}, x);
      }
      exec.fence();
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out(i), float(i % 1000) + 1.0f) << "n=" << n << " i=" << i;
      const bool calling_thread = threads > 1 && !explicit_shape && n <= last_inline;
      const TileShape shape = explicit_shape ? TileShape{1, 4, 1} : default_tile_shape<Kokkos::OpenMP>();
      EXPECT_EQ(impl::plan_of(exec, shape, out, x).threads == 0, calling_thread) << "n=" << n << " threads=" << threads;
      if (calling_thread) {
        EXPECT_EQ(in_parallel, 0) << "n=" << n;
      } else if (threads > 1 && n >= 4 * threads) {
        EXPECT_EQ(in_parallel, n) << "n=" << n << " explicit shape: " << explicit_shape;
      }
    }
  }
}

TEST(ShortCalls, OpenMPWakesOnlyTheThreadsACallPaysFor) {
  // One thread per 128 KiB of operands, rounded up to a power of two, at most all of them.
  EXPECT_EQ(impl::threads_for(384 * 1024 + 1, 16), 4);
  EXPECT_EQ(impl::threads_for(768 * 1024, 16), 8);
  EXPECT_EQ(impl::threads_for(1536 * 1024, 16), 16);
  EXPECT_EQ(impl::threads_for(std::int64_t(1) << 30, 16), 16);
  EXPECT_EQ(impl::threads_for(400 * 1024, 3), 3);
  const Kokkos::OpenMP exec;
  const int threads = exec.concurrency();
  const TileShape shape = default_tile_shape<Kokkos::OpenMP>();
  // transform(out, op, x) on floats moves 8 bytes per element.
  const std::int64_t first_parallel = impl::calling_thread_bytes(threads) / 8 + 1;
  for (const std::int64_t n : {first_parallel, 3 * first_parallel, 40 * first_parallel}) {
    Kokkos::View<float*, Kokkos::HostSpace> x("x", n), out("out", n);
    for (std::int64_t i = 0; i < n; ++i) x(i) = float(i % 1000);
    int in_parallel = 0, largest_team = 0;
    kstream::transform(exec, out, CountParallelElements{&in_parallel, &largest_team}, x);
    exec.fence();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out(i), float(i % 1000) + 1.0f) << "n=" << n << " i=" << i;
    const int expected = threads > 1 ? impl::threads_for(8 * n, threads) : threads;
    const impl::Plan plan = impl::plan_of(exec, shape, out, x);
    EXPECT_EQ(plan.threads, expected) << "n=" << n;
    EXPECT_EQ(plan.league, expected) << "n=" << n << ": one tile per thread";
    if (threads > 1) {
      EXPECT_EQ(in_parallel, n) << "n=" << n;
      EXPECT_EQ(largest_team, expected) << "n=" << n << " threads=" << threads;
    }
    // An instance of its own and an explicit shape are obeyed: all of the instance's threads, as Kokkos reports
    // them (Kokkos 4 with its deprecated code reports the default instance's count for every OpenMP instance).
    const Kokkos::OpenMP two(2);
    EXPECT_EQ(impl::plan_of(two, shape, out, x).threads, two.concurrency()) << "n=" << n;
    EXPECT_FALSE(impl::plan_of(two, shape, out, x).own_region) << "n=" << n;
    EXPECT_TRUE(plan.own_region) << "n=" << n;
    EXPECT_EQ(impl::plan_of(exec, TileShape{1, 4, 1}, out, x).threads, threads) << "n=" << n;
  }
}

TEST(ShortCalls, OpenMPOpensItsOwnRegionOnlyOnTheDefaultInstanceOutsideParallelRegions) {
  const Kokkos::OpenMP exec;
  const Kokkos::OpenMP two(2);
  EXPECT_TRUE(impl::opens_own_region(exec));
  EXPECT_FALSE(impl::opens_own_region(two));
  // Inside a parallel region a call goes to Kokkos, which runs it as it runs nested kernels: kstream only decides
  // not to open a region.
  int team = 0;
  bool own_region_inside = true;
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 0) {
    team = omp_get_num_threads();
    own_region_inside = impl::opens_own_region(exec);
  }
  if (team > 1) {
    EXPECT_FALSE(own_region_inside);
  }
  // A mid-small call: the same exact results through kstream's region on the default instance and through Kokkos
  // on another instance.
  const std::int64_t n = 3 * impl::calling_thread_bytes(exec.concurrency()) / 8 + 3;
  Kokkos::View<float*, Kokkos::HostSpace> x("x", n);
  for (std::int64_t i = 0; i < n; ++i) x(i) = float(i % 1000);
  for (const bool default_instance : {true, false}) {
    Kokkos::View<float*, Kokkos::HostSpace> out("out", n);
    int in_parallel = 0;
    if (default_instance) {
      kstream::transform(exec, out, CountParallelElements{&in_parallel}, x);
    } else {
      kstream::transform(two, out, CountParallelElements{&in_parallel}, x);
    }
    exec.fence();
    two.fence();
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out(i), float(i % 1000) + 1.0f) << "default instance: " << default_instance << " i=" << i;
    if (exec.concurrency() > 1) {
      EXPECT_EQ(in_parallel, n) << "default instance: " << default_instance;
    }
  }
}
// kstream's own region hands the functor to its threads as 64-bit scalars when it is trivially copyable and at
// most region_words words (run_in_own_region), else as a firstprivate copy. Either way every tile runs exactly
// once, on a functor whose every byte arrived.
template <std::size_t Words, class Runs>
struct TileRecorder {
  std::uint64_t pattern[Words];
  Runs runs;  // runs[tile]: how often the tile ran on an intact functor (one thread per tile: no race)

  static std::uint64_t expected(std::size_t k) { return 0x9E3779B97F4A7C15ull * (k + 1); }
  void operator()(std::int64_t tile) const {
    bool intact = true;
    for (std::size_t k = 0; k < Words; ++k) intact = intact && pattern[k] == expected(k);
    if (intact) runs[tile] += 1;
  }
};

template <class Recorder>
void expect_every_tile_once(Recorder recorder, int* runs, std::int64_t league) {
  for (std::size_t k = 0; k < std::size(recorder.pattern); ++k) recorder.pattern[k] = Recorder::expected(k);
  for (std::int64_t t = 0; t < league; ++t) runs[t] = 0;
  impl::run_in_own_region(recorder, league, Kokkos::OpenMP().concurrency());
  for (std::int64_t t = 0; t < league; ++t) ASSERT_EQ(runs[t], 1) << "tile " << t;
}

TEST(ShortCalls, OwnRegionHandsEveryThreadTheWholeFunctor) {
  constexpr std::int64_t league = 1000;
  Kokkos::View<int*, Kokkos::HostSpace> runs("runs", league);
  // Largest that crosses as words: 11 pattern words and the pointer, 96 bytes.
  using Words96 = TileRecorder<impl::region_words - 1, int*>;
  using Words104 = TileRecorder<impl::region_words, int*>;                 // one word too many
  using Counted = TileRecorder<4, Kokkos::View<int*, Kokkos::HostSpace>>;  // not trivially copyable
  static_assert(sizeof(Words96) == 96);
  EXPECT_TRUE(impl::crosses_as_words<Words96>);
  EXPECT_FALSE(impl::crosses_as_words<Words104>);
  EXPECT_FALSE(impl::crosses_as_words<Counted>);
  expect_every_tile_once(Words96{{}, runs.data()}, runs.data(), league);
  expect_every_tile_once(Words104{{}, runs.data()}, runs.data(), league);
  expect_every_tile_once(Counted{{}, runs}, runs.data(), league);
  // What add, fma and a strided fma hand over on a host: as words.
  using impl::Strategy;
  EXPECT_TRUE((impl::crosses_as_words<impl::HostTileFunctor<Strategy::packed, 4, impl::Plus, float, float, float>>));
  EXPECT_TRUE((impl::crosses_as_words<
               impl::HostTileFunctor<Strategy::packed, 2, impl::FusedMultiplyAdd, double, double, double, double>>));
  EXPECT_TRUE((impl::crosses_as_words<
               impl::HostTileFunctor<Strategy::strided, 1, impl::FusedMultiplyAdd, float, float, float, float>>));
}
#endif

// ---- the kernel's parameters on a GPU: what add and fma read fits the first 48 bytes of the parameter block ----
#if defined(KOKKOS_ENABLE_CUDA)
TEST(DeviceKernel, AddAndFmaFunctorsFitTheParametersFirstLine) {
  using impl::Strategy;
  EXPECT_EQ(sizeof(impl::TiledFunctor<Kokkos::Cuda, Strategy::packed, 4, 1, false, impl::Plus, float, float, float>),
            40u);
  EXPECT_EQ(sizeof(impl::TiledFunctor<Kokkos::Cuda, Strategy::packed, 2, 1, false, impl::FusedMultiplyAdd, double,
                                      double, double, double>),
            48u);
  EXPECT_EQ(sizeof(impl::TiledFunctor<Kokkos::Cuda, Strategy::contiguous, 1, 4, false, impl::FusedMultiplyAdd, float,
                                      float, float, float>),
            48u);
  EXPECT_EQ(sizeof(impl::ElementsFunctor<impl::FusedMultiplyAdd, float, float, float, float>), 48u);
}
#endif

TEST(Configuration, PrintsVersionKokkosAndEveryBackendsShape) {
  std::ostringstream os;
  kstream::print_configuration(os);
  const std::string text = os.str();
  EXPECT_NE(text.find(std::string("kstream ") + KSTREAM_VERSION_STRING), std::string::npos) << text;
  EXPECT_NE(text.find("Kokkos " + std::to_string(KOKKOS_VERSION / 10000)), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("default tile shape on ") + Kokkos::DefaultExecutionSpace::name() + ": team_size="),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace kstream::test

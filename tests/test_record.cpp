// kstream::record: a recorded chain of calls replays as one Kokkos Graph with the eager calls' results, bit for
// bit; replays read the views' current contents; arguments are checked when recorded; an empty recording works.
#include <cstring>
#include <kstream/kstream.hpp>

#include "test_support.hpp"

namespace kstream::test {
namespace {

template <class C>
class RecordTest : public ::testing::Test {};
TYPED_TEST_SUITE(RecordTest, AllCases, CaseNames);

struct AxpyLike {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const {
    return T(0.5) * x + y;
  }
};

/// A pool of same-sized operands at different offsets into their allocations (so every access strategy runs),
/// with host copies for comparisons.
template <class C>
struct Pool {
  using T = typename C::value_type;
  using View = Kokkos::View<T*, Kokkos::LayoutStride, typename C::memory_space>;
  std::vector<Kokkos::View<T*, typename C::memory_space>> parents;
  std::vector<View> views;

  Pool(std::int64_t n, int count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    for (int k = 0; k < count; ++k) {
      const std::int64_t offset = k % 4, stride = k == count - 1 ? 2 : 1;  // one strided view
      parents.emplace_back("pool" + std::to_string(k), offset + n * stride + 1);
      views.emplace_back(
          Kokkos::subview(parents.back(), Kokkos::pair<std::int64_t, std::int64_t>(offset, offset + n * stride)));
      if (stride > 1) views.back() = View(parents.back().data() + offset, Kokkos::LayoutStride(n, stride));
      auto host = Kokkos::create_mirror_view(parents.back());
      for (std::size_t i = 0; i < host.extent(0); ++i) host(i) = T(value(rng));
      Kokkos::deep_copy(parents.back(), host);
    }
  }

  std::vector<T> contents() const {
    std::vector<T> all;
    for (const auto& p : parents) {
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p);
      all.insert(all.end(), host.data(), host.data() + host.extent(0));
    }
    return all;
  }
};

/// Elements that differ (same_bits: any NaN equals any NaN).
template <class T>
std::int64_t mismatches(const std::vector<T>& a, const std::vector<T>& b) {
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) wrong += !same_bits(a[i], b[i]);
  return wrong;
}

/// One random chain, applied through `ops` (a Recorder, or an eager stand-in with the same member functions).
template <class Ops, class View>
void apply_chain(Ops& ops, const std::vector<View>& v, std::uint64_t seed, int length) {
  std::mt19937_64 rng(seed);
  auto pick = [&] { return v[rng() % v.size()]; };
  for (int k = 0; k < length; ++k) {
    // Output: a contiguous view (index < size - 1); inputs: any view, the output itself included.
    const View out = v[rng() % (v.size() - 1)];
    switch (rng() % 3) {
      case 0:
        ops.add(pick(), pick(), out);
        break;
      case 1:
        ops.fma(pick(), pick(), pick(), out);
        break;
      default:
        ops.transform(out, AxpyLike{}, pick(), pick());
    }
  }
}

template <class ExecSpace>
struct Eager {  // the eager calls behind the Recorder's signatures
  ExecSpace exec;
  template <class... A>
  void add(const A&... a) {
    kstream::add(exec, a...);
  }
  template <class... A>
  void fma(const A&... a) {
    kstream::fma(exec, a...);
  }
  template <class O, class Op, class... I>
  void transform(const O& out, const Op& op, const I&... ins) {
    kstream::transform(exec, out, op, ins...);
  }
};

TYPED_TEST(RecordTest, RandomChainsReplayBitForBitAsEagerCalls) {
  using Exec = typename TypeParam::execution_space;
  const Exec exec;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const std::int64_t n = std::int64_t(seed % 3 == 0 ? 4099 : 1 + 37 * seed);
    const int length = 1 + int(seed * 5 % 24);
    Pool<TypeParam> eager_pool(n, 5, seed), recorded_pool(n, 5, seed);
    Eager<Exec> eager{exec};
    apply_chain(eager, eager_pool.views, seed, length);
    const auto before = recorded_pool.contents();
    auto recording =
        kstream::record(exec, [&](kstream::Recorder<Exec>& r) { apply_chain(r, recorded_pool.views, seed, length); });
    EXPECT_EQ(recording.size(), std::size_t(length)) << "seed=" << seed;
    EXPECT_EQ(mismatches(before, recorded_pool.contents()), 0) << "recording ran something: seed=" << seed;
    recording.submit();
    exec.fence();
    EXPECT_EQ(mismatches(eager_pool.contents(), recorded_pool.contents()), 0) << "seed=" << seed << " n=" << n;
    // A second replay equals a second eager pass.
    apply_chain(eager, eager_pool.views, seed, length);
    recording.submit(exec);
    exec.fence();
    EXPECT_EQ(mismatches(eager_pool.contents(), recorded_pool.contents()), 0) << "replay 2, seed=" << seed;
  }
}

TYPED_TEST(RecordTest, ReplaysReadTheCurrentContentsAndKeepViewsAlive) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  using View = Kokkos::View<T*, typename TypeParam::memory_space>;
  const std::int64_t n = 1000;
  View out("out", n);
  auto recording = [&] {
    View x("x", n), y("y", n);  // go out of scope here: the recording must keep them alive
    Kokkos::deep_copy(x, T(1));
    Kokkos::deep_copy(y, T(2));
    return kstream::record(Exec(), [&](kstream::Recorder<Exec>& r) {
      r.add(x, y, out);       // out = x + y
      r.fma(out, x, y, out);  // out = out * x + y
    });
  }();
  recording.submit();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  EXPECT_EQ(host(0), T(5));  // (1 + 2) * 1 + 2
  EXPECT_EQ(host(n - 1), T(5));
  Kokkos::deep_copy(out, T(-1));  // results are recomputed from the inputs, not left over
  recording.submit();
  Kokkos::deep_copy(host, out);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) wrong += host(i) != T(5);
  EXPECT_EQ(wrong, 0);
}

TYPED_TEST(RecordTest, ChangedInputsAreSeenByTheNextReplay) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  const std::int64_t n = 5003;
  Kokkos::View<T*, typename TypeParam::memory_space> x("x", n), y("y", n), out("out", n);
  auto recording = kstream::record(Exec(), [&](kstream::Recorder<Exec>& r) { r.add(x, y, out); });
  for (int replay = 1; replay <= 3; ++replay) {
    Kokkos::deep_copy(x, T(replay));
    Kokkos::deep_copy(y, T(10 * replay));
    recording.submit();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) wrong += host(i) != T(11 * replay);
    EXPECT_EQ(wrong, 0) << "replay " << replay;
  }
}

TYPED_TEST(RecordTest, BadArgumentsAreRejectedWhenRecordedWithTheEagerMessage) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  Kokkos::View<T*, typename TypeParam::memory_space> x("x", 10), y("y", 11), out("out", 10);
  std::string eager, recorded;
  try {
    kstream::add(Exec(), x, y, out);
  } catch (const std::invalid_argument& e) {
    eager = e.what();
  }
  try {
    kstream::record(Exec(), [&](kstream::Recorder<Exec>& r) { r.add(x, y, out); });
  } catch (const std::invalid_argument& e) {
    recorded = e.what();
  }
  EXPECT_NE(eager.find("extent mismatch"), std::string::npos) << eager;
  EXPECT_EQ(recorded, eager);
  EXPECT_THROW(kstream::record(Exec(),
                               [&](kstream::Recorder<Exec>& r) {
                                 r.fma(x, x, x, out, TileShape{1, 3, 1});
                               }),
               std::invalid_argument);
}

TYPED_TEST(RecordTest, AnEmptyRecordingSubmitsAndDoesNothing) {
  using T = typename TypeParam::value_type;
  using Exec = typename TypeParam::execution_space;
  auto nothing = kstream::record(Exec(), [](kstream::Recorder<Exec>&) {});
  EXPECT_EQ(nothing.size(), 0u);
  nothing.submit();
  Kokkos::View<T*, typename TypeParam::memory_space> empty("empty", 0);
  auto empty_views = kstream::record(Exec(), [&](kstream::Recorder<Exec>& r) { r.add(empty, empty, empty); });
  EXPECT_EQ(empty_views.size(), 0u) << "n == 0 records no kernel, like the eager call launches none";
  empty_views.submit();
  Exec().fence();
}

}  // namespace
}  // namespace kstream::test

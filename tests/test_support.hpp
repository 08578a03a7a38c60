#pragma once
// Shared test machinery: the backend x value-type cases every test is instantiated for, views built at chosen
// offsets and strides inside a guarded parent, and host-side comparison against a scalar reference.
#include <functional>
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <kstream/low_precision.hpp>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace kstream::test {

/// How every test compares results: the same bits, or both NaN (whatever the payload). Works for the 16-bit types
/// too (their NaN test goes through float).
/// Runs `call` and returns the std::invalid_argument message, or a note that none (or another exception) came.
inline std::string rejection(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

/// Whether `message` holds `part`, showing the message where not.
inline ::testing::AssertionResult mentions(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << message << "\" does not mention \"" << part << "\"";
}

template <class T>
bool same_bits(T a, T b) {
  const float fa = kstream::to_float(a), fb = kstream::to_float(b);
  return (fa != fa && fb != fb) || std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class ExecSpace, class T>
struct Case {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using value_type = T;
};

template <class... Lists>
struct Concat;
template <class... A>
struct Concat<::testing::Types<A...>> {
  using type = ::testing::Types<A...>;
};
template <class... A, class... B, class... Rest>
struct Concat<::testing::Types<A...>, ::testing::Types<B...>, Rest...> {
  using type = typename Concat<::testing::Types<A..., B...>, Rest...>::type;
};

/// The build's GPU backend (CUDA or HIP), where it has one.
#if defined(KOKKOS_ENABLE_CUDA)
#define KSTREAM_TEST_GPU 1
using GpuSpace = Kokkos::Cuda;
#elif defined(KOKKOS_ENABLE_HIP)
#define KSTREAM_TEST_GPU 1
using GpuSpace = Kokkos::HIP;
#endif
/// The backends the tests run on: the GPU where the build has one, every host backend otherwise. A GPU build
/// leaves its host backends to the host builds (CI tests Serial and OpenMP there), unless configured with
/// -DKSTREAM_TEST_HOST_BACKENDS=ON: their tests add a quarter to its compile time and run no GPU code.
#if !defined(KSTREAM_TEST_GPU) || defined(KSTREAM_TEST_HOST_BACKENDS)
#define KSTREAM_TEST_HOSTS 1
#endif
#if !defined(KOKKOS_ENABLE_SERIAL) && !defined(KOKKOS_ENABLE_OPENMP) && !defined(KSTREAM_TEST_GPU)
#error "kstream tests need the Serial, OpenMP, Cuda or HIP backend of Kokkos"
#endif

/// ListFor<Space> of each tested backend, joined: a test list per backend.
template <template <class Space> class ListFor>
using ForEachTestedSpace = typename Concat<::testing::Types<>
#if defined(KSTREAM_TEST_HOSTS) && defined(KOKKOS_ENABLE_SERIAL)
                                           ,
                                           ListFor<Kokkos::Serial>
#endif
#if defined(KSTREAM_TEST_HOSTS) && defined(KOKKOS_ENABLE_OPENMP)
                                           ,
                                           ListFor<Kokkos::OpenMP>
#endif
#if defined(KSTREAM_TEST_GPU)
                                           ,
                                           ListFor<GpuSpace>
#endif
                                           >::type;

template <class Space>
using CasesFor = ::testing::Types<Case<Space, float>, Case<Space, double>>;
/// Every test is instantiated once per tested backend and value type.
using AllCases = ForEachTestedSpace<CasesFor>;

/// AllCases of one value type: a long test file's bodies instantiated once per type, in a file per type
/// (reduce_tests.hpp).
template <class T, class List>
struct OfType;
template <class T, class... C>
struct OfType<T, ::testing::Types<C...>> {
  using type =
      typename Concat<::testing::Types<>, std::conditional_t<std::is_same_v<typename C::value_type, T>,
                                                             ::testing::Types<C>, ::testing::Types<>>...>::type;
};
template <class T>
using CasesOfType = typename OfType<T, AllCases>::type;

/// A backend whose memory the host cannot read (the GPU): tile shapes with GPU team sizes apply to it.
template <class C>
inline constexpr bool on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename C::memory_space>::accessible;

/// Test names show the backend and the type: "Cuda_float".
struct CaseNames {
  template <class C>
  static std::string GetName(int) {
    return std::string(C::execution_space::name()) + "_" +
           (std::is_same_v<typename C::value_type, float> ? "float" : "double");
  }
};

/// How an operand view sits in memory: `offset` elements into a parent, every `stride`-th element.
struct Placement {
  std::int64_t offset = 0;
  std::int64_t stride = 1;
  std::string describe() const { return "offset=" + std::to_string(offset) + " stride=" + std::to_string(stride); }
};

template <class T, class MemorySpace>
using StridedView = Kokkos::View<T*, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// A parent allocation and its host copy, every element a sentinel until set: what the guarded views of the tests
/// live in (GuardedOperand here, rank 1; GuardedTensor in tensor_case.hpp, any rank).
template <class T, class MemorySpace>
class GuardedParent {
 public:
  static T sentinel() { return T(-12345.5); }

  /// Sends the whole host copy to the parent.
  void upload() {
    auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), parent_);
    std::memcpy(h.data(), host_.get(), std::size_t(extent_) * sizeof(T));
    Kokkos::deep_copy(parent_, h);
  }

  /// Reads the whole parent back into the host copy.
  void download() {
    Kokkos::fence();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parent_);
    std::memcpy(host_.get(), h.data(), std::size_t(extent_) * sizeof(T));
  }

  static bool same_value(T a, T b) { return same_bits(a, b); }

 protected:
  // The host copy is filled by memcpy, doubling what is set: the sanitizer build (-Og) runs element loops and
  // std::vector's element-wise construction several times slower, on parents of millions of elements.
  GuardedParent(const std::string& label, std::int64_t extent)
      : parent_(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), extent),
        host_(new T[std::size_t(extent)]),
        extent_(extent) {
    if (extent == 0) return;
    host_[0] = sentinel();
    for (std::int64_t set = 1; set < extent; set *= 2)
      std::memcpy(host_.get() + set, host_.get(), std::size_t(std::min(set, extent - set)) * sizeof(T));
  }

  /// Elements of the parent not marked in `mine` (the view's) that no longer hold the sentinel.
  std::int64_t damaged(const std::vector<unsigned char>& mine) const {
    std::int64_t count = 0;
    for (std::int64_t k = 0; k < extent_; ++k) count += !mine[k] && !same_value(host_[k], sentinel());
    return count;
  }

  Kokkos::View<T*, MemorySpace> parent_;
  std::unique_ptr<T[]> host_;
  std::int64_t extent_;
};

/// A view of n elements placed inside a larger parent whose other elements hold a sentinel, so that a kernel
/// writing anywhere but its n elements is caught.
template <class T, class MemorySpace>
class GuardedOperand : public GuardedParent<T, MemorySpace> {
 public:
  static constexpr std::int64_t guard = 17;

  GuardedOperand(const std::string& label, std::int64_t n, Placement place)
      : GuardedParent<T, MemorySpace>(label, parent_extent(n, place)), n_(n), place_(place) {}

  StridedView<T, MemorySpace> view() const {
    return StridedView<T, MemorySpace>(this->parent_.data() + place_.offset, Kokkos::LayoutStride(n_, place_.stride));
  }

  /// Sets element i (host copy); upload() sends everything to the device.
  T& at(std::int64_t i) { return this->host_[place_.offset + i * place_.stride]; }
  T at(std::int64_t i) const { return this->host_[place_.offset + i * place_.stride]; }

  /// Elements of the parent that are not among the view's n: all must still hold the sentinel.
  std::int64_t damaged_guard_elements() const {
    std::vector<unsigned char> mine(std::size_t(this->extent_), 0);
    for (std::int64_t i = 0; i < n_; ++i) mine[place_.offset + i * place_.stride] = true;
    return this->damaged(mine);
  }

  std::int64_t size() const { return n_; }

 private:
  static std::int64_t parent_extent(std::int64_t n, Placement p) {
    return p.offset + (n > 0 ? (n - 1) * p.stride + 1 : 0) + guard;
  }

  std::int64_t n_;
  Placement place_;
};

/// splitmix64's output function: a well-mixed 64-bit value of z. The tests' inputs come from it rather than from
/// <random>'s engines and distributions, which the sanitizer build (-Og) runs several times slower.
inline std::uint64_t mix_bits(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Deterministic values with a spread of magnitudes and signs: m * 2^e, m uniform in [-2, 2), e in [-20, 20].
template <class T, class MemorySpace>
void fill_values(GuardedOperand<T, MemorySpace>& operand, std::uint64_t seed) {
  const std::uint64_t base = mix_bits(seed);
  for (std::int64_t i = 0; i < operand.size(); ++i) {
    const std::uint64_t bits = mix_bits(base + std::uint64_t(i));
    const double mantissa = double(bits >> 11) * 0x1p-51 - 2.0;
    operand.at(i) = T(std::ldexp(mantissa, int(bits % 41) - 20));
  }
}

/// Compares the n elements of `out` with `expected` bit for bit (any NaN equals any NaN) and checks the guards.
/// Returns "" when all is well, else a description of the first mismatch and the count.
template <class T, class MemorySpace>
std::string compare(const GuardedOperand<T, MemorySpace>& out, const std::vector<T>& expected) {
  std::int64_t errors = 0;
  std::int64_t first = -1;
  for (std::int64_t i = 0; i < out.size(); ++i) {
    if (!GuardedOperand<T, MemorySpace>::same_value(out.at(i), expected[i])) {
      if (first < 0) first = i;
      ++errors;
    }
  }
  std::ostringstream os;
  if (errors > 0) {
    os.precision(17);
    os << errors << " wrong elements, first at i=" << first << ": got " << out.at(first) << " expected "
       << expected[first] << ". ";
  }
  if (const auto damaged = out.damaged_guard_elements(); damaged > 0)
    os << damaged << " elements outside the view were overwritten.";
  return os.str();
}

/// A whole number from the environment variable `name`, or `fallback` where it is unset or empty.
inline std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::strtoull(value, nullptr, 10) : fallback;
}

/// The largest size of a test that walks sizes: `fallback`, or KSTREAM_LARGEST_EDGE_SIZE where set. scripts/test.sh
/// gives the sanitizer build (Serial) 100003: a Serial call makes the same plan at any such size (one thread, no
/// calling-thread rule; a reduction's host tiles have a fixed length; the store tests set both store paths), and
/// the sanitizers' checked accesses were most of that build's test time.
inline std::int64_t largest_edge_size(std::int64_t fallback) {
  return std::int64_t(env_or("KSTREAM_LARGEST_EDGE_SIZE", std::uint64_t(fallback)));
}

/// Sizes that hurt a tiled kernel with tiles of `tile` elements: empty, tiny, around warp and tile edges, and a
/// prime of many tiles (largest_edge_size).
inline std::vector<std::int64_t> edge_sizes(std::int64_t tile) {
  const std::int64_t largest = largest_edge_size(1000003);
  return {0, 1, 2, 3, 5, 7, 31, 32, 33, tile - 1, tile, tile + 1, 2 * tile + 3, largest};
}

}  // namespace kstream::test

// Tuning program behind the shifted row of docs/engine.md (CUDA; built with -DKSTREAM_BUILD_TUNING=ON): whether
// unequally aligned operands on a GPU run faster as shifted packs than as single elements. For 16-bit types the
// contiguous strategy's load instruction moves 64 bytes per warp. Shifted packs: each thread writes one aligned
// 16-byte pack of the output and builds each input's pack from the two aligned 16-byte packs that hold its
// elements (the second is the next thread's first, so L1 serves it), shifted in registers.
//
// Variants, add (x + 1, y + 2, out + 3 elements) and fma (a + 1, b + 2, c + 3, out + 1), float, half_t and
// bhalf_t, in paired rounds (paired_rounds.hpp), GB/s on the bytes the operation must move:
//   kstream_aligned  kstream on the same views shifted to a common alignment (the packed strategy)
//   kstream          kstream on the unequally aligned views (16-bit: the shifted strategy; float: contiguous)
//   shifted          a minimal TeamPolicy kernel of 256-thread teams, one output pack per thread, shifted input
//                    packs (the body only; its result is checked against kstream's)
//
//   shifted_packs [log2 n = 28]
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <kstream/kstream.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "paired_rounds.hpp"

using Exec = Kokkos::Cuda;
using Member = Kokkos::TeamPolicy<Exec>::member_type;
using kstream::impl::Pack;

template <class T>
constexpr int width = 16 / int(sizeof(T));

/// The W elements of `data` from element e on; `data + e - s` is 16-byte aligned.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, width<T>> load_shifted(const T* data, std::int64_t e, int s) {
  constexpr int W = width<T>;
  const auto* base = reinterpret_cast<const Pack<T, W>*>(data + e - s);
  const Pack<T, W> a = base[0];
  if (s == 0) return a;
  return kstream::impl::shifted_pack(a, base[1], s, std::make_integer_sequence<int, W>{});
}

template <class T, int Inputs>
struct Shifted {
  static constexpr int W = width<T>;
  T* out;
  const T* in[Inputs];
  std::int64_t first;  // first output element of the body (16-byte aligned)
  std::int64_t packs;  // output packs in the body
  int shift[Inputs];
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t p = std::int64_t(team.league_rank()) * team.team_size() + team.team_rank();
    if (p >= packs) return;
    const std::int64_t e = first + p * W;
    Pack<T, W> r;
    if constexpr (Inputs == 2) {
      const Pack<T, W> x = load_shifted(in[0], e, shift[0]), y = load_shifted(in[1], e, shift[1]);
      for (int j = 0; j < W; ++j) r.lane[j] = kstream::impl::Plus{}(x.lane[j], y.lane[j]);
    } else {
      const Pack<T, W> a = load_shifted(in[0], e, shift[0]), b = load_shifted(in[1], e, shift[1]),
                       c = load_shifted(in[2], e, shift[2]);
      for (int j = 0; j < W; ++j) r.lane[j] = kstream::impl::FusedMultiplyAdd{}(a.lane[j], b.lane[j], c.lane[j]);
    }
    *reinterpret_cast<Pack<T, W>*>(out + e) = r;
  }
};

template <class T>
using V = Kokkos::View<T*, Kokkos::CudaSpace>;

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, Kokkos::Experimental::bhalf_t>) {
    return "bf16";
  } else {
    return sizeof(T) == 2 ? "half" : "float";
  }
}

template <class T, int Inputs>
void run(std::int64_t n) {
  constexpr int W = width<T>;
  const Exec exec;
  V<T> parent[4] = {V<T>("p0", n + 8), V<T>("p1", n + 8), V<T>("p2", n + 8), V<T>("p3", n + 8)};
  for (int k = 0; k < 4; ++k) {
    auto p = parent[k];
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Exec>(exec, 0, n + 8),
        KOKKOS_LAMBDA(std::int64_t i) { p(i) = kstream::from_float<T>(float((i * (k + 3)) % 17) * 0.25f); });
  }
  auto at = [&](int k, int offset) {
    return Kokkos::subview(parent[k], std::make_pair(std::int64_t(offset), std::int64_t(offset) + n));
  };
  // add: x + 1, y + 2, out + 3; fma: a + 1, b + 2, c + 3, out + 1 (the suite's offsets123)
  const int out_offset = Inputs == 2 ? 3 : 1;
  const auto out = at(3, out_offset), out_aligned = at(3, 0);
  V<T> check("check", n);
  Shifted<T, Inputs> f{};
  f.out = out.data();
  const std::uintptr_t out_address = reinterpret_cast<std::uintptr_t>(out.data());
  const std::int64_t head = std::int64_t((16 - out_address % 16) % 16) / std::int64_t(sizeof(T));
  int max_shift = 0;
  for (int k = 0; k < Inputs; ++k) {
    f.in[k] = at(k, k + 1).data();
    f.shift[k] = int((reinterpret_cast<std::uintptr_t>(f.in[k] + head) % 16) / sizeof(T));
    max_shift = f.shift[k] > max_shift ? f.shift[k] : max_shift;
  }
  // Body: from the first aligned output pack whose input packs start inside every view, to the last whose second
  // input packs end inside them.
  f.first = head + (head < max_shift ? W : 0);
  f.packs = (n - f.first - 2 * W) / W;
  const int league = int((f.packs + 255) / 256);
  auto kstream_call = [&](auto o, auto... ins) {
    return [=] {
      if constexpr (Inputs == 2) {
        kstream::add(exec, ins..., o);
      } else {
        kstream::fma(exec, ins..., o);
      }
    };
  };
  std::function<void()> aligned_call, offsets_call;
  if constexpr (Inputs == 2) {
    aligned_call = kstream_call(out_aligned, at(0, 0), at(1, 0));
    offsets_call = kstream_call(out, at(0, 1), at(1, 2));
  } else {
    aligned_call = kstream_call(out_aligned, at(0, 0), at(1, 0), at(2, 0));
    offsets_call = kstream_call(out, at(0, 1), at(1, 2), at(2, 3));
  }
  auto shifted_call = [=] { Kokkos::parallel_for("shifted", Kokkos::TeamPolicy<Exec>(exec, league, 256), f); };
  // Check the shifted body against kstream's result.
  offsets_call();
  Kokkos::deep_copy(exec, check, out);
  Kokkos::deep_copy(exec, out, kstream::from_float<T>(-1.0f));
  shifted_call();
  std::int64_t wrong = 0;
  const std::int64_t lo = f.first, hi = f.first + f.packs * W;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Exec>(exec, lo, hi),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & w) {
        w += kstream::to_float(out(i)) != kstream::to_float(check(i));
      },
      wrong);
  const int reps = n >= (std::int64_t(1) << 26) ? 10 : 100;
  auto repeat = [&](std::function<void()> call) {
    return [=] {
      for (int r = 0; r < reps; ++r) call();
      exec.fence();
    };
  };
  std::vector<std::pair<const char*, std::function<void()>>> vs = {
      {"kstream_aligned", repeat(aligned_call)}, {"kstream", repeat(offsets_call)}, {"shifted", repeat(shifted_call)}};
  const auto t = paired_rounds(vs, 1);
  const double bytes = double(Inputs + 1) * double(sizeof(T)) * double(n);
  for (std::size_t k = 0; k < vs.size(); ++k) {
    const auto& v = t[k];
    const double us = v[v.size() / 2] / reps;
    std::printf(
        "%s %-5s n=%lld %-16s median %9.3f us  %7.0f GB/s  p10 %9.3f p90 %9.3f  shifted body: %lld wrong of %lld\n",
        Inputs == 2 ? "add" : "fma", type_name<T>(), (long long)n, vs[k].first, us, bytes / us / 1e3,
        v[v.size() / 10] / reps, v[v.size() * 9 / 10] / reps, (long long)wrong, (long long)(hi - lo));
  }
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::int64_t n = std::int64_t(1) << (argc > 1 ? std::atoi(argv[1]) : 28);
    run<Kokkos::Experimental::half_t, 2>(n);
    run<Kokkos::Experimental::half_t, 3>(n);
    run<Kokkos::Experimental::bhalf_t, 2>(n);
    run<Kokkos::Experimental::bhalf_t, 3>(n);
    run<float, 2>(n);
    run<float, 3>(n);
  }
  Kokkos::finalize();
}

#pragma once
// The statistics of the row operations (kstream/rows.hpp): kstream::MaxExpSum (softmax), kstream::Moments (layer
// norm), kstream::SumOfSquares (RMS norm), each a state, its identity, add(state, x), an associative merge
// operator()(a, b) and optionally start(first element) and add_run(state, x, n) over adjacent elements; and the
// helpers their loops share (exp_of, for_lanes, widened_sums). A user's statistic for kstream::transform_rows has
// the same form (docs/transform.md).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/along.hpp>            // accumulator_t
#include <kstream/impl/row_values.hpp>  // compute_t, compute_value
#include <type_traits>

namespace kstream {
namespace impl {
/// c ? a : b through integer masks: g++ keeps a float select whose arms compute as a branch (the arithmetic may
/// trap), and a loop with a branch does not vectorize.
KOKKOS_FORCEINLINE_FUNCTION float pick(bool c, float a, float b) {
  const std::int32_t mask = -std::int32_t(c);
  const std::int32_t bits = (Kokkos::bit_cast<std::int32_t>(a) & mask) | (Kokkos::bit_cast<std::int32_t>(b) & ~mask);
  return Kokkos::bit_cast<float>(bits);
}

/// e^x. Hosts, float: Cody-Waite reduction and Cephes' degree-6 polynomial (within 2 ulps; 0 below -87.3, where
/// e^x is subnormal, and infinity above 87.3), inline and branch-free, so that a slice's loop vectorizes where
/// libm's expf is a call an element; elsewhere Kokkos::exp. Forced inline: in a large translation unit g++ stops
/// inlining (inline-unit-growth), and the loops calling it ran 2.5x slower.
template <class C>
KOKKOS_FORCEINLINE_FUNCTION C exp_of(C x) {
  if constexpr (std::is_same_v<C, float>) {
    KOKKOS_IF_ON_HOST((
      const std::int32_t bits = Kokkos::bit_cast<std::int32_t>(x), magnitude = bits & 0x7fffffff;
      const bool nan = magnitude > 0x7f800000, negative = bits < 0, outside = magnitude > 0x42ae999a;  // 87.3
      const float clamped = pick(outside, pick(negative, -87.3f, 87.3f), x);
      const float n = (clamped * 1.44269504f + 12582912.0f) - 12582912.0f;  // rounded to an integer (1.5 * 2^23)
      const float r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
      float p = 1.9875691500e-4f;
      p = p * r + 1.3981999507e-3f;
      p = p * r + 8.3334519073e-3f;
      p = p * r + 4.1665795894e-2f;
      p = p * r + 1.6666665459e-1f;
      p = p * r + 5.0000001201e-1f;
      p = p * r * r + r + 1.0f;
      const float y = p * Kokkos::bit_cast<float>((std::int32_t(n) + 127) << 23);
      return pick(nan, x, pick(outside, pick(negative, 0.0f, Kokkos::Experimental::infinity<float>::value), y));
    ))
  }
  return Kokkos::exp(x);
}

/// A host loop over n adjacent elements in run_lanes interleaved lanes: body(j, j % run_lanes), lanes whole first.
inline constexpr int run_lanes = 16;
template <class Body>
KOKKOS_FORCEINLINE_FUNCTION void for_lanes(std::int64_t n, const Body& body) {
  std::int64_t j = 0;
  for (; j + run_lanes <= n; j += run_lanes)
    for (int l = 0; l < run_lanes; ++l) body(j + l, l);
  const int rest = int(n - j);  // below run_lanes
  for (int l = 0; l < rest; ++l) body(j + l, l);
}

/// S sums over n adjacent elements, in compute_t lanes of at most 16 elements each before they join the
/// accumulator_t lanes `wide` (float statistics in double at the speed of float lanes): body(j, l, sums) adds
/// element j into sums[k][l] for each k. Lanes of few elements (a device thread's packs) fold in compute_t first,
/// in pairs, up to 16 elements a sum. Returns how many wide lanes hold sums.
template <class C, int S, class A, class Body>
KOKKOS_FORCEINLINE_FUNCTION int widened_sums(std::int64_t n, A (&wide)[S][run_lanes], const Body& body) {
  int used = 0;
  for (std::int64_t from = 0; from < n; from += 16 * run_lanes) {
    C sums[S][run_lanes] = {};
    const std::int64_t m = Kokkos::min(n - from, std::int64_t(16 * run_lanes));
    for_lanes(m, [&](std::int64_t j, int l) { body(from + j, l, sums); });
    int kept = run_lanes;
    for (std::int64_t per = (m + kept - 1) / kept; kept > 1 && per * 2 <= 16; kept /= 2, per *= 2) {
      for (int k = 0; k < S; ++k)
        for (int l = 0; l < kept / 2; ++l) sums[k][l] += sums[k][l + kept / 2];
    }
    used = Kokkos::max(used, kept);
    for (int k = 0; k < S; ++k)
      for (int l = 0; l < kept; ++l) wide[k][l] += A(sums[k][l]);
  }
  return used;
}

/// The larger of a and b where neither is NaN, else one of them: a device's one-instruction max (a NaN element
/// reaches a softmax through its exponential instead).
template <class C>
KOKKOS_FORCEINLINE_FUNCTION C larger(C a, C b) {
  KOKKOS_IF_ON_DEVICE((return Kokkos::fmax(a, b);))
  KOKKOS_IF_ON_HOST((return a > b ? a : b;))
}
}  // namespace impl

/// The running max and the sum of exp(x - max) over it (online softmax), in compute_t and accumulator_t.
template <class T>
struct MaxExpSumState {
  impl::compute_t<T> max;
  accumulator_t<T> sum;
};

/// A slice's max and sum of exponentials (softmax's statistics): one exponential an element.
struct MaxExpSum {
  template <class T>
  KOKKOS_INLINE_FUNCTION MaxExpSumState<T> identity() const {
    return {-Kokkos::Experimental::infinity<impl::compute_t<T>>::value, accumulator_t<T>(0)};
  }
  /// One element: exp(x - x), 1 (NaN for +inf, as torch.softmax's exp(inf - inf)).
  template <class T, class C>
  KOKKOS_INLINE_FUNCTION void add(MaxExpSumState<T>& s, C x) const {
    s = (*this)(s, MaxExpSumState<T>{x, accumulator_t<T>(x > C(0) ? C(1) + (x - x) : C(1))});
  }
  /// n adjacent elements (a host's slice, a device thread's packs): their max, then their exponentials' sum, each
  /// in lanes that vectorize. The max passes over NaN; the NaN's exponential makes the sum NaN.
  template <class T>
  KOKKOS_INLINE_FUNCTION void add_run(MaxExpSumState<T>& s, const T* x, std::int64_t n) const {
    using C = impl::compute_t<T>;
    C most[impl::run_lanes];
    for (int l = 0; l < impl::run_lanes; ++l) most[l] = s.max;
    impl::for_lanes(n, [&](std::int64_t j, int l) { most[l] = impl::larger(impl::compute_value(x[j]), most[l]); });
    C max = most[0];
    for (int l = 1; l < impl::run_lanes; ++l) max = impl::larger(most[l], max);
    accumulator_t<T> wide[1][impl::run_lanes] = {};
    const int used = impl::widened_sums<C>(n, wide, [&](std::int64_t j, int l, C (&sums)[1][impl::run_lanes]) {
      sums[0][l] += impl::exp_of(impl::compute_value(x[j]) - max);  // +inf: NaN, as torch
    });
    s.sum = s.sum * (s.max == max ? 1 : impl::exp_of(s.max - max));
    for (int l = 0; l < used; ++l) s.sum += wide[0][l];
    s.max = max;
  }
  /// The larger max stays (NaN wins); the other sum is scaled by exp(its max - that max), or 1 where they are equal
  /// (two infinities).
  template <class T>
  KOKKOS_INLINE_FUNCTION MaxExpSumState<T> operator()(MaxExpSumState<T> a, MaxExpSumState<T> b) const {
    if (b.max > a.max || b.max != b.max) {
      const MaxExpSumState<T> kept = a;
      a = b;
      b = kept;
    }
    const accumulator_t<T> scale = a.max == b.max ? 1 : impl::exp_of(b.max - a.max);
    return {a.max, a.sum + b.sum * scale};
  }
};

/// A slice's count, and the sum and sum of squares of (x - shift), the shift its first element (merged states
/// shift by their mean): mean() and variance() without the cancellation of a plain sum of squares.
template <class T>
struct MomentsState {
  using A = accumulator_t<T>;
  A count, shift, sum, squares;
  KOKKOS_INLINE_FUNCTION A mean() const { return shift + sum / count; }
  /// The population variance (divided by count), at least 0.
  KOKKOS_INLINE_FUNCTION A variance() const {
    const A v = (squares - sum * sum / count) / count;
    return v > A(0) ? v : A(0);
  }
  KOKKOS_INLINE_FUNCTION A mean_square() const { return variance() + mean() * mean(); }
};

/// A slice's mean and variance (layer norm's statistics).
struct Moments {
  template <class T>
  KOKKOS_INLINE_FUNCTION MomentsState<T> identity() const {
    return {0, 0, 0, 0};
  }
  /// The state a slice starts from, given its first element (optional in a statistic: identity() otherwise).
  template <class T, class C>
  KOKKOS_INLINE_FUNCTION MomentsState<T> start(C first) const {
    return {0, accumulator_t<T>(first), 0, 0};
  }
  template <class T, class C>
  KOKKOS_INLINE_FUNCTION void add(MomentsState<T>& s, C x) const {
    using A = accumulator_t<T>;
    const A d = A(x) - s.shift;
    s.count += A(1);
    s.sum += d;
    s.squares += d * d;
  }
  /// n adjacent elements (a host's slice, a device thread's packs) from a state that start() shifted: in compute_t
  /// lanes that vectorize (impl::widened_sums).
  template <class T>
  KOKKOS_INLINE_FUNCTION void add_run(MomentsState<T>& s, const T* x, std::int64_t n) const {
    using A = accumulator_t<T>;
    using C = impl::compute_t<T>;
    const C shift = C(s.shift);  // an element of the slice: exact
    A wide[2][impl::run_lanes] = {};
    const int used = impl::widened_sums<C>(n, wide, [&](std::int64_t j, int l, C (&sums)[2][impl::run_lanes]) {
      const C d = impl::compute_value(x[j]) - shift;
      sums[0][l] += d;
      sums[1][l] += d * d;
    });
    for (int l = 0; l < used; ++l) {
      s.sum += wide[0][l];
      s.squares += wide[1][l];
    }
    s.count += A(n);
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION MomentsState<T> operator()(const MomentsState<T>& a, const MomentsState<T>& b) const {
    using A = accumulator_t<T>;
    if (a.count == A(0)) return b;
    if (b.count == A(0)) return a;
    if (a.shift == b.shift) return {a.count + b.count, a.shift, a.sum + b.sum, a.squares + b.squares};
    const A n = a.count + b.count, delta = b.mean() - a.mean();
    const A spread = a.variance() * a.count + b.variance() * b.count + delta * delta * (a.count * b.count / n);
    return {n, a.mean() + delta * (b.count / n), A(0), spread};
  }
};

/// A slice's count and sum of squares (RMS norm's statistic), each element scaled by the power of two that brings a
/// first element above 2 to [1, 2) (1 for smaller ones): large rows square without overflow, small ones as they are.
template <class T>
struct SquaresState {
  using A = accumulator_t<T>;
  A count, squares;           ///< of x * scale
  impl::compute_t<T> scale;  ///< a power of two, at most 1
  /// 1 / sqrt(mean(x^2) + eps), without overflow where the root mean square is large.
  KOKKOS_INLINE_FUNCTION A inverse_rms(A eps) const {
    const A rms = Kokkos::sqrt(squares / count) / A(scale);
    return rms > A(1) ? A(1) / rms / Kokkos::sqrt(A(1) + eps / (rms * rms)) : A(1) / Kokkos::sqrt(rms * rms + eps);
  }
};

/// A slice's sum of squares (kstream::rms_norm's statistic: one multiply-add an element after the scale).
struct SumOfSquares {
  template <class T>
  KOKKOS_INLINE_FUNCTION SquaresState<T> identity() const {
    return {0, 0, 1};
  }
  /// The scale from the slice's first element: 2^-e for a finite first element of exponent e >= 1, else 1.
  template <class T, class C>
  KOKKOS_INLINE_FUNCTION SquaresState<T> start(C first) const {
    using U = std::conditional_t<sizeof(C) == 4, std::uint32_t, std::uint64_t>;
    constexpr int mantissa = sizeof(C) == 4 ? 23 : 52;
    constexpr U top = sizeof(C) == 4 ? 0xff : 0x7ff, one = top / 2;  // the exponent fields of inf and of 1
    const U e = (Kokkos::bit_cast<U>(first) >> mantissa) & top;
    return {0, 0, e > one && e < top ? Kokkos::bit_cast<C>((e == top - 1 ? U(1) : top - 1 - e) << mantissa) : C(1)};
  }
  template <class T, class C>
  KOKKOS_INLINE_FUNCTION void add(SquaresState<T>& s, C x) const {
    using A = accumulator_t<T>;
    const A d = A(x * s.scale);
    s.count += A(1);
    s.squares += d * d;
  }
  /// n adjacent elements (a host's slice, a device thread's packs): in compute_t lanes (impl::widened_sums).
  template <class T>
  KOKKOS_INLINE_FUNCTION void add_run(SquaresState<T>& s, const T* x, std::int64_t n) const {
    using C = impl::compute_t<T>;
    const C scale = s.scale;
    accumulator_t<T> wide[1][impl::run_lanes] = {};
    const int used = impl::widened_sums<C>(n, wide, [&](std::int64_t j, int l, C (&sums)[1][impl::run_lanes]) {
      const C d = impl::compute_value(x[j]) * scale;
      sums[0][l] += d * d;
    });
    for (int l = 0; l < used; ++l) s.squares += wide[0][l];
    s.count += accumulator_t<T>(n);
  }
  /// Sums at one scale add; else the larger scale's sum is brought to the smaller one's.
  template <class T>
  KOKKOS_INLINE_FUNCTION SquaresState<T> operator()(SquaresState<T> a, SquaresState<T> b) const {
    using A = accumulator_t<T>;
    if (a.scale < b.scale) {
      const SquaresState<T> kept = a;
      a = b;
      b = kept;
    }
    const A ratio = A(b.scale) / A(a.scale);
    return {a.count + b.count, a.scale == b.scale ? a.squares + b.squares : a.squares * ratio * ratio + b.squares,
            b.scale};
  }
};

}  // namespace kstream

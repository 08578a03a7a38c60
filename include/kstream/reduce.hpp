#pragma once
// Reductions on kstream's tiles: a dot product, any transform-reduce, and a fused update-and-reduce.
//
//   auto d = kstream::dot(exec, x, y);              // the value (waits for it); float views accumulate in double
//   kstream::dot(exec, x, y, result);               // into a rank-0 view, asynchronous like Kokkos::parallel_reduce
//   kstream::transform_reduce(exec, result, kstream::Sum{}, op, views...);   // reduces op(views(i)...)
//   kstream::transform_reduce(exec, out, op, result, reduce, reduce_op, views...);
//       // one pass: out(i) = op(views(i)...), and the reduction of reduce_op(out(i), views(i)...)
//       // (a Krylov step: r = r - alpha q and ||r||^2 read r and q once and write r once)
//   kstream::Recorder: r.dot(x, y, result) and r.transform_reduce(...) record the view forms (kstream/record.hpp)
//
// Accumulation: float in double, 16-bit types in float, other types in their own (kstream::accumulator_t<T>); a
// result view of another type gets the accumulated value converted once. Deterministic: the split into tiles
// depends only on n and the device and the partial results combine in a fixed order (no floating-point atomics),
// so the same call gives the same bits on every run. Reducers: kstream::Sum, Max, Min (these two propagate NaN), or
// your own: a copyable type with KOKKOS_INLINE_FUNCTION `template <class A> A identity() const` and an associative
// `A operator()(A, A) const`. Views: rank 1, any layout; contiguous 16-byte-aligned views of one element size are
// read in 16-byte packs. Errors: std::invalid_argument naming the views for an extent mismatch (the fused form
// also checks its output as kstream::transform does); a result that is not a rank-0 view fails to compile.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/checks.hpp>
#include <kstream/impl/reduce_kernel.hpp>
#include <string>
#include <type_traits>

namespace kstream {

/// The type a reduction over T accumulates in: double for float and double, float for half_t and bhalf_t.
template <class T>
using accumulator_t = impl::accumulator_of<std::remove_cv_t<T>>;

/// a + b, from 0.
struct Sum {
  template <class A>
  KOKKOS_INLINE_FUNCTION A identity() const {
    return A(0);
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a, A b) const {
    return a + b;
  }
};
/// The larger, from the lowest value; NaN wins.
struct Max {
  template <class A>
  KOKKOS_INLINE_FUNCTION A identity() const {
    return Kokkos::reduction_identity<A>::max();
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a, A b) const {
    return a != a ? a : b != b ? b : a < b ? b : a;
  }
};
/// The smaller, from the highest value; NaN wins.
struct Min {
  template <class A>
  KOKKOS_INLINE_FUNCTION A identity() const {
    return Kokkos::reduction_identity<A>::min();
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a, A b) const {
    return a != a ? a : b != b ? b : b < a ? b : a;
  }
};

namespace impl {

/// x(i) * y(i) in the accumulator type (a float product is exact in double).
template <class Acc>
struct DotProduct {
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION Acc operator()(X x, Y y) const {
    return to_accumulator<Acc>(x) * to_accumulator<Acc>(y);
  }
};

/// The inputs of a reduction all have the first one's extent.
template <class View, class... Views>
void check_reduce_inputs([[maybe_unused]] const char* op, [[maybe_unused]] Names names, const View& first,
                         const Views&... rest) {
  [[maybe_unused]] std::size_t position = 0;
  (check_extent(op, names, ++position, rest, 0, first), ...);
}

template <class ExecSpace, class Result>
constexpr void static_check_result() {
  static_assert(Kokkos::is_view<Result>::value && Result::rank() == 0, "kstream: the result must be a rank-0 view");
  static_assert(!std::is_const_v<typename Result::value_type>, "kstream: the result view must not be const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Result::memory_space>::accessible,
                "kstream: the result view's memory space is not accessible from the execution space");
}

/// Whether every operand can be read (and written) in 16-byte packs of W elements.
template <int W, class... Operands>
bool packable(const Operands&... ops) {
  auto fits = [](const auto& o) {
    using T = std::remove_cv_t<std::remove_pointer_t<std::remove_cvref_t<decltype(o.data)>>>;
    return sizeof(T) * W == pack_bytes && (o.stride == 1 || o.extent <= 1) &&
           reinterpret_cast<std::uintptr_t>(o.data) % pack_bytes == 0;
  };
  return (fits(ops) && ...);
}

/// Runs the tiles of `step` through `sink` into `result`: a rank-0 view of any type (the accumulated value
/// converted once), or (run now only) an Acc* on the host.
template <class Acc, class Sink, class ExecSpace, class Reducer, class Step, class Result, class... Operands>
void run_reduce(const Sink& sink, const char* label, const ExecSpace& exec, const Reducer& r, const Step& step,
                std::int64_t n, const Result& result, const Operands&... ops) {
  // Packs need one element size for every operand (packable checks it): the last operand's sets the width.
  using Element = std::remove_cv_t<std::remove_pointer_t<std::remove_cvref_t<decltype((ops.data, ...))>>>;
  constexpr int W = elements_per_pack(int(sizeof(Element)));
  const bool packed = W > 1 && packable<W>(ops...);
  reduce_tiles<ExecSpace, Acc, W>(sink, label, exec, r, step, n, packed, result);
}

/// The identity operation (a plain transform-reduce reduces op's value itself).
struct Unused {
  template <class... A>
  KOKKOS_INLINE_FUNCTION int operator()(const A&...) const {
    return 0;
  }
};

template <class V>
concept rank0_view = (Kokkos::is_view<V>::value && V::rank() == 0);
template <class V>
concept rank1_view = (Kokkos::is_view<V>::value && V::rank() == 1);

inline constexpr const char* input_names[] = {"input 0", "input 1", "input 2", "input 3",
                                              "input 4", "input 5", "input 6", "input 7"};

/// transform_reduce's checks and tiles, handed to `sink` (run now, or recorded: kstream/record.hpp).
template <class Sink, class ExecSpace, class Result, class Reducer, class Op, class... Views>
void transform_reduce_to(const Sink& sink, const ExecSpace& exec, const Result& result, const Reducer& reduce,
                         const Op& op, const Views&... views) {
  static_assert(sizeof...(Views) >= 1 && sizeof...(Views) <= 8, "kstream::transform_reduce: give 1 to 8 views");
  static_check_result<ExecSpace, Result>();
  (static_check_view<ExecSpace, Views>(), ...);
  check_reduce_inputs("kstream::transform_reduce", input_names, views...);
  using Value = decltype(op(std::declval<typename Views::value_type>()...));
  using Acc = accumulator_t<Value>;
  const std::int64_t n = std::int64_t((views.extent(0), ...));
  const ReduceStep<Op, Unused, NoOutput, typename Views::non_const_value_type...> step(op, Unused{}, NoOutput{},
                                                                                       input_of(views)...);
  run_reduce<Acc>(sink, "kstream::transform_reduce[tiled]", exec, reduce, step, n, result, input_of(views)...);
}

/// The fused form's checks and tiles.
template <class Sink, class ExecSpace, class OutView, class Op, class Result, class Reducer, class ReduceOp,
          class... Views>
void fused_transform_reduce_to(const Sink& sink, const ExecSpace& exec, const OutView& out, const Op& op,
                               const Result& result, const Reducer& reduce, const ReduceOp& reduce_op,
                               const Views&... views) {
  static_assert(sizeof...(Views) >= 1, "kstream::transform_reduce: give at least one input view");
  static_check_views<ExecSpace, OutView, Views...>();
  static_check_result<ExecSpace, Result>();
  check_arguments("kstream::transform_reduce", nullptr, out, views...);
  using Value =
      decltype(reduce_op(std::declval<typename OutView::value_type>(), std::declval<typename Views::value_type>()...));
  using Acc = accumulator_t<Value>;
  const auto target = operand_of(out);
  const ReduceStep<Op, ReduceOp, decltype(target), typename Views::non_const_value_type...> step(op, reduce_op, target,
                                                                                                 input_of(views)...);
  run_reduce<Acc>(sink, "kstream::transform_reduce[fused]", exec, reduce, step, std::int64_t(out.extent(0)), result,
                  input_of(views)..., target);
}
}  // namespace impl

/// reduce over i of op(views(i)...), into the rank-0 view `result`; asynchronous on exec.
template <class ExecSpace, class Result, class Reducer, class Op, class... Views>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<Result>>)
void transform_reduce(const ExecSpace& exec, const Result& result, const Reducer& reduce, const Op& op,
                      const Views&... views) {
  impl::transform_reduce_to(impl::LaunchNow{}, exec, result, reduce, op, views...);
}

/// One pass: out(i) = op(views(i)...), and reduce over i of reduce_op(out(i), views(i)...) into `result`.
template <class ExecSpace, class OutView, class Op, class Result, class Reducer, class ReduceOp, class... Views>
  requires Kokkos::is_execution_space<ExecSpace>::value && impl::rank1_view<OutView> && impl::rank0_view<Result>
void transform_reduce(const ExecSpace& exec, const OutView& out, const Op& op, const Result& result,
                      const Reducer& reduce, const ReduceOp& reduce_op, const Views&... views) {
  impl::fused_transform_reduce_to(impl::LaunchNow{}, exec, out, op, result, reduce, reduce_op, views...);
}

namespace impl {
/// dot's checks and tiles, into a rank-0 view or (run now, Result = Acc*) a value on the host.
template <class Sink, class ExecSpace, class XView, class YView, class Result>
void dot_to(const Sink& sink, const ExecSpace& exec, const XView& x, const YView& y, const Result& result) {
  static_assert(std::is_same_v<typename XView::non_const_value_type, typename YView::non_const_value_type>,
                "kstream::dot: x and y must hold the same value type");
  if constexpr (!std::is_pointer_v<Result>) static_check_result<ExecSpace, Result>();
  static_check_view<ExecSpace, XView>();
  static_check_view<ExecSpace, YView>();
  static constexpr const char* names[] = {"x", "y"};
  check_reduce_inputs("kstream::dot", names, x, y);
  using T = typename XView::non_const_value_type;
  using Acc = accumulator_t<T>;
  const ReduceStep<DotProduct<Acc>, Unused, NoOutput, T, T> step(DotProduct<Acc>{}, Unused{}, NoOutput{}, input_of(x),
                                                                 input_of(y));
  run_reduce<Acc>(sink, "kstream::dot[tiled]", exec, Sum{}, step, std::int64_t(x.extent(0)), result, input_of(x),
                  input_of(y));
}
}  // namespace impl

/// sum over i of x(i) * y(i) into the rank-0 view `result`, accumulated in accumulator_t; asynchronous on exec.
template <class ExecSpace, class XView, class YView, class Result>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<Result>>)
void dot(const ExecSpace& exec, const XView& x, const YView& y, const Result& result) {
  impl::dot_to(impl::LaunchNow{}, exec, x, y, result);
}

/// sum over i of x(i) * y(i), returned once computed, in accumulator_t (double for float views).
template <class ExecSpace, class XView, class YView>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<XView>>)
accumulator_t<typename XView::value_type> dot(const ExecSpace& exec, const XView& x, const YView& y) {
  accumulator_t<typename XView::value_type> value{};
  impl::dot_to(impl::LaunchNow{}, exec, x, y, &value);
  return value;
}

/// The same on a view's own execution space.
template <class XView, class YView>
  requires(std::conjunction_v<Kokkos::is_view<XView>, Kokkos::is_view<YView>>)
accumulator_t<typename XView::value_type> dot(const XView& x, const YView& y) {
  return dot(typename XView::execution_space(), x, y);
}

}  // namespace kstream

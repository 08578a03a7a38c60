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
//   Along some dimensions only (one dot per column, a sum per row): kstream/along.hpp
//
// Accumulation: float in double, 16-bit types in float, other types in their own (kstream::accumulator_t<T>); a
// result view of another type gets the accumulated value converted once. Deterministic: the split into tiles
// depends only on n and the device and the partial results combine in a fixed order (no floating-point atomics),
// so the same call gives the same bits on every run. Reducers: kstream::Sum, Max, Min (these two propagate NaN),
// ArgMax and ArgMin (the winner's index: kstream/along.hpp), or your own: a copyable type with
// KOKKOS_INLINE_FUNCTION `template <class A> A identity() const` and an associative `A operator()(A, A) const`.
// Views: rank 1 to 8, all of one rank, any layout; the elements are visited in the order of the first view's
// strides (the output's in the fused form), row by row, read in 16-byte packs where
// every view is contiguous along its rows, 16-byte aligned at every row start and of one element size. Errors:
// std::invalid_argument naming the views (and the dimension) for an extent mismatch (the fused form also checks
// its output as kstream::transform does); a result that is not a rank-0 view, or views of different ranks, fail
// to compile.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/checks.hpp>
#include <kstream/impl/reduce_kernel.hpp>
#include <string>
#include <tuple>
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

/// The inputs of a reduction: views that ExecSpace reads, all of the first one's extents (and rank).
template <class ExecSpace, class View, class... Views>
void check_reduce_inputs(const char* op, Names names, const View& first, const Views&... rest) {
  static_check_view<ExecSpace, View>();
  (static_check_view<ExecSpace, Views>(), ...);
  static_check_same_rank<View, Views...>();
  const Operand operands[] = {operand_of(first), operand_of(rest)...};
  const ViewLabel labels[] = {view_label(first), view_label(rest)...};
  check_extents(op, names, labels, operands[0], operands + 1, sizeof...(Views));
}

template <class ExecSpace, class Result>
constexpr void static_check_result() {
  static_assert(Kokkos::is_view<Result>::value && Result::rank() == 0, "kstream: the result must be a rank-0 view");
  static_assert(!std::is_const_v<typename Result::value_type>, "kstream: the result view must not be const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Result::memory_space>::accessible,
                "kstream: the result view's memory space is not accessible from the execution space");
}

/// An operand along the rows of a reduction plan (its stride along the innermost dimension).
template <class T, class View>
Strided<T> strided_along(const ReducePlan& rp, const View& v) {
  return {v.data(), rp.geometry.dims == 0 ? 1 : std::int64_t(v.stride(rp.geometry.axes[0]))};
}

/// Plans the reduction over `views` (the step's operands: inputs, then a fused output; views[orders] orders the
/// dimensions), builds the step with make_step(plan) and runs its tiles through `sink` into `result`.
template <class Acc, class Sink, class ExecSpace, class Reducer, class MakeStep, class Result, class... Views>
void run_reduce(const Sink& sink, const char* label, const ExecSpace& exec, const Reducer& r, const MakeStep& make_step,
                const Result& result, int orders, const Views&... views) {
  const Operand operands[] = {operand_of(views)...};
  constexpr int count = int(sizeof...(Views));
  const Operand* pointers[count];
  for (int k = 0; k < count; ++k) pointers[k] = &operands[k];
  const ReducePlan rp = plan_reduction(operands, count, orders);
  const auto step = make_step(rp);
  static_assert(decltype(step)::operands == count, "every operand of the step is planned");
  // Packs need one element size for every operand (the plan checks it): the first view's sets the width.
  using Element = std::remove_cv_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  reduce_tiles<ExecSpace, Acc, elements_per_pack(int(sizeof(Element)))>(sink, label, exec, r, step, rp, pointers,
                                                                        result);
}

/// How a device reduction over `views` (a step's operands: inputs, then a fused output, if any;
/// views[orders] orders the dimensions) runs on exec: its chunks, launches and rows' reading, as the kernels take
/// them (the benchmark's counters).
template <class ExecSpace, class... Views>
DeviceReduction device_reduction_of(const ExecSpace& exec, int orders, const Views&... views) {
  const Operand operands[] = {operand_of(views)...};
  using Element = std::remove_cv_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  return device_reduction(plan_reduction(operands, int(sizeof...(Views)), orders),
                          elements_per_pack(int(sizeof(Element))), exec.concurrency());
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
concept ranked_view = (Kokkos::is_view<V>::value && V::rank() >= 1);

/// Whether a reducer carries its element's index (ArgMax, ArgMin: kstream/along.hpp).
template <class Reducer>
inline constexpr bool carries_index_v = requires { requires Reducer::carries_index; };

/// An index-carrying reduction over every dimension (kstream/along.hpp, where ArgMax and ArgMin are).
template <class Sink, class ExecSpace, class Result, class Reducer, class Op, class... Views>
void transform_reduce_all_to(const Sink& sink, const ExecSpace& exec, const Result& result, const Reducer& reduce,
                             const Op& op, const Views&... views);

inline constexpr const char* input_names[] = {"input 0", "input 1", "input 2", "input 3",
                                              "input 4", "input 5", "input 6", "input 7"};

/// transform_reduce's checks and tiles, handed to `sink` (run now, or recorded: kstream/record.hpp).
template <class Sink, class ExecSpace, class Result, class Reducer, class Op, class... Views>
void transform_reduce_to(const Sink& sink, const ExecSpace& exec, const Result& result, const Reducer& reduce,
                         const Op& op, const Views&... views) {
  static_assert(sizeof...(Views) >= 1 && sizeof...(Views) <= 8, "kstream::transform_reduce: give 1 to 8 views");
  static_check_result<ExecSpace, Result>();
  if constexpr (carries_index_v<Reducer>) {
    transform_reduce_all_to(sink, exec, result, reduce, op, views...);
  } else {
    check_reduce_inputs<ExecSpace>("kstream::transform_reduce", input_names, views...);
    using Value = decltype(op(std::declval<typename Views::value_type>()...));
    using Acc = accumulator_t<Value>;
    run_reduce<Acc>(
        sink, "kstream::transform_reduce[tiled]", exec, reduce,
        [&](const ReducePlan& rp) {
          return ReduceStep<Op, Unused, NoOutput, typename Views::non_const_value_type...>(
              op, Unused{}, NoOutput{}, strided_along<const typename Views::value_type>(rp, views)...);
        },
        result, 0, views...);
  }
}

/// The fused form's checks and tiles.
template <class Sink, class ExecSpace, class OutView, class Op, class Result, class Reducer, class ReduceOp,
          class... Views>
void fused_transform_reduce_to(const Sink& sink, const ExecSpace& exec, const OutView& out, const Op& op,
                               const Result& result, const Reducer& reduce, const ReduceOp& reduce_op,
                               const Views&... views) {
  static_assert(sizeof...(Views) >= 1 && sizeof...(Views) <= 8, "kstream::transform_reduce: give 1 to 8 input views");
  static_assert(!carries_index_v<Reducer>, "kstream::ArgMax and ArgMin take transform_reduce's plain form");
  static_check_views<ExecSpace, OutView, Views...>();
  static_check_result<ExecSpace, Result>();
  check_arguments("kstream::transform_reduce", nullptr, out, views...);
  using Value =
      decltype(reduce_op(std::declval<typename OutView::value_type>(), std::declval<typename Views::value_type>()...));
  using Acc = accumulator_t<Value>;
  // The output orders the dimensions (as for kstream::transform); it is the step's last operand.
  run_reduce<Acc>(
      sink, "kstream::transform_reduce[fused]", exec, reduce,
      [&](const ReducePlan& rp) {
        return ReduceStep<Op, ReduceOp, Strided<typename OutView::value_type>, typename Views::non_const_value_type...>(
            op, reduce_op, strided_along<typename OutView::value_type>(rp, out),
            strided_along<const typename Views::value_type>(rp, views)...);
      },
      result, int(sizeof...(Views)), views..., out);
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
  requires Kokkos::is_execution_space<ExecSpace>::value && impl::ranked_view<OutView> && impl::rank0_view<Result>
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
  static constexpr const char* names[] = {"x", "y"};
  check_reduce_inputs<ExecSpace>("kstream::dot", names, x, y);
  using T = typename XView::non_const_value_type;
  using Acc = accumulator_t<T>;
  run_reduce<Acc>(
      sink, "kstream::dot[tiled]", exec, Sum{},
      [&](const ReducePlan& rp) {
        return ReduceStep<DotProduct<Acc>, Unused, NoOutput, T, T>(
            DotProduct<Acc>{}, Unused{}, NoOutput{}, strided_along<const T>(rp, x), strided_along<const T>(rp, y));
      },
      result, 0, x, y);
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

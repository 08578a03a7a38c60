#pragma once
// Reductions along dimensions: the reductions of kstream/reduce.hpp over a run-time set of dimensions, into a result
// that keeps the others.
//
//   kstream::dot(exec, kstream::along{0}, X, Y, dots);        // X, Y: n x k; dots: k (one dot per column)
//   kstream::nrm2(exec, kstream::along{0}, X, norms);         // each column's 2-norm
//   kstream::transform_reduce(exec, kstream::along{1}, rowsum, kstream::Sum{}, op, x);   // x rank 2 -> rank 1
//   kstream::transform_reduce(exec, kstream::along{0, 2}, out, op, result, reduce, reduce_op, views...);  // fused
//   kstream::Recorder: r.dot(along, ...), r.nrm2(along, ...), r.transform_reduce(along, ...)
//
// The result holds the kept dimensions in their order (rank 0 when every dimension is reduced), or has the views'
// rank with extent 1 on the reduced ones (keep-dims); any layout, as the views. Accumulation, reducers and
// determinism as kstream/reduce.hpp: no atomics, partial results combined in a fixed order, the same bits on every
// run for the same extents, layouts, dimensions and device. An empty reduced dimension gives the reducer's identity.
// Errors: std::invalid_argument naming a dimension out of range or repeated, a result of the wrong rank, the
// dimension whose extent does not match, a result whose elements are not distinct or that shares memory with an
// input. How it runs: kstream/impl/reduce_plan.hpp, docs/engine.md.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <kstream/impl/reduce_along.hpp>
#include <kstream/reduce.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace kstream {

/// The dimensions a reduction reduces, a run-time set: kstream::along{1} (each row of a rank-2 view),
/// kstream::along{0, 2}. Each dimension once, at least one.
class along {
 public:
  /// No dimension (an error where a call takes it). Declared so that `along{}` is this one with every compiler:
  /// nvcc 13 otherwise took it for the list {0}.
  along() = default;
  along(std::initializer_list<int> dims) { assign(dims); }
  /// From a run-time list: a std::vector<int>, a std::array, ...
  template <class Range>
    requires requires(const Range& r) { static_cast<int>(*std::begin(r)); std::size(r); }
  explicit along(const Range& dims) {
    assign(dims);
  }
  const impl::ReducedDims& dims() const { return set_; }

 private:
  template <class Range>
  void assign(const Range& dims) {
    if (std::size(dims) > std::size_t(impl::max_rank))
      throw std::invalid_argument("kstream::along: at most " + std::to_string(impl::max_rank) + " dimensions");
    for (const auto d : dims) set_.dims[set_.count++] = int(d);
  }
  impl::ReducedDims set_;
};

namespace impl {
/// An index-carrying reducer: a or b, whichever holds the larger (Largest) or smaller value, the lower index on
/// ties; NaN wins; the identity (index -1) loses to every element.
template <bool Largest>
struct FirstBest {
  static constexpr bool carries_index = true;
  template <class A>
  KOKKOS_INLINE_FUNCTION A identity() const {
    return {typename A::value_type{}, -1};
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a, A b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    const bool a_wins = a_nan || b_nan ? a_nan && !b_nan : Largest ? b.value < a.value : a.value < b.value;
    const bool b_wins = a_nan || b_nan ? b_nan && !a_nan : Largest ? a.value < b.value : b.value < a.value;
    return a_wins ? a : b_wins ? b : b.index < a.index ? b : a;
  }
};
}  // namespace impl

/// Index-carrying reducers: the index of the element with the largest (ArgMax) or smallest (ArgMin) value, the
/// first on ties; NaN wins (the first NaN). The index counts the reduced dimensions in row-major order (the last
/// reduced dimension fastest): a rank-1 view's own index, a row's column. transform_reduce's plain form, along
/// dimensions or over every dimension (a rank-0 result), into a result of integers; at least one element to reduce.
/// As KokkosBlas::iamax: kstream::transform_reduce(exec, at, kstream::ArgMax{}, Abs{}, x).
using ArgMax = impl::FirstBest<true>;
using ArgMin = impl::FirstBest<false>;

namespace impl {

/// x * x in the accumulator type.
template <class Acc>
struct SquareOf {
  template <class X>
  KOKKOS_INLINE_FUNCTION Acc operator()(X x) const {
    return to_accumulator<Acc>(x) * to_accumulator<Acc>(x);
  }
};
/// The square root of an output's sum of squares (nrm2).
struct SquareRoot {
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a) const {
    return Kokkos::sqrt(a);
  }
};

/// A result view as an operand, rank 0 included.
template <class View>
Operand result_operand_of(const View& v) {
  if constexpr (View::rank() == 0) {
    Operand o;
    o.address = reinterpret_cast<std::uintptr_t>(v.data());
    o.element_bytes = int(sizeof(typename View::value_type));
    o.rank = 0;
    return o;
  } else {
    return operand_of(v);
  }
}

/// An operand of a reduction along dimensions with its stride along the plan's step dimension.
template <class T, class View>
Strided<T> strided_at(const AlongPlan& p, const View& v) {
  return {v.data(), p.geometry.dims == 0 ? 1 : std::int64_t(v.stride(p.geometry.axes[p.step_dim]))};
}

/// The logical index of an index-carrying reduction as an operand of the input's shape: row-major strides over the
/// reduced dimensions, 0 over the kept ones (normalized with the inputs, it is walked as they are).
inline Operand logical_index_operand(const Operand& input, const ReducedDims& dims) {
  Operand index = input;
  index.address = 0;
  index.element_bytes = int(sizeof(std::int64_t));
  std::int64_t stride = 1;
  for (int d = input.rank - 1; d >= 0; --d) {
    index.strides[d] = dims.has(d) ? stride : 0;
    if (dims.has(d)) stride *= input.extents[d];
  }
  return index;
}

/// An index-carrying reduction's result: integers that hold every index; at least one element for each output.
template <class R>
void check_indexed_result(const char* op, const AlongPlan& p) {
  static_assert(std::is_integral_v<R>, "kstream::ArgMax and ArgMin: the result holds integers (the indices)");
  if (p.outputs > 0 && p.length == 0)
    throw std::invalid_argument(std::string(op) +
                                ": ArgMax and ArgMin need at least one element to reduce (a reduced dimension "
                                "has extent 0)");
  if (p.length > 0 && std::uint64_t(p.length - 1) > std::uint64_t(std::numeric_limits<R>::max()))
    throw std::invalid_argument(std::string(op) + ": the result's integers hold indices up to " +
                                std::to_string(std::numeric_limits<R>::max()) + ", the reduction has " +
                                std::to_string(p.length) + " elements for each output");
}

/// Which kernel a reduction along dimensions runs: the space's own, or (tests) the device kernel on a host backend
/// with small teams (a power of two up to the space's concurrency, at most 4).
enum class AlongKernel { natural, device };

/// Checks `result` against the step's operands `views` (inputs, then a fused output; `names` in that order, their
/// extents checked before), plans the reduction along `dims`, builds the step with make_step(plan) and runs it.
template <class Acc, AlongKernel Kernel, class Sink, class ExecSpace, class Reducer, class Finish, class MakeStep,
          class Result, class... Views>
void run_along(const Sink& sink, const char* op, const char* label, const ExecSpace& exec, const along& dims,
               const Reducer& r, const Finish& finish, const MakeStep& make_step, Names names, const Result& result,
               const Views&... views) {
  static_assert(Kokkos::is_view<Result>::value, "kstream: the result must be a Kokkos::View");
  static_assert(!std::is_const_v<typename Result::value_type>, "kstream: the result view must not be const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Result::memory_space>::accessible,
                "kstream: the result view's memory space is not accessible from the execution space");
  constexpr int count = int(sizeof...(Views));
  const Operand operands[count] = {operand_of(views)...};
  const char* all_names[count + 1] = {"result"};
  for (int k = 0; k < count; ++k) all_names[k + 1] = names[k];
  const ViewLabel labels[count + 1] = {view_label(result), view_label(views)...};
  const Operand widened =
      widened_result(op, all_names, labels, result_operand_of(result), dims.dims(), operands, count);
  constexpr bool device = is_device_execution_space_v<ExecSpace>, device_kernel = device || Kernel == AlongKernel::device;
  AlongFacts facts{device_kernel, std::int64_t(exec.concurrency())};
  if constexpr (!device && device_kernel) {
    facts.team_size = 1;  // small teams, as many as an H200 holds (its slices, several outputs a thread)
    while (facts.team_size * 2 <= std::min(exec.concurrency(), 4)) facts.team_size *= 2;
    facts.resident_threads = std::int64_t(132 * 2048 / along_team_size) * facts.team_size;
  }
  // An index-carrying reducer's logical index: planned after the inputs (they order the walk), the step's first.
  constexpr int indexed = carries_index_v<Reducer> ? 1 : 0, planned = count + indexed;
  Operand plan_operands[planned];
  for (int k = 0; k < count; ++k) plan_operands[k] = operands[k];
  if constexpr (indexed == 1) plan_operands[count] = logical_index_operand(operands[0], dims.dims());
  const AlongPlan p = plan_along(facts, dims.dims(), widened, plan_operands, planned, label);
  if constexpr (indexed == 1) check_indexed_result<typename Result::value_type>(op, p);
  const auto step = make_step(p, plan_operands[planned - 1]);
  static_assert(decltype(step)::operands == planned, "every operand of the step is planned");
  const Operand* pointers[planned + 1];
  for (int k = 0; k < count; ++k) pointers[k + indexed] = &operands[k];
  if constexpr (indexed == 1) pointers[0] = &plan_operands[count];
  pointers[planned] = &widened;
  reduce_along<ExecSpace, Acc, device_kernel>(sink, label, exec, r, finish, step, p, pointers, result.data());
}

/// transform_reduce along dimensions: checks and kernels, handed to `sink`.
template <AlongKernel Kernel = AlongKernel::natural, class Sink, class ExecSpace, class Result, class Reducer, class Op,
          class... Views>
void transform_reduce_along_to(const Sink& sink, const ExecSpace& exec, const along& dims, const Result& result,
                               const Reducer& reduce, const Op& op, const Views&... views) {
  static_assert(sizeof...(Views) >= 1 && sizeof...(Views) <= 8, "kstream::transform_reduce: give 1 to 8 views");
  check_reduce_inputs<ExecSpace>("kstream::transform_reduce", input_names, views...);
  using Value = decltype(op(std::declval<typename Views::value_type>()...));
  if constexpr (carries_index_v<Reducer>) {
    using Acc = ValueIndex<accumulator_t<Value>>;
    run_along<Acc, Kernel>(
        sink, "kstream::transform_reduce", "kstream::transform_reduce[along, index]", exec, dims, reduce, KeepValue{},
        [&](const AlongPlan& p, const Operand& index) {
          const std::int64_t stride = p.geometry.dims == 0 ? 1 : index.strides[p.geometry.axes[p.step_dim]];
          return ReduceStep<IndexedOp<Op, Acc>, Unused, NoOutput, Index, typename Views::non_const_value_type...>(
              IndexedOp<Op, Acc>{op}, Unused{}, NoOutput{}, Strided<const Index>{IndexCursor{0}, stride},
              strided_at<const typename Views::value_type>(p, views)...);
        },
        input_names, result, views...);
  } else {
    using Acc = accumulator_t<Value>;
    run_along<Acc, Kernel>(
        sink, "kstream::transform_reduce", "kstream::transform_reduce[along]", exec, dims, reduce, KeepValue{},
        [&](const AlongPlan& p, const Operand&) {
          return ReduceStep<Op, Unused, NoOutput, typename Views::non_const_value_type...>(
              op, Unused{}, NoOutput{}, strided_at<const typename Views::value_type>(p, views)...);
        },
        input_names, result, views...);
  }
}

/// The fused form along dimensions: out(i) = op(views(i)...), reduce_op(out(i), views(i)...) reduced.
template <AlongKernel Kernel = AlongKernel::natural, class Sink, class ExecSpace, class OutView, class Op, class Result,
          class Reducer, class ReduceOp, class... Views>
void fused_transform_reduce_along_to(const Sink& sink, const ExecSpace& exec, const along& dims, const OutView& out,
                                     const Op& op, const Result& result, const Reducer& reduce,
                                     const ReduceOp& reduce_op, const Views&... views) {
  static_assert(sizeof...(Views) >= 1 && sizeof...(Views) <= 8, "kstream::transform_reduce: give 1 to 8 input views");
  static_assert(!carries_index_v<Reducer>, "kstream::ArgMax and ArgMin take transform_reduce's plain form");
  static_check_views<ExecSpace, OutView, Views...>();
  check_arguments("kstream::transform_reduce", nullptr, out, views...);
  using Value =
      decltype(reduce_op(std::declval<typename OutView::value_type>(), std::declval<typename Views::value_type>()...));
  using Acc = accumulator_t<Value>;
  const char* step_names[sizeof...(Views) + 1];
  for (std::size_t k = 0; k < sizeof...(Views); ++k) step_names[k] = input_names[k];
  step_names[sizeof...(Views)] = "out";
  run_along<Acc, Kernel>(
      sink, "kstream::transform_reduce", "kstream::transform_reduce[fused along]", exec, dims, reduce, KeepValue{},
      [&](const AlongPlan& p, const Operand&) {
        return ReduceStep<Op, ReduceOp, Strided<typename OutView::value_type>, typename Views::non_const_value_type...>(
            op, reduce_op, strided_at<typename OutView::value_type>(p, out),
            strided_at<const typename Views::value_type>(p, views)...);
      },
      step_names, result, views..., out);
}

/// dot along dimensions.
template <class Sink, class ExecSpace, class XView, class YView, class Result>
void dot_along_to(const Sink& sink, const ExecSpace& exec, const along& dims, const XView& x, const YView& y,
                  const Result& result) {
  static_assert(std::is_same_v<typename XView::non_const_value_type, typename YView::non_const_value_type>,
                "kstream::dot: x and y must hold the same value type");
  static constexpr const char* names[] = {"x", "y"};
  check_reduce_inputs<ExecSpace>("kstream::dot", names, x, y);
  using T = typename XView::non_const_value_type;
  using Acc = accumulator_t<T>;
  run_along<Acc, AlongKernel::natural>(
      sink, "kstream::dot", "kstream::dot[along]", exec, dims, Sum{}, KeepValue{},
      [&](const AlongPlan& p, const Operand&) {
        return ReduceStep<DotProduct<Acc>, Unused, NoOutput, T, T>(DotProduct<Acc>{}, Unused{}, NoOutput{},
                                                                   strided_at<const T>(p, x), strided_at<const T>(p, y));
      },
      names, result, x, y);
}

/// nrm2 along dimensions.
template <class Sink, class ExecSpace, class XView, class Result>
void nrm2_along_to(const Sink& sink, const ExecSpace& exec, const along& dims, const XView& x, const Result& result) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_floating_point_v<T> || is_low_precision_v<T>,
                "kstream::nrm2: the value type must be floating point");
  static_check_view<ExecSpace, XView>();
  static constexpr const char* names[] = {"x"};
  using Acc = accumulator_t<T>;
  run_along<Acc, AlongKernel::natural>(
      sink, "kstream::nrm2", "kstream::nrm2[along]", exec, dims, Sum{}, SquareRoot{},
      [&](const AlongPlan& p, const Operand&) {
        return ReduceStep<SquareOf<Acc>, Unused, NoOutput, T>(SquareOf<Acc>{}, Unused{}, NoOutput{},
                                                             strided_at<const T>(p, x));
      },
      names, result, x);
}

/// An index-carrying reduction (ArgMax, ArgMin) over every dimension, into a rank-0 result: along all of them.
template <class Sink, class ExecSpace, class Result, class Reducer, class Op, class... Views>
void transform_reduce_all_to(const Sink& sink, const ExecSpace& exec, const Result& result, const Reducer& reduce,
                             const Op& op, const Views&... views) {
  std::array<int, std::tuple_element_t<0, std::tuple<Views...>>::rank()> all{};
  for (int d = 0; d < int(all.size()); ++d) all[std::size_t(d)] = d;
  transform_reduce_along_to(sink, exec, along(all), result, reduce, op, views...);
}
}  // namespace impl

/// reduce over the dimensions `dims` of op(views(i)...), into `result`: the kept dimensions in order (rank 0 when
/// every dimension is reduced), or the views' rank with extent 1 on the reduced ones (keep-dims). Asynchronous.
template <class ExecSpace, class Result, class Reducer, class Op, class... Views>
  requires(Kokkos::is_execution_space<ExecSpace>::value && Kokkos::is_view<Result>::value &&
           !Kokkos::is_view<Op>::value)
void transform_reduce(const ExecSpace& exec, const along& dims, const Result& result, const Reducer& reduce,
                      const Op& op, const Views&... views) {
  impl::transform_reduce_along_to(impl::LaunchNow{}, exec, dims, result, reduce, op, views...);
}

/// One pass: out(i) = op(views(i)...), and reduce_op(out(i), views(i)...) reduced over `dims` into `result`.
template <class ExecSpace, class OutView, class Op, class Result, class Reducer, class ReduceOp, class... Views>
  requires(Kokkos::is_execution_space<ExecSpace>::value && impl::ranked_view<OutView> &&
           Kokkos::is_view<Result>::value)
void transform_reduce(const ExecSpace& exec, const along& dims, const OutView& out, const Op& op, const Result& result,
                      const Reducer& reduce, const ReduceOp& reduce_op, const Views&... views) {
  impl::fused_transform_reduce_along_to(impl::LaunchNow{}, exec, dims, out, op, result, reduce, reduce_op, views...);
}

/// x . y over the dimensions `dims` (one dot per column of a multivector: along{0}), into `result`.
template <class ExecSpace, class XView, class YView, class Result>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void dot(const ExecSpace& exec, const along& dims, const XView& x, const YView& y, const Result& result) {
  impl::dot_along_to(impl::LaunchNow{}, exec, dims, x, y, result);
}

/// The 2-norm over the dimensions `dims` (each column's: along{0}): the square root of the sum of squares,
/// accumulated in accumulator_t, into `result`.
template <class ExecSpace, class XView, class Result>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void nrm2(const ExecSpace& exec, const along& dims, const XView& x, const Result& result) {
  impl::nrm2_along_to(impl::LaunchNow{}, exec, dims, x, result);
}

}  // namespace kstream

#pragma once
// Row operations: statistics of each slice along some dimensions, then every element of the slice transformed with
// them, reading each slice from memory once where it fits on chip (the seed's SRAM lesson: docs/sram-vs-hbm.md).
//
//   kstream::softmax(exec, kstream::along{1}, x, out);                    // each row of x: exp(x - max) / sum
//   kstream::log_softmax(exec, kstream::along{1}, x, out);                // x - max - log(sum)
//   kstream::rms_norm(exec, kstream::along{1}, x, weight, eps, out);      // x / sqrt(mean(x^2) + eps) * weight
//   kstream::layer_norm(exec, kstream::along{1}, x, weight, bias, eps, out);  // (x - mean) / sqrt(var + eps) * w + b
//   kstream::transform_rows(exec, dims, out, stat, op, x, parameters...);    // the general form
//   kstream::Recorder: r.softmax(dims, x, out), r.log_softmax, r.rms_norm, r.layer_norm, r.transform_rows
//
// x and out: rank 1 to 8, the same extents, any layouts; out may be x. The reduced dimensions (kstream::along), any
// one or more, make a slice; weight and bias have the reduced dimensions' extents, in order (a rank-1 view of a
// row's length for along{1}). Types: float, double, half_t, bhalf_t; 16-bit types are computed in float and
// rounded once, float in float (statistics in double), double in double.
//
// The general form: `stat` folds a slice's elements into a state (kstream::MaxExpSum: the running max and the sum
// of exp(x - max), online softmax; kstream::Moments: count, and the sums of (x - the slice's first element) and of
// its square, merged as Chan et al. where the shifts differ; kstream::SumOfSquares: count and the sum of squares),
// then out = op(x, row, parameters...) for each element, where row = op.row(state) if op has it (constants computed
// once a slice), else the state. x and the parameters come to op as compute_t (float or double).
//
// Accuracy: softmax subtracts the slice's max; a slice of all -inf gives NaN, as torch.softmax does; NaN propagates.
// Errors: std::invalid_argument naming a dimension out of range or repeated, out's extents, a parameter's rank or
// extent, a parameter that may share memory with out, eps < 0; out partly overlapping x. How it runs:
// kstream/impl/row_kernel.hpp, docs/engine.md.
#include <Kokkos_Core.hpp>
#include <kstream/along.hpp>
#include <kstream/impl/row_kernel.hpp>
#include <kstream/row_statistics.hpp>
#include <string>
#include <type_traits>

namespace kstream {
namespace impl {

/// exp(x - max) / sum.
struct SoftmaxOp {
  template <class T>
  KOKKOS_INLINE_FUNCTION auto row(const MaxExpSumState<T>& s) const {
    using C = compute_t<T>;
    return Kokkos::pair<C, C>{s.max, C(1 / s.sum)};
  }
  template <class C>
  KOKKOS_FORCEINLINE_FUNCTION C operator()(C x, const Kokkos::pair<C, C>& row) const {
    return exp_of(x - row.first) * row.second;
  }
};
/// x - max - log(sum).
struct LogSoftmaxOp {
  template <class T>
  KOKKOS_INLINE_FUNCTION compute_t<T> row(const MaxExpSumState<T>& s) const {
    return compute_t<T>(s.max + Kokkos::log(s.sum));
  }
  template <class C>
  KOKKOS_FORCEINLINE_FUNCTION C operator()(C x, C row) const {
    return x - row;
  }
};
/// x / sqrt(mean(x^2) + eps) * weight.
template <class A>
struct RmsNormOp {
  A eps;
  template <class T>
  KOKKOS_INLINE_FUNCTION compute_t<T> row(const SquaresState<T>& s) const {
    return compute_t<T>(s.inverse_rms(A(eps)));
  }
  template <class C>
  KOKKOS_FORCEINLINE_FUNCTION C operator()(C x, C row, C w) const {
    return x * row * w;
  }
};
/// (x - mean) / sqrt(variance + eps) * weight + bias, in compute_t: x - mean as ((x - shift) - offset) - low, the
/// shift a slice's element (x - shift exact where they are within a factor 2) and offset + low the mean - shift in
/// two parts, so that neither a large mean nor x near the mean cost the result its digits.
template <class C>
struct LayerNormRow {
  C shift, offset, low, scale;
};
template <class A>
struct LayerNormOp {
  A eps;
  template <class T>
  KOKKOS_INLINE_FUNCTION LayerNormRow<compute_t<T>> row(const MomentsState<T>& s) const {
    using C = compute_t<T>;
    const C shift = C(s.shift);
    const A offset = s.mean() - A(shift);
    return {shift, C(offset), C(offset - A(C(offset))), C(A(1) / Kokkos::sqrt(A(s.variance()) + eps))};
  }
  template <class C>
  KOKKOS_FORCEINLINE_FUNCTION C operator()(C x, const LayerNormRow<C>& row, C w, C b) const {
    return (((x - row.shift) - row.offset) - row.low) * row.scale * w + b;
  }
};

/// Which kernel a row operation runs: the space's own, or (tests) the device kernel on a host backend with small
/// teams and `scratch` bytes of team scratch.
struct RowKernelChoice {
  bool device = false;
  std::int64_t scratch = 0;
};

/// The general form's checks and kernel, handed to `sink`.
template <class Sink, class ExecSpace, class OutView, class Stat, class Op, class XView, class... Params>
void transform_rows_to(const Sink& sink, const char* op_name, const ExecSpace& exec, RowKernelChoice choice,
                       const along& dims, const OutView& out, const Stat& stat, const Op& op, const XView& x,
                       const Params&... params) {
  static_check_views<ExecSpace, OutView, XView>();
  (static_check_view<ExecSpace, Params>(), ...);
  using T = typename XView::non_const_value_type;
  static_assert(std::is_floating_point_v<T> || is_low_precision_v<T>,
                "kstream: a row operation's x must hold floating-point values");
  static constexpr const char* names[] = {"out", "x"};
  const CallOperands<1> checked = check_arguments(op_name, names, out, x);
  check_reduced_dims(op_name, dims.dims(), int(XView::rank()));
  [[maybe_unused]] static constexpr const char* parameter_names[] = {"weight", "bias", "parameter 2", "parameter 3"};
  static_assert(sizeof...(Params) <= 4, "kstream::transform_rows: at most 4 parameter views");
  [[maybe_unused]] int k = 0;
  const Operand operands[2 + sizeof...(Params)] = {
      checked.ins[0], checked.out,
      widened_parameter(op_name, parameter_names[k++], view_label(params), operand_of(params), dims.dims(),
                        checked.ins[0], checked.out)...};
  constexpr bool device = is_device_execution_space_v<ExecSpace>;
  RowFacts facts;
  facts.device = device || choice.device;
  if constexpr (device) {
    facts.warp = Kokkos::TeamPolicy<ExecSpace>::vector_length_max();
    facts.scratch_bytes = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
#ifdef KOKKOS_ENABLE_CUDA
    facts.async_copies = std::is_same_v<ExecSpace, Kokkos::Cuda>;
#endif
  } else {
    facts.threads = exec.concurrency();
    facts.warp = 1;
    facts.team_max = 1;
    while (facts.team_max * 2 <= std::min(exec.concurrency(), 4)) facts.team_max *= 2;
    facts.scratch_bytes = choice.scratch;
  }
  using Team = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using O = typename OutView::value_type;
  using Kernel = RowKernel<Team, T, O, Stat, Op, RowPath::any, typename Params::non_const_value_type...>;
  const char* label = op_name;
  const RowPlan p = plan_rows(facts, dims.dims(), operands, 2 + int(sizeof...(Params)), int(sizeof(T)),
                              int(sizeof(typename Kernel::State)), label);
  if (p.league == 0) return;
  const Operand* pointers[Kernel::K];
  for (int j = 0; j < Kernel::K; ++j) pointers[j] = &operands[j];
  const Kernel kernel(stat, op, p, pointers, x.data(), out.data(), params.data()...);
  if constexpr (!device) {  // a device space launches no host loop (one kernel fewer to compile)
    if (!facts.device) {
      sink(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, p.league), kernel);
      return;
    }
  }
  Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<row_team_max, 1>> policy(exec, int(p.league), p.team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(std::size_t(p.scratch_bytes)));
  const auto path = [&](auto kind) {  // a kernel of its own (registers)
    using Path = RowKernel<Team, T, O, Stat, Op, decltype(kind)::value, typename Params::non_const_value_type...>;
    sink(label, policy, Path(stat, op, p, pointers, x.data(), out.data(), params.data()...));
  };
  if (p.held > 0 && !p.on_chip) return path(std::integral_constant<RowPath, RowPath::partial>{});  // part in scratch
  if (p.turned) return path(std::integral_constant<RowPath, RowPath::turned>{});
  sink(label, policy, kernel);
}

template <class A>
void check_eps(const char* op, A eps) {
  if (!(eps >= A(0))) throw std::invalid_argument(std::string(op) + ": eps is " + std::to_string(eps) + ", below 0");
}

template <class Sink, class ExecSpace, class XView, class OutView>
void softmax_to(const Sink& sink, const ExecSpace& exec, RowKernelChoice choice, const along& dims, const XView& x,
                const OutView& out) {
  transform_rows_to(sink, "kstream::softmax", exec, choice, dims, out, MaxExpSum{}, SoftmaxOp{}, x);
}
template <class Sink, class ExecSpace, class XView, class OutView>
void log_softmax_to(const Sink& sink, const ExecSpace& exec, RowKernelChoice choice, const along& dims,
                    const XView& x, const OutView& out) {
  transform_rows_to(sink, "kstream::log_softmax", exec, choice, dims, out, MaxExpSum{}, LogSoftmaxOp{}, x);
}
template <class Sink, class ExecSpace, class XView, class WView, class OutView, class A>
void rms_norm_to(const Sink& sink, const ExecSpace& exec, RowKernelChoice choice, const along& dims, const XView& x,
                 const WView& weight, A eps, const OutView& out) {
  check_eps("kstream::rms_norm", eps);
  transform_rows_to(sink, "kstream::rms_norm", exec, choice, dims, out, SumOfSquares{}, RmsNormOp<A>{eps}, x,
                    weight);
}
template <class Sink, class ExecSpace, class XView, class WView, class BView, class OutView, class A>
void layer_norm_to(const Sink& sink, const ExecSpace& exec, RowKernelChoice choice, const along& dims,
                   const XView& x, const WView& weight, const BView& bias, A eps, const OutView& out) {
  check_eps("kstream::layer_norm", eps);
  transform_rows_to(sink, "kstream::layer_norm", exec, choice, dims, out, Moments{}, LayerNormOp<A>{eps}, x, weight,
                    bias);
}

}  // namespace impl

/// The general form: for each slice along `dims`, the state of `stat` over x's elements, then
/// out = op(x, row, parameters...) (see the top of this file). Asynchronous, as every call here.
template <class ExecSpace, class OutView, class Stat, class Op, class XView, class... Params>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void transform_rows(const ExecSpace& exec, const along& dims, const OutView& out, const Stat& stat, const Op& op,
                    const XView& x, const Params&... params) {
  impl::transform_rows_to(impl::LaunchNow{}, "kstream::transform_rows", exec, {}, dims, out, stat, op, x, params...);
}

/// out = exp(x - max) / sum(exp(x - max)) over each slice along `dims`.
template <class ExecSpace, class XView, class OutView>
void softmax(const ExecSpace& exec, const along& dims, const XView& x, const OutView& out) {
  impl::softmax_to(impl::LaunchNow{}, exec, {}, dims, x, out);
}

/// out = x - max - log(sum(exp(x - max))) over each slice along `dims`.
template <class ExecSpace, class XView, class OutView>
void log_softmax(const ExecSpace& exec, const along& dims, const XView& x, const OutView& out) {
  impl::log_softmax_to(impl::LaunchNow{}, exec, {}, dims, x, out);
}

/// out = x / sqrt(mean(x^2) + eps) * weight over each slice along `dims`; eps >= 0.
template <class ExecSpace, class XView, class WView, class OutView>
void rms_norm(const ExecSpace& exec, const along& dims, const XView& x, const WView& weight,
              accumulator_t<typename XView::value_type> eps, const OutView& out) {
  impl::rms_norm_to(impl::LaunchNow{}, exec, {}, dims, x, weight, eps, out);
}

/// out = (x - mean) / sqrt(variance + eps) * weight + bias over each slice along `dims` (the population variance,
/// as torch.nn.functional.layer_norm); eps >= 0.
template <class ExecSpace, class XView, class WView, class BView, class OutView>
void layer_norm(const ExecSpace& exec, const along& dims, const XView& x, const WView& weight, const BView& bias,
                accumulator_t<typename XView::value_type> eps, const OutView& out) {
  impl::layer_norm_to(impl::LaunchNow{}, exec, {}, dims, x, weight, bias, eps, out);
}

}  // namespace kstream

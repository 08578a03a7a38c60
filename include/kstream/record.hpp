#pragma once
// kstream::record: record a sequence of kstream calls once, replay it many times as one Kokkos Graph.
//
//   auto chain = kstream::record(exec, [&](kstream::Recorder<Exec>& r) {
//     r.add(x, y, t);              // t = x + y
//     r.fma(t, a, b, out);         // out = t * a + b
//     r.transform(out2, op, t, out);
//     r.dot(out, out2, result);    // result() = out . out2 (a rank-0 view; kstream/reduce.hpp)
//   });
//   for (int step = 0; step < steps; ++step) chain.submit();   // or chain.submit(exec)
//
// Small vectors are launch-bound: every eager call pays a kernel launch of several microseconds. A recording is
// one Kokkos Graph (a CUDA graph on the Cuda backend), submitted with one launch for the whole sequence.
//
// Semantics:
// - Operations run in the order they were recorded; each one starts after the previous one has finished.
// - Same engine, tile shapes, labels and checks as the eager calls: every argument is checked when recorded, with
//   the same std::invalid_argument messages; a replay checks and allocates nothing.
// - The recording holds (reference-counted copies of) its views, so they outlive the recording's body; a replay
//   reads their *current* contents: change the inputs between submits and the next replay sees the new values.
// - A replay is asynchronous like an eager call: fence (or deep_copy) before reading results on the host.
// - The graph is built on the execution space's default instance; submit(exec) replays it on `exec`.
// - Kokkos::Experimental::Graph is experimental in Kokkos; kstream uses only what Kokkos 4.5, 4.6 and 5.2 share.
#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>
#include <any>
#include <kstream/add.hpp>
#include <kstream/along.hpp>
#include <kstream/copy.hpp>
#include <kstream/fma.hpp>
#include <kstream/reduce.hpp>
#include <kstream/rows.hpp>
#include <kstream/transform.hpp>
#include <string>
#include <utility>
#include <vector>

namespace kstream {

template <class ExecSpace>
class Recording;

/// What the body of kstream::record is given: the eager calls' signatures without the execution space.
template <class ExecSpace>
class Recorder {
 public:
  template <class XView, class YView, class OutView>
  void add(const XView& x, const YView& y, const OutView& out,
           const TileShape& shape = default_tile_shape<ExecSpace>()) {
    impl::add_to(sink(), ExecSpace(), x, y, out, shape);
    hold(x, y, out);
  }

  template <class AView, class BView, class CView, class OutView>
  void fma(const AView& a, const BView& b, const CView& c, const OutView& out,
           const TileShape& shape = default_tile_shape<ExecSpace>()) {
    impl::fma_to(sink(), ExecSpace(), a, b, c, out, shape);
    hold(a, b, c, out);
  }

  template <class OutView, class Op, class... InViews>
    requires(Kokkos::is_view<OutView>::value)
  void transform(const OutView& out, const Op& op, const InViews&... ins) {
    transform(default_tile_shape<ExecSpace>(), out, op, ins...);
  }

  template <class OutView, class Op, class... InViews>
  void transform(const TileShape& shape, const OutView& out, const Op& op, const InViews&... ins) {
    impl::transform_to(sink(), ExecSpace(), shape, out, op, ins...);
    hold(out, ins...);
  }

  template <class DstView, class SrcView>
  void copy(const DstView& dst, const SrcView& src) {
    impl::copy_to(sink(), ExecSpace(), dst, src);
    hold(dst, src);
  }

  /// The asynchronous reductions of kstream/reduce.hpp: into rank-0 views, read after a replay has finished.
  template <class XView, class YView, class Result>
  void dot(const XView& x, const YView& y, const Result& result) {
    impl::dot_to(sink(), ExecSpace(), x, y, result);
    hold(x, y, result);
  }

  template <class Result, class Reducer, class Op, class... Views>
    requires(Kokkos::is_view<Result>::value)
  void transform_reduce(const Result& result, const Reducer& reduce, const Op& op, const Views&... views) {
    impl::transform_reduce_to(sink(), ExecSpace(), result, reduce, op, views...);
    hold(result, views...);
  }

  template <class OutView, class Op, class Result, class Reducer, class ReduceOp, class... Views>
    requires(impl::ranked_view<OutView> && impl::rank0_view<Result>)
  void transform_reduce(const OutView& out, const Op& op, const Result& result, const Reducer& reduce,
                        const ReduceOp& reduce_op, const Views&... views) {
    impl::fused_transform_reduce_to(sink(), ExecSpace(), out, op, result, reduce, reduce_op, views...);
    hold(out, result, views...);
  }

  /// The reductions along dimensions of kstream/reduce.hpp (kstream::along).
  template <class XView, class YView, class Result>
  void dot(const along& dims, const XView& x, const YView& y, const Result& result) {
    impl::dot_along_to(sink(), ExecSpace(), dims, x, y, result);
    hold(x, y, result);
  }

  template <class XView, class Result>
  void nrm2(const along& dims, const XView& x, const Result& result) {
    impl::nrm2_along_to(sink(), ExecSpace(), dims, x, result);
    hold(x, result);
  }

  template <class Result, class Reducer, class Op, class... Views>
    requires(Kokkos::is_view<Result>::value && !Kokkos::is_view<Op>::value)
  void transform_reduce(const along& dims, const Result& result, const Reducer& reduce, const Op& op,
                        const Views&... views) {
    impl::transform_reduce_along_to(sink(), ExecSpace(), dims, result, reduce, op, views...);
    hold(result, views...);
  }

  template <class OutView, class Op, class Result, class Reducer, class ReduceOp, class... Views>
    requires(impl::ranked_view<OutView> && Kokkos::is_view<Result>::value)
  void transform_reduce(const along& dims, const OutView& out, const Op& op, const Result& result,
                        const Reducer& reduce, const ReduceOp& reduce_op, const Views&... views) {
    impl::fused_transform_reduce_along_to(sink(), ExecSpace(), dims, out, op, result, reduce, reduce_op, views...);
    hold(out, result, views...);
  }

  /// The row operations of kstream/rows.hpp.
  template <class XView, class OutView>
  void softmax(const along& dims, const XView& x, const OutView& out) {
    impl::softmax_to(sink(), ExecSpace(), {}, dims, x, out);
    hold(x, out);
  }
  template <class XView, class OutView>
  void log_softmax(const along& dims, const XView& x, const OutView& out) {
    impl::log_softmax_to(sink(), ExecSpace(), {}, dims, x, out);
    hold(x, out);
  }
  template <class XView, class WView, class OutView>
  void rms_norm(const along& dims, const XView& x, const WView& weight, accumulator_t<typename XView::value_type> eps,
                const OutView& out) {
    impl::rms_norm_to(sink(), ExecSpace(), {}, dims, x, weight, eps, out);
    hold(x, weight, out);
  }
  template <class XView, class WView, class BView, class OutView>
  void layer_norm(const along& dims, const XView& x, const WView& weight, const BView& bias,
                  accumulator_t<typename XView::value_type> eps, const OutView& out) {
    impl::layer_norm_to(sink(), ExecSpace(), {}, dims, x, weight, bias, eps, out);
    hold(x, weight, bias, out);
  }
  template <class OutView, class Stat, class Op, class XView, class... Params>
  void transform_rows(const along& dims, const OutView& out, const Stat& stat, const Op& op, const XView& x,
                      const Params&... params) {
    impl::transform_rows_to(sink(), "kstream::transform_rows", ExecSpace(), {}, dims, out, stat, op, x, params...);
    hold(out, x, params...);
  }

  /// Kernels recorded so far (a call on empty views records none).
  std::size_t size() const { return kernels_; }

 private:
  using Node = Kokkos::Experimental::GraphNodeRef<ExecSpace>;
  template <class Space, class Body>
  friend Recording<Space> record(const Space& exec, Body&& body);

  Recorder(Node root, std::vector<std::any>& views) : last_(std::move(root)), views_(views) {}
  /// Appends each kernel after the last one: the recording's program order.
  impl::AppendToGraph<ExecSpace> sink() { return {&last_, &kernels_, &views_}; }
  template <class... Views>
  void hold(const Views&... views) {
    (views_.emplace_back(views), ...);
  }

  Node last_;
  std::vector<std::any>& views_;
  std::size_t kernels_ = 0;
};

/// A recorded sequence of kstream calls; submit() replays it (see the top of this file).
template <class ExecSpace>
class Recording {
 public:
  /// Replays every recorded operation, in order, on the instance given to kstream::record.
  void submit() const { graph_.submit(exec_); }
  /// Replays on `exec` (an instance of the same execution space).
  void submit(const ExecSpace& exec) const { graph_.submit(exec); }
  /// Kernels in the recording.
  std::size_t size() const { return kernels_; }

  template <class Space, class Body>
  friend Recording<Space> record(const Space& exec, Body&& body);

 private:
  Recording(ExecSpace exec, Kokkos::Experimental::Graph<ExecSpace> graph, std::vector<std::any> views,
            std::size_t kernels)
      : exec_(std::move(exec)), graph_(std::move(graph)), views_(std::move(views)), kernels_(kernels) {}

  ExecSpace exec_;
  Kokkos::Experimental::Graph<ExecSpace> graph_;
  std::vector<std::any> views_;  // keeps every recorded view alive as long as the recording
  std::size_t kernels_;
};

/// Records the kstream calls that `body(Recorder<ExecSpace>&)` makes; nothing runs until submit().
template <class ExecSpace, class Body>
Recording<ExecSpace> record(const ExecSpace& exec, Body&& body) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kstream::record: first argument must be an execution space");
  std::vector<std::any> views;
  std::size_t kernels = 0;
  auto graph = Kokkos::Experimental::create_graph<ExecSpace>([&](const auto& root) {
    Recorder<ExecSpace> recorder(root, views);
    body(recorder);
    kernels = recorder.size();
  });
  return Recording<ExecSpace>(exec, std::move(graph), std::move(views), kernels);
}

}  // namespace kstream

#pragma once
// The naive baselines: what a Kokkos user writes first, a RangePolicy lambda over the views, one element per
// thread. Same signatures and the same argument checks as the tiled functions, so tests and benchmarks treat the
// variants uniformly. Labels "kstream::add[naive]", "kstream::fma[naive]", "kstream::transform[naive]".
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/checks.hpp>
#include <kstream/impl/elementwise_ops.hpp>
#include <kstream/impl/slots.hpp>
#include <type_traits>

namespace kstream::naive {

template <class ExecSpace>
using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;

template <class ExecSpace, class XView, class YView, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void add(const ExecSpace& exec, const XView& x, const YView& y, const OutView& out) {
  impl::check_add<ExecSpace>(x, y, out);
  Kokkos::parallel_for(
      "kstream::add[naive]", Range<ExecSpace>(exec, 0, out.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) { out(i) = impl::Plus{}(x(i), y(i)); });
}

template <class XView, class YView, class OutView>
  requires(Kokkos::is_view<XView>::value)
void add(const XView& x, const YView& y, const OutView& out) {
  add(typename OutView::execution_space(), x, y, out);
}

template <class ExecSpace, class AView, class BView, class CView, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void fma(const ExecSpace& exec, const AView& a, const BView& b, const CView& c, const OutView& out) {
  impl::check_fma<ExecSpace>(a, b, c, out);
  Kokkos::parallel_for(
      "kstream::fma[naive]", Range<ExecSpace>(exec, 0, out.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) { out(i) = impl::FusedMultiplyAdd{}(a(i), b(i), c(i)); });
}

template <class AView, class BView, class CView, class OutView>
  requires(Kokkos::is_view<AView>::value)
void fma(const AView& a, const BView& b, const CView& c, const OutView& out) {
  fma(typename OutView::execution_space(), a, b, c, out);
}

namespace detail {
template <class OutView, class Op, class... InViews>
struct NaiveTransform {
  OutView out;
  Op op;
  impl::Slots<std::index_sequence_for<InViews...>, InViews...> in;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { apply(i, std::index_sequence_for<InViews...>{}); }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void apply(std::int64_t i, std::index_sequence<Is...>) const {
    out(i) = op(impl::get<Is>(in)(i)...);
  }
};
}  // namespace detail

/// out(i) = op(inputs(i)...), one element per thread over a RangePolicy.
template <class ExecSpace, class OutView, class Op, class... InViews>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<OutView>>)
void transform(const ExecSpace& exec, const OutView& out, const Op& op, const InViews&... ins) {
  static_assert(sizeof...(InViews) >= 1, "kstream::naive::transform: give at least one input view");
  impl::static_check_views<ExecSpace, OutView, InViews...>();
  impl::check_arguments("kstream::transform", nullptr, out, ins...);
  Kokkos::parallel_for("kstream::transform[naive]", Range<ExecSpace>(exec, 0, out.extent(0)),
                       detail::NaiveTransform<OutView, Op, InViews...>{out, op, {{ins}...}});
}

template <class OutView, class Op, class... InViews>
  requires(Kokkos::is_view<OutView>::value)
void transform(const OutView& out, const Op& op, const InViews&... ins) {
  transform(typename OutView::execution_space(), out, op, ins...);
}

}  // namespace kstream::naive

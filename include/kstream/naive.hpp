#pragma once
// The naive baselines: what a Kokkos user writes first, one element per index: a RangePolicy lambda over rank-1
// views, an MDRangePolicy<Rank<r>> over the multi-index of rank-r views (Kokkos' default iteration order; ranks 7
// and 8, past MDRangePolicy's six, loop over their last dimensions inside). Same signatures and the same argument
// checks as the tiled functions, so tests and benchmarks treat the variants uniformly. Labels
// "kstream::add[naive]", "kstream::fma[naive]", "kstream::transform[naive]".
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/checks.hpp>
#include <kstream/impl/elementwise_ops.hpp>
#include <kstream/impl/slots.hpp>
#include <type_traits>

namespace kstream::naive {

namespace detail {
/// out(i...) = op(in(i...)...) at one multi-index; with six indices of a rank-7 or rank-8 view, over the rest.
template <class OutView, class Op, class... InViews>
struct NaiveTransform {
  OutView out;
  Op op;
  impl::Slots<std::index_sequence_for<InViews...>, InViews...> in;

  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(I... i) const {
    if constexpr (sizeof...(I) < OutView::rank()) {
      for (std::int64_t j = 0; j < std::int64_t(out.extent(sizeof...(I))); ++j) (*this)(i..., j);
    } else {
      apply(std::index_sequence_for<InViews...>{}, i...);
    }
  }

  template <std::size_t... Is, class... I>
  KOKKOS_FORCEINLINE_FUNCTION void apply(std::index_sequence<Is...>, I... i) const {
    out(i...) = op(impl::get<Is>(in)(i...)...);
  }
};

template <int Rank, std::size_t... Rs, class View>
auto extents_of(const View& v, std::index_sequence<Rs...>) {
  return Kokkos::Array<std::int64_t, Rank>{std::int64_t(v.extent(Rs))...};
}

/// functor over every index of out: a RangePolicy for rank 1, an MDRangePolicy of up to six dimensions above.
template <class ExecSpace, class OutView, class Functor>
void for_each_index(const char* label, const ExecSpace& exec, const OutView& out, const Functor& functor) {
  constexpr int rank = int(OutView::rank());
  if constexpr (rank == 1) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, out.extent(0)),
                         functor);
  } else {
    constexpr int outer = rank < 6 ? rank : 6;
    using Policy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<outer>, Kokkos::IndexType<std::int64_t>>;
    Kokkos::parallel_for(
        label,
        Policy(exec, Kokkos::Array<std::int64_t, outer>{}, extents_of<outer>(out, std::make_index_sequence<outer>{})),
        functor);
  }
}
}  // namespace detail

template <class ExecSpace, class XView, class YView, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value)
void add(const ExecSpace& exec, const XView& x, const YView& y, const OutView& out) {
  impl::check_add<ExecSpace>(x, y, out);
  detail::for_each_index("kstream::add[naive]", exec, out,
                         detail::NaiveTransform<OutView, impl::Plus, XView, YView>{out, {}, {{x}, {y}}});
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
  detail::for_each_index(
      "kstream::fma[naive]", exec, out,
      detail::NaiveTransform<OutView, impl::FusedMultiplyAdd, AView, BView, CView>{out, {}, {{a}, {b}, {c}}});
}

template <class AView, class BView, class CView, class OutView>
  requires(Kokkos::is_view<AView>::value)
void fma(const AView& a, const BView& b, const CView& c, const OutView& out) {
  fma(typename OutView::execution_space(), a, b, c, out);
}

/// out(i...) = op(inputs(i...)...), one element per index.
template <class ExecSpace, class OutView, class Op, class... InViews>
  requires(std::conjunction_v<Kokkos::is_execution_space<ExecSpace>, Kokkos::is_view<OutView>>)
void transform(const ExecSpace& exec, const OutView& out, const Op& op, const InViews&... ins) {
  static_assert(sizeof...(InViews) >= 1, "kstream::naive::transform: give at least one input view");
  impl::static_check_views<ExecSpace, OutView, InViews...>();
  impl::check_arguments("kstream::transform", nullptr, out, ins...);
  detail::for_each_index("kstream::transform[naive]", exec, out,
                         detail::NaiveTransform<OutView, Op, InViews...>{out, op, {{ins}...}});
}

template <class OutView, class Op, class... InViews>
  requires(Kokkos::is_view<OutView>::value)
void transform(const OutView& out, const Op& op, const InViews&... ins) {
  transform(typename OutView::execution_space(), out, op, ins...);
}

}  // namespace kstream::naive

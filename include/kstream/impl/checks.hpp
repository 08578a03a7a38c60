#pragma once
// Argument checks shared by every kstream entry point (tiled and naive alike), so that all variants reject the
// same bad input with the same message.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kstream::impl {

template <class ExecSpace, class View>
constexpr void static_check_view() {
  static_assert(Kokkos::is_view<View>::value, "kstream: arguments must be Kokkos::View");
  static_assert(View::rank() == 1, "kstream: views must be rank 1");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                "kstream: a view's memory space is not accessible from the execution space");
}

template <class ExecSpace, class OutView, class... InViews>
constexpr void static_check_views() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value, "kstream: first argument must be an execution space");
  static_check_view<ExecSpace, OutView>();
  (static_check_view<ExecSpace, InViews>(), ...);
  static_assert(!std::is_const_v<typename OutView::value_type>, "kstream: the output view must not be const");
}

/// Where a view's elements lie, as the checks see it. Plain numbers: the success path allocates nothing (the
/// view's label and name are looked up only to word an error).
struct Span {
  std::int64_t extent;
  std::uintptr_t address;
  std::int64_t stride;  // in elements
  std::int64_t element_bytes;

  // One past the last byte the view's elements occupy.
  std::uintptr_t end() const { return address + std::uintptr_t(((extent - 1) * stride + 1) * element_bytes); }
};

template <class View>
Span span_of(const View& v) {
  return Span{std::int64_t(v.extent(0)), reinterpret_cast<std::uintptr_t>(v.data()), std::int64_t(v.stride(0)),
              std::int64_t(sizeof(typename View::value_type))};
}

/// The parameter names of a call, output first ({"out", "x", "y"}); nullptr: "out", "input 0", "input 1", ...
using Names = const char* const*;

template <class View>
std::string describe(Names names, std::size_t position, const View& v) {
  const std::string name = names ? names[position] : position == 0 ? "out" : "input " + std::to_string(position - 1);
  const std::string label = v.label();
  return "'" + name + "'" + (label.empty() ? std::string() : " (label \"" + label + "\")");
}

[[noreturn]] inline void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

// Exact aliasing (same first element, same stride) is allowed: every element is read before it is written by the
// same thread. Interleaved views with equal strides never share an element and are allowed too. Any other
// intersection of the memory ranges could let one thread overwrite what another still has to read: rejected.
inline bool partially_overlaps(const Span& out, const Span& in) {
  if (out.extent == 0) return false;
  if (out.end() <= in.address || in.end() <= out.address) return false;
  if (out.stride != in.stride || out.element_bytes != in.element_bytes) return true;
  if (out.address == in.address) return false;  // exact aliasing
  const auto distance = std::int64_t(in.address > out.address ? in.address - out.address : out.address - in.address);
  const bool interleaved = distance % out.element_bytes == 0 && distance % (out.stride * out.element_bytes) != 0;
  return !interleaved;
}

/// Fails unless `view` (parameter `position`) has `reference`'s extent (parameter `reference_position`).
template <class View, class Reference>
void check_extent(const char* op, Names names, std::size_t position, const View& view, std::size_t reference_position,
                  const Reference& reference) {
  if (view.extent(0) != reference.extent(0))
    fail(op, "extent mismatch: " + describe(names, position, view) + " has extent " + std::to_string(view.extent(0)) +
                 " but " + describe(names, reference_position, reference) + " has extent " +
                 std::to_string(reference.extent(0)));
}

/// Runtime checks of an elementwise call: the output's stride, then each input's extent and overlap in order.
template <class OutView, class... InViews>
void check_arguments(const char* op, Names names, const OutView& out, const InViews&... ins) {
  const Span out_span = span_of(out);
  if (out_span.extent > 1 && out_span.stride == 0)
    fail(op, "output " + describe(names, 0, out) + " has stride 0: every element would be written by several threads");
  std::size_t position = 0;
  auto check_input = [&](const auto& in) {
    ++position;
    check_extent(op, names, position, in, 0, out);
    if (const Span in_span = span_of(in); partially_overlaps(out_span, in_span))
      fail(op, "output " + describe(names, 0, out) + " partially overlaps input " + describe(names, position, in) +
                   " (only exact aliasing, out == input, is allowed)");
  };
  (check_input(ins), ...);
}

}  // namespace kstream::impl

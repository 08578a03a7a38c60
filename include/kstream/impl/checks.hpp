#pragma once
// Argument checks shared by every kstream entry point (tiled and naive alike), so that all variants reject the
// same bad input with the same message.
#include <Kokkos_Core.hpp>

#include <array>
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

/// A view as the checks see it: its name in the call, its label, element count, address and stride.
struct ViewFacts {
  std::string name;
  std::string label;
  std::int64_t extent;
  std::uintptr_t address;
  std::int64_t stride;  // in elements
  std::int64_t element_bytes;

  std::string describe() const {
    return "'" + name + "'" + (label.empty() ? std::string() : " (label \"" + label + "\")");
  }
  // One past the last byte the view's elements occupy.
  std::uintptr_t span_end() const {
    return address + std::uintptr_t(((extent - 1) * stride + 1) * element_bytes);
  }
};

template <class View>
ViewFacts facts(const std::string& name, const View& v) {
  return ViewFacts{name,
                   v.label(),
                   std::int64_t(v.extent(0)),
                   reinterpret_cast<std::uintptr_t>(v.data()),
                   std::int64_t(v.stride(0)),
                   std::int64_t(sizeof(typename View::value_type))};
}

[[noreturn]] inline void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

inline void check_extent(const char* op, const ViewFacts& out, const ViewFacts& in) {
  if (in.extent != out.extent)
    fail(op, "extent mismatch: " + in.describe() + " has extent " + std::to_string(in.extent) + " but " +
                 out.describe() + " has extent " + std::to_string(out.extent));
}

// Exact aliasing (same first element, same stride) is allowed: every element is read before it is written by the
// same thread. Interleaved views with equal strides never share an element and are allowed too. Any other
// intersection of the memory ranges could let one thread overwrite what another still has to read: rejected.
inline void check_overlap(const char* op, const ViewFacts& out, const ViewFacts& in) {
  if (out.extent == 0) return;
  const bool disjoint_ranges = out.span_end() <= in.address || in.span_end() <= out.address;
  if (disjoint_ranges) return;
  if (out.address == in.address && out.stride == in.stride && out.element_bytes == in.element_bytes) return;
  if (out.stride == in.stride && out.element_bytes == in.element_bytes) {
    const auto distance = std::int64_t(in.address > out.address ? in.address - out.address : out.address - in.address);
    const std::int64_t step = out.stride * out.element_bytes;
    if (distance % out.element_bytes == 0 && distance % step != 0) return;  // interleaved, no shared element
  }
  fail(op, "output " + out.describe() + " partially overlaps input " + in.describe() +
               " (only exact aliasing, out == input, is allowed)");
}

inline void check_output_stride(const char* op, const ViewFacts& out) {
  if (out.extent > 1 && out.stride == 0)
    fail(op, "output " + out.describe() + " has stride 0: every element would be written by several threads");
}

/// Runtime checks of an elementwise call: output stride, then extent and overlap of each input in order.
/// `names` holds the output's name first, then the inputs' (as the caller's parameters are named).
template <class OutView, class... InViews>
void check_arguments(const char* op, const std::array<std::string, 1 + sizeof...(InViews)>& names,
                     const OutView& out, const InViews&... ins) {
  const ViewFacts out_facts = facts(names[0], out);
  check_output_stride(op, out_facts);
  std::size_t k = 1;
  auto check_input = [&](const ViewFacts& in) {
    check_extent(op, out_facts, in);
    check_overlap(op, out_facts, in);
  };
  (check_input(facts(names[k++], ins)), ...);
}

/// "input 0", "input 1", ...: the names transform gives its inputs in messages.
template <std::size_t N>
std::array<std::string, 1 + N> positional_names() {
  std::array<std::string, 1 + N> names;
  names[0] = "out";
  for (std::size_t k = 0; k < N; ++k) names[k + 1] = "input " + std::to_string(k);
  return names;
}

}  // namespace kstream::impl

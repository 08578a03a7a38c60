// The runtime checks of a call's views (kstream/impl/overlap.hpp): extents, and which output and input views may
// share elements, on the normalized description of the pair (kstream/impl/plan.hpp).
#include <algorithm>
#include <kstream/impl/overlap.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <stdexcept>
#include <string>

namespace kstream::impl {
namespace {

enum class Reach { yes, no, unknown };

/// Whether distance = sum of k_d * strides[d] for some integers |k_d| < extents[d], dimensions sorted by stride,
/// largest first, below[d] the farthest the dimensions after d reach. Where strides nest (each larger than what
/// the smaller ones reach, as in every Kokkos layout) at most two k fit each level and the answer is exact;
/// otherwise unknown.
Reach reaches(std::int64_t distance, const std::int64_t* strides, const std::int64_t* extents,
              const std::int64_t* below, int dims) {
  if (dims == 0) return distance == 0 ? Reach::yes : Reach::no;
  const std::int64_t s = strides[0], most = extents[0] - 1;
  if (s == 0) return reaches(distance, strides + 1, extents + 1, below + 1, dims - 1);
  // k with |distance - k s| <= below[0]: from ceil((distance - below) / s) to floor((distance + below) / s)
  auto floor_div = [](std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const std::int64_t low = std::max(-most, -floor_div(-(distance - below[0]), s));
  const std::int64_t high = std::min(most, floor_div(distance + below[0], s));
  if (high - low > 1) return Reach::unknown;
  Reach result = Reach::no;
  for (std::int64_t k = low; k <= high; ++k) {
    const Reach r = reaches(distance - k * s, strides + 1, extents + 1, below + 1, dims - 1);
    if (r == Reach::yes) return r;
    if (r == Reach::unknown) result = r;
  }
  return result;
}

/// o's strides and extents along g's dimensions, largest stride first, with what the smaller ones reach.
struct Sorted {
  int dims = 0;
  std::int64_t strides[max_rank], extents[max_rank], below[max_rank];
  Sorted(const Geometry& g, const Operand& o) : dims(g.dims) {
    int order[max_rank];
    for (int d = 0; d < dims; ++d) order[d] = d;
    sort_dimensions(order, dims, [&](int a, int b) { return g.stride(o, a) > g.stride(o, b); });
    for (int d = 0; d < dims; ++d) {
      strides[d] = g.stride(o, order[d]);
      extents[d] = g.extents[order[d]];
    }
    std::int64_t reach = 0;
    for (int d = dims - 1; d >= 0; --d) {
      below[d] = reach;
      reach += (extents[d] - 1) * strides[d];
    }
  }
};

}  // namespace

bool distinct_elements(const Operand& out) {
  if (out.rank == 1) return out.extents[0] <= 1 || out.strides[0] != 0;  // (every call of rank 1: kept short)
  if (out.size() <= 1) return true;
  const Geometry g = normalize(out, nullptr, 0);
  const Sorted s(g, out);
  for (int d = 0; d < s.dims; ++d)  // each stride past everything the smaller ones reach
    if (s.strides[d] <= s.below[d]) return false;
  return true;
}

Overlap overlap_of(const Operand& out, const Operand& in) {
  if (out.size() == 0 || !ranges_intersect(out, in)) return Overlap::none;
  const Geometry g = normalize(out, &in, 1);
  bool same_mapping = out.element_bytes == in.element_bytes;
  for (int d = 0; d < g.dims && same_mapping; ++d) same_mapping = g.stride(out, d) == g.stride(in, d);
  if (!same_mapping) return out.address == in.address && g.dims <= 1 ? Overlap::partial : Overlap::possible;
  if (out.address == in.address) return Overlap::exact;
  const std::uintptr_t distance = in.address > out.address ? in.address - out.address : out.address - in.address;
  if (distance % std::uintptr_t(out.element_bytes) != 0) return Overlap::partial;  // bytes of one element in two
  const Sorted s(g, out);
  switch (reaches(std::int64_t(distance) / out.element_bytes, s.strides, s.extents, s.below, s.dims)) {
    case Reach::yes:
      return Overlap::partial;
    case Reach::no:
      return Overlap::none;
    case Reach::unknown:
      break;
  }
  return Overlap::possible;
}

namespace {

[[noreturn]] void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

/// Parameter `position` as the messages name it: 'name' (label "...").
std::string describe(Names names, std::size_t position, const ViewLabel& view) {
  const std::string name = names ? names[position] : position == 0 ? "out" : "input " + std::to_string(position - 1);
  const std::string label = view.read(view.view);
  return "'" + name + "'" + (label.empty() ? std::string() : " (label \"" + label + "\")");
}

/// Fails unless `view` (parameter `position`) has `first`'s extents (parameter 0).
void check_extent(const char* op, Names names, const ViewLabel* labels, const Operand& first, const Operand& view,
                  std::size_t position) {
  for (int r = 0; r < view.rank; ++r) {
    if (view.extents[r] == first.extents[r]) continue;
    fail(op, std::string("extent mismatch") + (view.rank > 1 ? " in dimension " + std::to_string(r) : "") + ": " +
                 describe(names, position, labels[position]) + " has extent " + std::to_string(view.extents[r]) +
                 " but " + describe(names, 0, labels[0]) + " has extent " + std::to_string(first.extents[r]));
  }
}

}  // namespace

void check_extents(const char* op, Names names, const ViewLabel* labels, const Operand& first, const Operand* others,
                   std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) check_extent(op, names, labels, first, others[k], k + 1);
}

void check_elementwise(const char* op, Names names, const ViewLabel* labels, const Operand& out, const Operand* ins,
                       std::size_t inputs) {
  for (int r = 0; r < out.rank; ++r)
    if (out.extents[r] > 1 && out.strides[r] == 0 && out.size() > 1)
      fail(op, "output " + describe(names, 0, labels[0]) + " has stride 0" +
                   (out.rank > 1 ? " in dimension " + std::to_string(r) : "") +
                   ": every element would be written by several threads");
  if (!distinct_elements(out))
    fail(op, "output " + describe(names, 0, labels[0]) +
                 " maps several indices to one element (its strides do not nest): they would be written by several "
                 "threads");
  for (std::size_t k = 0; k < inputs; ++k) {  // each input's extents, then its overlap
    const std::size_t position = k + 1;
    check_extent(op, names, labels, out, ins[k], position);
    if (!ranges_intersect(out, ins[k])) continue;
    switch (overlap_of(out, ins[k])) {
      case Overlap::none:
      case Overlap::exact:
        continue;
      case Overlap::partial:
        fail(op, "output " + describe(names, 0, labels[0]) + " partially overlaps input " +
                     describe(names, position, labels[position]) + " (only exact aliasing, out == input, is allowed)");
      case Overlap::possible:
        fail(op, "output " + describe(names, 0, labels[0]) + " may overlap input " +
                     describe(names, position, labels[position]) +
                     ": their memory ranges intersect and kstream cannot prove that they share no element (a "
                     "conservative check; allowed are exact aliasing, out == input, and views whose elements are "
                     "provably distinct)");
    }
  }
}

void check_reduced_dims(const char* op, const ReducedDims& dims, int rank) {
  if (dims.count == 0) fail(op, "kstream::along names no dimension to reduce");
  for (int k = 0; k < dims.count; ++k) {
    const int d = dims.dims[k];
    if (d < 0 || d >= rank)
      fail(op, "kstream::along names dimension " + std::to_string(d) + ", but the inputs have rank " +
                   std::to_string(rank) + " (dimensions 0 to " + std::to_string(rank - 1) + ")");
    for (int j = 0; j < k; ++j)
      if (dims.dims[j] == d) fail(op, "kstream::along names dimension " + std::to_string(d) + " twice");
  }
}

Operand widened_result(const char* op, Names names, const ViewLabel* labels, const Operand& result,
                       const ReducedDims& dims, const Operand* inputs, int input_count) {
  const Operand& input = inputs[0];
  check_reduced_dims(op, dims, input.rank);
  const int kept_rank = input.rank - dims.count;
  const bool keep_dims = result.rank == input.rank;
  if (result.rank != kept_rank && !keep_dims)
    fail(op, "result " + describe(names, 0, labels[0]) + " has rank " + std::to_string(result.rank) + ", but reducing " +
                 std::to_string(dims.count) + " of the inputs' " + std::to_string(input.rank) + " dimensions leaves " +
                 std::to_string(kept_rank) + " (or keeps " + std::to_string(input.rank) +
                 " with extent 1 on the reduced ones)");
  Operand widened = input;
  widened.address = result.address;
  widened.element_bytes = result.element_bytes;
  for (int r = 0, j = 0; r < input.rank; ++r) {
    const bool reduced = dims.has(r);
    if (reduced && !keep_dims) {
      widened.strides[r] = 0;
      continue;
    }
    const int at = keep_dims ? r : j++;  // the result's dimension
    const std::int64_t expected = reduced ? 1 : input.extents[r];
    if (result.extents[at] != expected)
      fail(op, "extent mismatch in dimension " + std::to_string(at) + " of result " + describe(names, 0, labels[0]) +
                   ": it has extent " + std::to_string(result.extents[at]) +
                   (reduced ? " but dimension " + std::to_string(r) + " is reduced (extent 1 where the result keeps it)"
                            : " but dimension " + std::to_string(r) + " of " + describe(names, 1, labels[1]) +
                                  " has extent " + std::to_string(input.extents[r])));
    widened.strides[r] = reduced ? 0 : result.strides[at];
  }
  if (!distinct_elements(result))
    fail(op, "result " + describe(names, 0, labels[0]) +
                 " maps several indices to one element (a stride 0, or strides that do not nest)");
  for (int k = 0; k < input_count; ++k)
    if (ranges_intersect(result, inputs[k]))
      fail(op, "result " + describe(names, 0, labels[0]) + " may overlap input " +
                   describe(names, std::size_t(k) + 1, labels[k + 1]) +
                   ": their memory ranges intersect (a result must not share memory with an input)");
  return widened;
}

Operand widened_parameter(const char* op, const char* name, const ViewLabel& label, const Operand& parameter,
                          const ReducedDims& dims, const Operand& x, const Operand& out) {
  const Names names = &name;
  if (parameter.rank != dims.count)
    fail(op, describe(names, 0, label) + " has rank " + std::to_string(parameter.rank) + ", but " +
                 std::to_string(dims.count) + " dimensions are reduced (it holds a value for each of their elements)");
  Operand widened = x;
  widened.address = parameter.address;
  widened.element_bytes = parameter.element_bytes;
  for (int r = 0; r < x.rank; ++r) widened.strides[r] = 0;
  for (int k = 0; k < dims.count; ++k) {
    const int d = dims.dims[k];
    if (parameter.extents[k] != x.extents[d])
      fail(op, "extent mismatch in dimension " + std::to_string(k) + " of " + describe(names, 0, label) +
                   ": it has extent " + std::to_string(parameter.extents[k]) + " but reduced dimension " +
                   std::to_string(d) + " of 'x' has extent " + std::to_string(x.extents[d]));
    widened.strides[d] = parameter.strides[k];
  }
  if (ranges_intersect(parameter, out))
    fail(op, describe(names, 0, label) + " may overlap 'out': their memory ranges intersect");
  return widened;
}

}  // namespace kstream::impl

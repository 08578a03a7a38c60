// The plan of one elementwise call (kstream/impl/plan.hpp has the table; docs/engine.md the numbers).
#include <algorithm>
#include <climits>
#include <kstream/impl/plan.hpp>
#include <kstream/streaming_stores.hpp>
#include <stdexcept>
#include <string>

namespace kstream::impl {
namespace {

bool contiguous(const OperandFacts& v) {
  return v.stride == 1;
}

/// Bytes from the view's first element to the end of its last (n > 0).
std::int64_t spanned_bytes(const OperandFacts& v, std::int64_t n) {
  const std::int64_t stride = v.stride < 0 ? -v.stride : v.stride;
  return ((n - 1) * stride + 1) * v.element_bytes;
}

/// Elements from the 16-byte boundary at or before element e of v to that element.
int shift_at(const OperandFacts& v, std::int64_t e) {
  return int(((v.address + std::uintptr_t(e) * std::uintptr_t(v.element_bytes)) % pack_bytes) / v.element_bytes);
}

struct Facts {
  const CallFacts& call;
  bool all_contiguous = true;
  bool one_element_size = true;
  std::int64_t operand_bytes = 0;  // every operand's elements once
  std::int64_t spanned = 0;        // every operand's span
  bool fits_32bit_strides = true;
  bool out_is_an_input = false;

  explicit Facts(const CallFacts& c) : call(c) {
    auto note = [&](const OperandFacts& v) {
      all_contiguous = all_contiguous && contiguous(v);
      one_element_size = one_element_size && v.element_bytes == c.out.element_bytes;
      operand_bytes += c.n * v.element_bytes;
      spanned += spanned_bytes(v, c.n);
      fits_32bit_strides = fits_32bit_strides && v.stride >= INT32_MIN && v.stride <= INT32_MAX;
    };
    note(c.out);
    for (int k = 0; k < c.inputs; ++k) {
      note(c.ins[k]);
      out_is_an_input = out_is_an_input || c.ins[k].address == c.out.address;
    }
  }
};

// Device, default shape, strided: one element per index, except elements under 8 bytes whose operands fit the
// device's cache (there the tiled kernel's elements in flight feed the cache's bandwidth).
bool runs_as_elements(const Facts& f) {
  const CallFacts& c = f.call;
  if (!c.device || !c.default_shape || f.all_contiguous || !f.fits_32bit_strides) return false;
  return c.out.element_bytes >= 8 || f.spanned > c.cache_bytes;
}

bool packable(const Facts& f, int width) {
  const CallFacts& c = f.call;
  if (!f.all_contiguous || !f.one_element_size || width == 1) return false;
  const std::uintptr_t misalignment = c.out.address % pack_bytes;
  if (misalignment % std::uintptr_t(c.out.element_bytes) != 0) return false;
  for (int k = 0; k < c.inputs; ++k)
    if (c.ins[k].address % pack_bytes != misalignment) return false;
  return true;
}

// The shifted body starts at the output's first 16-byte boundary, or one pack later where an input's first
// aligned pack would begin before its first element, and ends where the last pack's second aligned input pack
// still ends inside every input (element first + (p + 1) W - shift + W - 1 <= n - 1). False: no such body.
bool shifted_partition(const Facts& f, int width, Plan& p) {
  const CallFacts& c = f.call;
  if (!c.device || c.out.element_bytes >= 4 || !f.all_contiguous || !f.one_element_size || width == 1 ||
      c.inputs > max_shifted_inputs)
    return false;
  if (c.out.address % c.out.element_bytes != 0) return false;
  for (int k = 0; k < c.inputs; ++k)
    if (c.ins[k].address % c.ins[k].element_bytes != 0) return false;
  const std::int64_t boundary =
      std::int64_t((pack_bytes - c.out.address % pack_bytes) % pack_bytes) / c.out.element_bytes;
  int largest_shift = 0;
  for (int k = 0; k < c.inputs; ++k) largest_shift = std::max(largest_shift, shift_at(c.ins[k], boundary));
  const std::int64_t first = boundary + (boundary < largest_shift ? width : 0);
  const std::int64_t body = std::max<std::int64_t>(0, (c.n - first - width) / width);
  if (body == 0) return false;
  p.head = first;
  p.body_items = body;
  p.tail = c.n - first - body * width;
  for (int k = 0; k < c.inputs; ++k) p.shifts[k] = std::int8_t(shift_at(c.ins[k], first));
  return true;
}

bool streams(const Facts& f, const Plan& p) {
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__)
  const CallFacts& c = f.call;
  if (c.device || f.out_is_an_input) return false;  // an aliased output is re-read right away: keep it in cache
  const bool packs = p.strategy == Strategy::packed ||
                     (p.strategy == Strategy::contiguous && elements_per_pack(c.out.element_bytes) > 1 &&
                      c.out.address % c.out.element_bytes == 0);
  if (!packs) return false;
  switch (streaming_stores()) {
    case StreamingStores::never:
      return false;
    case StreamingStores::always:
      return true;
    case StreamingStores::automatic:
      return f.operand_bytes >= 2 * last_level_cache_bytes();
  }
#endif
  static_cast<void>(f);
  static_cast<void>(p);
  return false;
}

}  // namespace

const char* strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::packed:
      return "packed";
    case Strategy::contiguous:
      return "contiguous";
    case Strategy::shifted:
      return "shifted";
    case Strategy::strided:
      return "strided";
    case Strategy::elements:
      return "elements";
  }
  return "unknown";
}

Plan plan(const CallFacts& c) {
  validate(c.shape, c.label);
  Plan p;
  if (c.n == 0) {
    p.league = 0;
    return p;
  }
  const Facts f(c);
  const int width = f.one_element_size ? elements_per_pack(c.out.element_bytes) : 1;
  p.body_items = c.n;
  if (runs_as_elements(f)) {
    p.strategy = Strategy::elements;
    p.league = c.n;
    return p;
  }
  if (packable(f, width)) {
    p.strategy = Strategy::packed;
    p.width = width;
    const std::int64_t misalignment = std::int64_t(c.out.address % pack_bytes);
    p.head = std::min<std::int64_t>(c.n, ((pack_bytes - misalignment) % pack_bytes) / c.out.element_bytes);
    p.body_items = (c.n - p.head) / width;
    p.tail = c.n - p.head - p.body_items * width;
  } else if (shifted_partition(f, width, p)) {
    p.strategy = Strategy::shifted;
    p.width = width;
  } else {
    p.strategy = f.all_contiguous ? Strategy::contiguous : Strategy::strided;
  }
  p.streaming_stores = streams(f, p);

  // Single-element strategies keep one pack's worth of elements in flight; packs_in_flight > 1 repeats that
  // (more chunks), as shifted packs do. Only packed packs keep several packs in flight.
  const bool packs_in_flight = p.strategy == Strategy::packed;
  if (c.device) {
    p.team_size = c.shape.team_size;
    p.items_in_flight = packs_in_flight                   ? c.shape.packs_in_flight
                        : p.strategy == Strategy::shifted ? 1
                                                          : elements_per_pack(c.out.element_bytes);
    p.chunks_per_thread = c.shape.chunks_per_thread * (packs_in_flight ? 1 : c.shape.packs_in_flight);
  } else {
    // One thread per tile. Default shape: one tile per thread; the calling thread alone for a short OpenMP call,
    // only as many threads as its bytes pay for a mid-small one.
    p.threads = std::max(1, c.threads);
    if (c.default_shape && c.may_run_inline && p.threads > 1) {
      if (f.operand_bytes <= calling_thread_bytes(p.threads)) {
        p.threads = 0;
      } else if (c.own_region) {
        p.threads = threads_for(f.operand_bytes, p.threads);
      }
    }
    p.own_region = c.own_region && p.threads > 0;
    std::int64_t tile = c.shape.tile_packs() * (packs_in_flight ? 1 : elements_per_pack(c.out.element_bytes));
    if (c.default_shape) tile = (p.body_items + std::max(p.threads, 1) - 1) / std::max(p.threads, 1);
    p.chunks_per_thread = int(std::clamp<std::int64_t>(tile, 1, INT_MAX));
  }
  p.league = std::max<std::int64_t>(1, (p.body_items + p.tile_items() - 1) / p.tile_items());
  if (c.device && p.league > INT_MAX)
    throw std::length_error(std::string(c.label) + ": " + std::to_string(c.n) +
                            " elements need more teams than a TeamPolicy holds; use a larger tile shape");
  return p;
}

}  // namespace kstream::impl

// The plan of a reduction along dimensions (kstream/impl/reduce_plan.hpp has the table; docs/engine.md the numbers).
#include <algorithm>
#include <climits>
#include <kstream/impl/reduce_plan.hpp>
#include <stdexcept>
#include <string>

namespace kstream::impl {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The smallest power of two at least n (n >= 1), at most `cap`.
int power_of_two_at_least(std::int64_t n, int cap) {
  int k = 1;
  while (k < n && k < cap) k *= 2;
  return k;
}

/// Fails unless the device kernel's 32-bit index math holds: the outputs, the kept extents and every operand's
/// strides along them below 2^31, and the same for the reduced dimensions where there are several.
void check_device_indices(const AlongPlan& p, const Operand& widened, const Operand* operands, int count,
                          const char* label) {
  bool fits = p.outputs <= INT32_MAX;
  const Geometry& g = p.geometry;
  for (int d = 0; d < g.dims; ++d) {
    if (d < g.reduced && g.reduced == 1) continue;  // one reduced dimension: 64-bit offsets along it
    fits = fits && g.extents[d] <= INT32_MAX && g.stride(widened, d) <= INT32_MAX;
    for (int k = 0; k < count; ++k) fits = fits && g.stride(operands[k], d) <= INT32_MAX;
  }
  if (g.reduced > 1) fits = fits && p.length <= INT32_MAX;
  if (!fits)
    throw std::length_error(std::string(label) + ": " + std::to_string(p.outputs) + " outputs of " +
                            std::to_string(p.length) +
                            " elements: a device reduction along dimensions takes fewer than 2^31 outputs, kept "
                            "extents and strides below 2^31, and (reducing several dimensions that do not merge) "
                            "fewer than 2^31 elements for each output");
}

void plan_device(const AlongFacts& f, AlongPlan& p, int element_bytes) {
  const Geometry& g = p.geometry;
  const int team = f.team_size;
  p.team_size = team;
  if (p.outer) {  // threads along the adjacent outputs; the team's other threads share their elements
    p.block_outputs = power_of_two_at_least(g.extents[g.reduced], team);
    p.reduce_lanes = team / p.block_outputs;
  } else {  // threads along an output's elements, along_lane_bytes of the first input each at least
    p.reduce_lanes =
        power_of_two_at_least(std::max<std::int64_t>(1, ceil_div(p.length * element_bytes, along_lane_bytes)), team);
    p.block_outputs = team / p.reduce_lanes;
  }
  const std::int64_t teams = std::max<std::int64_t>(1, f.resident_threads / team);
  // A thread alone on an output shorter than along_lane_bytes: several outputs a thread (a power of two, up to
  // along_thread_outputs), so long as the blocks still fill the device; each output's index work and its few loads
  // alone left the thread idle. Fewer than along_thread_outputs_min: one (docs/engine.md). One reduced dimension or
  // none: its elements along the step.
  if (p.reduce_lanes == 1 && g.reduced <= 1) {
    const std::int64_t bytes = std::max<std::int64_t>(1, p.length * element_bytes);
    while (p.thread_outputs < along_thread_outputs && 2 * p.thread_outputs * bytes <= along_lane_bytes &&
           ceil_div(p.outputs, std::int64_t(team) * p.thread_outputs * 2) >= teams)
      p.thread_outputs *= 2;
    if (p.thread_outputs < along_thread_outputs_min) p.thread_outputs = 1;
    p.block_outputs = team * p.thread_outputs;
  }
  p.blocks = ceil_div(p.outputs, p.block_outputs);
  // Few blocks and long outputs: slices, so that the teams fill the device.
  p.slices = 1;
  p.slice_length = p.length;
  if (p.blocks < teams && p.length > 0) {
    const std::int64_t by_device = ceil_div(teams, p.blocks);
    const std::int64_t by_length = std::max<std::int64_t>(1, p.length / (p.reduce_lanes * along_slice_per_thread));
    const std::int64_t wanted = std::min(by_device, by_length);
    if (wanted > 1) {  // every thread of a slice with whole groups of loads in flight (a tail loads one at a time)
      const std::int64_t group = std::int64_t(p.reduce_lanes) * device_in_flight;
      p.slice_length = ceil_div(ceil_div(p.length, wanted), group) * group;
      p.slices = ceil_div(p.length, p.slice_length);
    }
  }
  // The fold: threads on an output's slices as on its elements, device_in_flight partials each at least.
  if (p.slices > 1) {
    p.fold_lanes = power_of_two_at_least(ceil_div(p.slices, device_in_flight), team);
    p.fold_league = ceil_div(p.outputs, team / p.fold_lanes);
  }
}

void plan_host(AlongPlan& p) {
  const Geometry& g = p.geometry;
  p.team_size = 1;
  p.reduce_lanes = 1;
  if (p.outer) {  // a vector of adjacent outputs, their elements in slices of about a tile's length
    p.block_outputs = int(std::min<std::int64_t>(along_host_outputs, g.extents[g.reduced]));
    p.slice_length = std::max<std::int64_t>(1, along_host_outer_items / p.block_outputs);
  } else {  // outputs one after the other, a tile's length of elements in all
    p.slice_length = along_host_tile_items;
  }
  if (p.length <= p.slice_length) {
    p.slice_length = p.length;
    p.slices = 1;
    if (!p.outer)
      p.block_outputs =
          int(std::clamp<std::int64_t>(along_host_tile_items / std::max<std::int64_t>(1, p.length), 1, INT_MAX));
  } else {
    p.slices = ceil_div(p.length, p.slice_length);
  }
  p.blocks = ceil_div(p.outputs, p.block_outputs);
}

}  // namespace

AlongPlan plan_along(const AlongFacts& f, const ReducedDims& dims, const Operand& widened, const Operand* operands,
                     int count, const char* label) {
  AlongPlan p;
  p.device = f.device;
  if (f.device && (f.team_size < 1 || (f.team_size & (f.team_size - 1)) != 0))
    throw std::invalid_argument(std::string(label) + ": a team of " + std::to_string(f.team_size) +
                                " threads (a power of two is needed)");
  if (count < 1 || count > max_reduction_operands)
    throw std::invalid_argument("kstream: a reduction takes 1 to " + std::to_string(max_reduction_operands) + " views");
  p.outputs = 1;
  p.length = 1;
  for (int r = 0; r < widened.rank; ++r) (dims.has(r) ? p.length : p.outputs) *= widened.extents[r];
  if (p.outputs == 0) return p;  // nothing to write
  // Where an empty dimension leaves nothing to reduce, every output is the identity: the reduced dimensions are
  // set to one element (dropped by the normalization) and no element is read.
  Operand first = widened, rest[max_reduction_operands];
  for (int k = 0; k < count; ++k) rest[k] = operands[k];
  if (p.length == 0)
    for (int r = 0; r < widened.rank; ++r)
      if (dims.has(r)) {
        first.extents[r] = 1;
        for (int k = 0; k < count; ++k) rest[k].extents[r] = 1;
      }
  p.geometry = normalize(first, rest, count);
  Geometry& g = p.geometry;
  while (g.reduced < g.dims && g.stride(widened, g.reduced) == 0) ++g.reduced;
  // Outer where the first input runs along the innermost kept dimension more closely than along the reduced ones.
  const bool kept = g.reduced < g.dims;
  p.outer = kept && (g.reduced == 0 || g.stride(operands[0], g.reduced) < g.stride(operands[0], 0));
  if (f.device) {
    plan_device(f, p, operands[0].element_bytes);
    check_device_indices(p, widened, operands, count, label);
  } else {
    plan_host(p);
  }
  p.step_dim = p.outer && !f.device ? g.reduced : 0;
  p.league = p.blocks * p.slices;
  if (f.device && p.league > INT_MAX)
    throw std::length_error(std::string(label) + ": " + std::to_string(p.league) +
                            " teams: more than a TeamPolicy holds");
  return p;
}

RowPlan plan_rows(const RowFacts& f, const ReducedDims& dims, const Operand* operands, int count, int element_bytes,
                  int state_bytes, const char* label) {
  RowPlan p;
  Operand statistics = operands[1];
  p.slices = 1;
  p.length = 1;
  for (int r = 0; r < statistics.rank; ++r) {
    (dims.has(r) ? p.length : p.slices) *= statistics.extents[r];
    if (dims.has(r)) statistics.strides[r] = 0;
  }
  if (p.slices == 0 || p.length == 0) return p;  // nothing to write
  p.geometry = normalize(statistics, operands, count);
  Geometry& g = p.geometry;
  while (g.reduced < g.dims && g.stride(statistics, g.reduced) == 0) ++g.reduced;
  bool fits = p.slices <= INT32_MAX && (g.reduced <= 1 || p.length <= INT32_MAX);
  for (int d = g.reduced == 1 ? 1 : 0; d < g.dims; ++d) {
    fits = fits && g.extents[d] <= INT32_MAX;
    for (int k = 0; k < count; ++k) fits = fits && g.stride(operands[k], d) <= INT32_MAX;
  }
  if (!fits)
    throw std::length_error(std::string(label) + ": " + std::to_string(p.slices) + " slices of " +
                            std::to_string(p.length) +
                            " elements: a row operation takes fewer than 2^31 slices, kept extents and strides below "
                            "2^31, and (several reduced dimensions that do not merge) under 2^31 elements a slice");
  if (!f.device) {  // blocks of up to 16 slices, at least four a thread
    p.block = std::clamp<std::int64_t>(p.slices / (4 * std::int64_t(f.threads)), 1, 16);
    p.league = ceil_div(p.slices, p.block);
    bool unit = g.reduced == 1;
    for (int k = 0; k < count; ++k) unit = unit && g.stride(operands[k], 0) == 1;
    const std::int64_t bytes = p.slices * p.length * (operands[0].element_bytes + operands[1].element_bytes);
    p.streaming_stores = host_streams(operands[1], unit, operands[0].address == operands[1].address, bytes);
    return p;
  }
  // Outer: a warp's threads on as many adjacent slices, the team's others sharing their elements. Inner: about
  // row_rounds rounds of four 16-byte packs a thread (the kernel's loads in flight), no fewer than half a warp's
  // threads where one round needs more, a team of at least a warp (several short slices each).
  p.outer = g.reduced < g.dims && (g.reduced == 0 || g.stride(operands[0], g.reduced) < g.stride(operands[0], 0));
  int block = 1;
  if (p.outer) {
    block = power_of_two_at_least(g.extents[g.reduced], f.warp);
    p.team_size = f.team_max;
  } else {
    // per_round: the elements of a thread's round of row_in_flight packs
    const int cap = std::min(f.team_max, row_slice_lanes), per_round = row_in_flight * elements_per_pack(element_bytes);
    const int one_round = power_of_two_at_least(ceil_div(p.length, per_round), cap);
    // row_rounds a thread, the threads the nearest power of two in ratio: where the next one up would leave each
    // thread little more than one round, half as many take two and more (docs/engine.md)
    const double wanted = double(p.length) / (row_rounds * per_round);
    int lanes = power_of_two_at_least(ceil_div(p.length, row_rounds * per_round), cap);
    if (lanes > 1 && 2 * wanted * wanted < double(lanes) * lanes) lanes /= 2;
    p.lanes = std::max(std::min(one_round, std::max(1, f.warp / 2)), lanes);
    p.team_size = std::max(f.warp, p.lanes);
    block = p.team_size / p.lanes;
  }
  p.lanes = p.team_size / block;
  p.league = ceil_div(p.slices, block);
  const auto rounded = [](std::int64_t bytes) { return (bytes + 15) / 16 * 16; };
  const auto cache = [&](std::int64_t held) {  // the team's scratch for `held` elements a slice
    return rounded(block * row_cache_span(held, element_bytes) * element_bytes) + pack_bytes;
  };
  // turned: x's slices run along the kept dimension but out's along the reduced one (a transpose), whose stores
  // across a warp's slices each take a sector: the team's slices staged in a tile in scratch, stored along out's
  const std::int64_t tile = rounded(block * row_tile_pitch(p.lanes, operands[1].element_bytes) *
                                    operands[1].element_bytes) + pack_bytes;
  std::int64_t states = rounded(std::int64_t(p.team_size) * state_bytes);  // then a turned plan's tile
  p.turned = p.outer && g.reduced == 1 && g.stride(operands[1], 0) < g.stride(operands[1], 1) &&
             states + tile <= f.scratch_bytes;
  if (p.turned) states += tile;
  p.on_chip = cache(p.length) + states <= f.scratch_bytes;
  const int w = elements_per_pack(element_bytes);
  const bool packed = !p.outer && g.reduced == 1 && g.stride(operands[0], 0) == 1 && w > 1;  // x's slice adjacent
  if (p.on_chip) {
    p.held = p.length;
    p.copied = f.async_copies && packed && p.length * element_bytes >= row_copy_bytes;
  } else if (packed && block == 1) {
    // the first whole packs that fit stay on chip, the rest is read twice
    p.held = std::max<std::int64_t>(0, (f.scratch_bytes - states - 2 * pack_bytes) / pack_bytes) * w;
  }
  p.scratch_bytes = (p.held > 0 ? cache(p.held) : 0) + states;
  if (p.league > INT_MAX)
    throw std::length_error(std::string(label) + ": " + std::to_string(p.league) +
                            " teams: more than a TeamPolicy holds");
  return p;
}

}  // namespace kstream::impl

#pragma once
// The tile kernels of a reduction along dimensions (kstream/impl/reduce_plan.hpp decides how they run; reduce_along.hpp
// launches them). Device: a team per block of outputs and slice of their elements, each thread accumulating one
// output's share (or several short outputs') with loads in flight, then the team's lanes of each output folded in a
// fixed tree in team scratch. Host: a tile per block of outputs and slice, each output's elements in turn (inner), or a
// vector of adjacent outputs' accumulators along the inputs' rows (outer).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/reduce_fold.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <kstream/impl/reduce_step.hpp>
#include <kstream/tiling.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// The accumulated value as it is stored: unchanged.
struct KeepValue {
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a) const {
    return a;
  }
};

/// What every kernel of a reduction along dimensions shares: the reducer, the step, the final transform of an
/// output's value, how the work is shared, and where the outputs' values go (the result, or partial results).
template <class Acc, class Reducer, class Finish, class Step, class R>
struct AlongCommon {
  Reducer r;
  Finish finish;
  Step step;
  AlongLanes lanes;
  R* result;
  Acc* partials;

  AlongCommon(const Reducer& r_, const Finish& finish_, const Step& step_, const AlongPlan& p, R* result_,
              Acc* partials_)
      : r(r_), finish(finish_), step(step_), lanes(p.lanes()), result(result_), partials(partials_) {}

  /// Output o's value over slice `slice`, at `at` in the result.
  KOKKOS_INLINE_FUNCTION void store(std::int64_t o, std::int64_t slice, std::int64_t at, Acc value) const {
    if (lanes.slices == 1) {
      result[at] = from_accumulator<R>(finish(value));
    } else {
      partials[o * lanes.slices + slice] = value;
    }
  }
};

/// Device teams (AlongLanes::place): each thread accumulates its share of one output's slice, InFlight loads at
/// once; then the reduce_lanes values of each output are folded pairwise in a fixed tree in team scratch.
template <class ExecSpace, class Acc, class Reducer, class Finish, class Step, class R>
struct DeviceAlongTiles : AlongCommon<Acc, Reducer, Finish, Step, R> {
  static constexpr int K = Step::operands, InFlight = device_in_flight;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Seq = typename Step::Seq;
  using AlongCommon<Acc, Reducer, Finish, Step, R>::AlongCommon;
  /// Every dimension's coordinates in every operand and the result (last): an output's first element over the
  /// kept dimensions, an element's offset from it over the reduced ones. One table for both keeps the functor under
  /// the 512 bytes from which Kokkos 5.2's HIP graph nodes launch through a buffer in device memory, a path that
  /// does not compile (a recorded call).
  Coordinates<K + 1, max_rank> coordinates;
  int reduced = 1;  ///< reduced dimensions: [0, reduced); one (or none): the step's strides run along it

  /// Two launches, each a kernel with registers of its own: the plain one (one output a thread, at most one reduced
  /// dimension: the step's strides), and `Apart` (short outputs a thread owns several of, or several reduced
  /// dimensions), whose offsets of InFlight outputs or elements at once took more registers a thread and lowered
  /// the plain launch's occupancy when in the same kernel (docs/engine.md).
  struct Apart {};
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const { output_of_thread<false>(team); }
  KOKKOS_INLINE_FUNCTION void operator()(Apart, const member_type& team) const {
    if (this->lanes.thread_outputs > 1) return outputs_of_thread(team);
    output_of_thread<true>(team);
  }

  /// The thread's share of one output's slice, then the reduce_lanes threads of each output folded.
  template <bool Several>
  KOKKOS_INLINE_FUNCTION void output_of_thread(const member_type& team) const {
    const AlongLanes::Place at = this->lanes.place(team.league_rank(), team.team_rank());
    const bool mine = at.output < this->lanes.outputs;
    std::int64_t base[K + 1] = {};
    if (mine) coordinates.offsets(std::uint32_t(at.output), reduced, coordinates.dims, base);
    Acc value = mine ? thread_value<Several>(base, at) : this->r.template identity<Acc>();
    const int lanes = this->lanes.reduce_lanes;
    if (lanes > 1) value = fold_team_lanes<ExecSpace>(team, this->r, value, at.block_output, at.lane, lanes);
    if (at.lane == 0 && mine) this->store(at.output, at.slice, base[K], value);
  }

  /// `from` moved by offset (offsets in every operand, then the result's, which is not the step's).
  KOKKOS_INLINE_FUNCTION static Step moved(const Step& from, const std::int64_t (&offset)[K + 1]) {
    std::int64_t by[K];
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < K; ++k) by[k] = offset[k];
    return from.from(by);
  }

  /// Short outputs a thread owns whole (AlongLanes::thread_outputs; one slice, at most one reduced dimension):
  /// at.output, at.output + team size, ..., InFlight of them at a time, one element of each loaded together.
  KOKKOS_INLINE_FUNCTION void outputs_of_thread(const member_type& team) const {
    const AlongLanes::Place at = this->lanes.place(team.league_rank(), team.team_rank());
    const int width = team.team_size();
    for (int g = 0; g < this->lanes.thread_outputs; g += InFlight) {
      std::int64_t first[InFlight][K + 1] = {};
      bool mine[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s) {
        const std::int64_t o = at.output + std::int64_t(g + s) * width;
        mine[s] = g + s < this->lanes.thread_outputs && o < this->lanes.outputs;
        if (mine[s]) coordinates.offsets(std::uint32_t(o), reduced, coordinates.dims, first[s]);
      }
      Acc acc[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s) acc[s] = this->r.template identity<Acc>();
      for (std::int64_t j = at.first; j < at.last; ++j) {
        typename Step::Elements loaded[InFlight] = {};  // (read only where mine)
        KSTREAM_DEVICE_UNROLL
        for (int s = 0; s < InFlight; ++s)
          if (mine[s]) loaded[s] = moved(this->step, first[s]).load(j, Seq{});
        KSTREAM_DEVICE_UNROLL
        for (int s = 0; s < InFlight; ++s)
          if (mine[s]) acc[s] = this->r(acc[s], moved(this->step, first[s]).template element<Acc>(j, loaded[s], Seq{}));
      }
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s)
        if (mine[s]) this->store(at.output + std::int64_t(g + s) * width, at.slice, first[s][K], acc[s]);
    }
  }

  /// This thread's elements of its output: at.first, at.first + reduce_lanes, ... below at.last; along the step's
  /// strides (one reduced dimension) InFlight loads at once, else each element's offsets from its coordinates over
  /// the reduced dimensions, one at a time (the plain launch: every plan) or (Several) InFlight at once.
  template <bool Several>
  KOKKOS_INLINE_FUNCTION Acc thread_value(const std::int64_t (&base)[K + 1], const AlongLanes::Place& at) const {
    const Step here = moved(this->step, base);
    const std::int64_t by = this->lanes.reduce_lanes, last = at.last;
    Acc acc[InFlight];
    KSTREAM_DEVICE_UNROLL
    for (int s = 0; s < InFlight; ++s) acc[s] = this->r.template identity<Acc>();
    std::int64_t j = at.first;
    if (reduced <= 1) {
      for (; j + (InFlight - 1) * by < last; j += InFlight * by) {
        typename Step::Elements loaded[InFlight];
        KSTREAM_DEVICE_UNROLL
        for (int s = 0; s < InFlight; ++s) loaded[s] = here.load(j + s * by, Seq{});
        KSTREAM_DEVICE_UNROLL
        for (int s = 0; s < InFlight; ++s)
          acc[s] = this->r(acc[s], here.template element<Acc>(j + s * by, loaded[s], Seq{}));
      }
      for (; j < last; j += by) acc[0] = this->r(acc[0], here.template element<Acc>(j, here.load(j, Seq{}), Seq{}));
    } else {
      if constexpr (Several) {
        for (; j + (InFlight - 1) * by < last; j += InFlight * by) {
          std::int64_t offset[InFlight][K + 1];
          typename Step::Elements loaded[InFlight];
          KSTREAM_DEVICE_UNROLL
          for (int s = 0; s < InFlight; ++s) coordinates.offsets(std::uint32_t(j + s * by), 0, reduced, offset[s]);
          KSTREAM_DEVICE_UNROLL
          for (int s = 0; s < InFlight; ++s) loaded[s] = moved(here, offset[s]).load(0, Seq{});
          KSTREAM_DEVICE_UNROLL
          for (int s = 0; s < InFlight; ++s)
            acc[s] = this->r(acc[s], moved(here, offset[s]).template element<Acc>(0, loaded[s], Seq{}));
        }
      }
      for (; j < last; j += by) {
        std::int64_t offset[K + 1];
        coordinates.offsets(std::uint32_t(j), 0, reduced, offset);
        const Step element = moved(here, offset);
        acc[0] = this->r(acc[0], element.template element<Acc>(0, element.load(0, Seq{}), Seq{}));
      }
    }
    Acc total = acc[0];
    KSTREAM_DEVICE_UNROLL
    for (int s = 1; s < InFlight; ++s) total = this->r(total, acc[s]);
    return total;
  }
};

/// The host's outer runs (AlongLanes::outer: the step's strides run along the innermost kept dimension): every
/// element of a tile's slice into a vector of adjacent outputs' accumulators. `kept` walks the outputs (every operand
/// and the result), `across` a slice's elements (the inputs).
template <class Acc, class Reducer, class Finish, class Step, class R>
struct HostOuterRuns : AlongCommon<Acc, Reducer, Finish, Step, R> {
  static constexpr int K = Step::operands;
  using Seq = typename Step::Seq;
  using AlongCommon<Acc, Reducer, Finish, Step, R>::AlongCommon;
  Strides<K + 1> kept;
  Strides<K> across;

  /// Outputs o, ..., o + count - 1 (adjacent along the innermost kept dimension, at `offset`) over [start, end):
  /// each element of the slice into their vector of accumulators. Rows of count adjacent elements that follow each
  /// other (a dense LayoutRight n x count, count <= dense_lanes) are one run of lanes: dense_lanes accumulators, a
  /// whole number of rows wide, each lane's sum folded into its output in lane order.
  void outer_run(const Step& local, const std::int64_t (&offset)[K + 1], std::int64_t count, std::int64_t o,
                 const AlongLanes::Tile& tile) const {
    Acc acc[along_host_outputs];
    for (std::int64_t a = 0; a < count; ++a) acc[a] = this->r.template identity<Acc>();
    std::int64_t first_of[K];
    for (int k = 0; k < K; ++k) first_of[k] = offset[k];
    const Step outputs = local.from(first_of);
    const bool unit = outputs.unit_inputs(Seq{});
    bool dense = !Step::writes && unit && across.dims == 1 && count <= dense_lanes;
    for (int k = 0; k < K && dense; ++k) dense = across.stride[k][0] == count;
    if (dense) {
      std::int64_t at[K];
      for (int k = 0; k < K; ++k) at[k] = tile.first * count;
      dense_rows(outputs.from(at), count, (tile.last - tile.first) * count, acc);
    } else {
      const auto rows = [&](auto unit_inputs) {
        constexpr bool U = decltype(unit_inputs)::value;
        walk_runs(across, tile.first, tile.last, [&](const std::int64_t(&run)[K], std::int64_t length) {
          const auto row = [&](std::int64_t i) {
            std::int64_t at[K];
            for (int k = 0; k < K; ++k) at[k] = run[k] + i * across.stride[k][0];
            return outputs.from(at);
          };
          const auto value = [&](const Step& from, std::int64_t a) {
            return from.template element<Acc>(a, from.template load_at<U>(a, Seq{}), Seq{});
          };
          std::int64_t i = 0;
          const auto pass = [&](auto rows_a_pass) {  // P rows a pass: each accumulator read and written once
            constexpr int P = decltype(rows_a_pass)::value;
            const auto rows_from = [&]<std::size_t... Q>(std::index_sequence<Q...>) {
              return std::array<Step, P>{row(i + std::int64_t(Q))...};
            };
            for (; i + P <= length; i += P) {
              const std::array<Step, P> in = rows_from(std::make_index_sequence<P>{});
              for (std::int64_t a = 0; a < count; ++a) {
                Acc v = acc[a];
                for (int q = 0; q < P; ++q) v = this->r(v, value(in[q], a));
                acc[a] = v;
              }
            }
          };
          // Eight rows a pass of one operand, four of more: rows 4 KB apart share an L1 set (eight ways).
          constexpr int first = K == 1 ? 8 : 4;
          pass(std::integral_constant<int, first>{});
          pass(std::integral_constant<int, 4>{});
          pass(std::integral_constant<int, 1>{});
        });
      };
      if (unit) {
        rows(std::true_type{});
      } else {
        rows(std::false_type{});
      }
    }
    for (std::int64_t a = 0; a < count; ++a)
      this->store(o + a, tile.slice, offset[K] + a * kept.stride[K][0], acc[a]);
  }

  static constexpr int dense_lanes = 64;
  /// `total` contiguous elements of rows of `count` (the outputs) from `rows`, into acc[0, count).
  void dense_rows(const Step& rows, std::int64_t count, std::int64_t total, Acc* acc) const {
    Acc lane[dense_lanes];
    const std::int64_t width = count * (dense_lanes / count);  // whole rows
    for (std::int64_t l = 0; l < width; ++l) lane[l] = this->r.template identity<Acc>();
    std::int64_t i = 0;
    for (; i + width <= total; i += width)
      for (std::int64_t l = 0; l < width; ++l)
        lane[l] = this->r(lane[l], rows.template element<Acc>(i + l, rows.template load_at<true>(i + l, Seq{}), Seq{}));
    for (std::int64_t l = 0; i < total; ++i, ++l)
      lane[l] = this->r(lane[l], rows.template element<Acc>(i, rows.template load_at<true>(i, Seq{}), Seq{}));
    for (std::int64_t l = 0; l < width; ++l) acc[l % count] = this->r(acc[l % count], lane[l]);
  }
};

/// Host tiles: tile t holds outputs [block * block_outputs, ...) of block t / slices over slice t % slices, walked
/// along the kept dimensions (walk_runs): each output's elements in turn with Lanes interleaved accumulators
/// (inner), or the outer runs of the base.
template <class Acc, class Reducer, class Finish, class Step, class R>
struct HostAlongTiles : HostOuterRuns<Acc, Reducer, Finish, Step, R> {
  static constexpr int K = Step::operands, Lanes = 8;
  using Seq = typename Step::Seq;
  using HostOuterRuns<Acc, Reducer, Finish, Step, R>::HostOuterRuns;
  using HostOuterRuns<Acc, Reducer, Finish, Step, R>::kept;
  using HostOuterRuns<Acc, Reducer, Finish, Step, R>::across;

  void operator()(std::int64_t t) const {
    const Step local(this->step);  // a local copy: stores through a fused output cannot alias it
    const AlongLanes::Tile at = this->lanes.tile(t);
    std::int64_t o = at.first_output;
    walk_runs(kept, at.first_output, at.last_output, [&](const std::int64_t(&offset)[K + 1], std::int64_t count) {
      if (this->lanes.outer) {
        this->outer_run(local, offset, count, o, at);
      } else if (!dense_run(local, offset, count, at)) {
        for (std::int64_t a = 0; a < count; ++a) {
          std::int64_t first_of[K];
          for (int k = 0; k < K; ++k) first_of[k] = offset[k] + a * kept.stride[k][0];
          this->store(o + a, at.slice, offset[K] + a * kept.stride[K][0], inner_value(local, first_of, at));
        }
      }
      o += count;
    });
  }

  /// `count` outputs at `offset` whose short rows of elements follow each other in every input (a dense LayoutRight
  /// view reduced along its one short dimension), whole (one slice), one accumulator each, written to the result:
  /// false where they are not such rows (run_value takes them; from 4 x Lanes elements a row its Lanes accumulators
  /// are faster). Rows of 2, 3 and 4 elements take loops of that length known to the compiler, which vectorizes them
  /// across outputs (rows of 8 ran slower so: they stay in the general loop; docs/engine.md).
  bool dense_run(const Step& local, const std::int64_t (&offset)[K + 1], std::int64_t count,
                 const AlongLanes::Tile& tile) const {
    const std::int64_t length = tile.last - tile.first;
    if (Step::writes || across.dims != 1 || length != this->lanes.length || length >= 4 * Lanes) return false;
    for (int k = 0; k < K; ++k)
      if (across.stride[k][0] != 1 || kept.stride[k][0] != length) return false;
    std::int64_t first_of[K];
    for (int k = 0; k < K; ++k) first_of[k] = offset[k];
    const Step rows = local.from(first_of);
    R* const out = this->result + offset[K];  // (not store(): its branch and members cost each output)
    const std::int64_t by = kept.stride[K][0];
    const auto outputs = [&](auto fixed) {  // fixed: the row's length where known at compile time, else 0
      constexpr std::int64_t L = decltype(fixed)::value;
      const std::int64_t n = L > 0 ? L : length;
      for (std::int64_t a = 0; a < count; ++a) {
        Acc value = this->r.template identity<Acc>();
        for (std::int64_t j = a * n; j < (a + 1) * n; ++j)
          value = this->r(value, rows.template element<Acc>(j, rows.template load_at<true>(j, Seq{}), Seq{}));
        out[a * by] = from_accumulator<R>(this->finish(value));
      }
    };
    if (length == 2) {
      outputs(std::integral_constant<std::int64_t, 2>{});
    } else if (length == 3) {
      outputs(std::integral_constant<std::int64_t, 3>{});
    } else if (length == 4) {
      outputs(std::integral_constant<std::int64_t, 4>{});
    } else {
      outputs(std::integral_constant<std::int64_t, 0>{});
    }
    return true;
  }

  /// One output's elements [tile.first, tile.last), its first element at `at`.
  Acc inner_value(const Step& local, const std::int64_t (&at)[K], const AlongLanes::Tile& tile) const {
    const Step output = local.from(at);
    if (across.dims == 1) {  // one reduced dimension: the step's strides run along it
      std::int64_t offset[K];
      for (int k = 0; k < K; ++k) offset[k] = tile.first * across.stride[k][0];
      const Step row = output.from(offset);
      return row.unit_inputs(Seq{}) ? run_value<true>(row, tile.last - tile.first)
                                    : run_value<false>(row, tile.last - tile.first);
    }
    Acc total = this->r.template identity<Acc>();
    walk_runs(across, tile.first, tile.last, [&](const std::int64_t(&offset)[K], std::int64_t length) {
      total = this->r(total, run_value<false>(output.from(offset), length));
    });
    return total;
  }

  /// The elements [0, length) of `row`: Lanes interleaved accumulators where the run is long, 32 where it is longer
  /// still, one where short. Elements narrower than a floating-point accumulator (floats summed in double) take 32
  /// from 128 elements: eight lanes are a vector chain of adds slower than memory brings them (docs/engine.md).
  template <bool Unit>
  Acc run_value(const Step& row, std::int64_t length) const {
    constexpr bool narrow = std::is_floating_point_v<Acc> && Step::element_bytes < int(sizeof(Acc));
    return length >= (narrow ? 128 : 32 * 32) ? run_lanes<Unit, 32>(row, length) : run_lanes<Unit, Lanes>(row, length);
  }
  template <bool Unit, int L>
  Acc run_lanes(const Step& row, std::int64_t length) const {
    Acc total = this->r.template identity<Acc>();
    std::int64_t i = 0;
    if (length >= 2 * L) {
      Acc acc[L];
      for (int l = 0; l < L; ++l) acc[l] = this->r.template identity<Acc>();
      for (; i + L <= length; i += L)
        for (int l = 0; l < L; ++l)
          acc[l] = this->r(acc[l], row.template element<Acc>(i + l, row.template load_at<Unit>(i + l, Seq{}), Seq{}));
      for (int w = L / 2; w > 0; w /= 2)  // a tree: a fold in lane order is a chain of L - 1 adds a run
        for (int l = 0; l < w; ++l) acc[l] = this->r(acc[l], acc[l + w]);
      total = acc[0];
    }
    for (; i < length; ++i)
      total = this->r(total, row.template element<Acc>(i, row.template load_at<Unit>(i, Seq{}), Seq{}));
    return total;
  }
};

}  // namespace kstream::impl

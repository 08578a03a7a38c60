#pragma once
// The reduction kernels behind kstream/reduce.hpp, over the normalized space of plan_reduction (kstream/impl/
// plan.hpp): rows of row_length elements (one row for views that normalize to one dimension). GPU: one team per
// chunk of a row, as the transforms' tiles, each thread accumulating its packs in registers, then the team. While
// every chunk has a team that runs at once (one_launch_teams), Kokkos' reduction over the teams of that one kernel
// gives the result; otherwise each chunk's team puts its value in a buffer of partial results that a second kernel
// folds (kstream/impl/reduce_fold.hpp: one team, or Kokkos' parallel_reduce over many). Host:
// fixed-length tiles of the flattened index, each one thread's eight interleaved accumulators (vectorized) along
// its rows, folded in tile order on one thread. No floating-point atomics, and the split depends only on the
// extents and layouts (and on the device, through Kokkos' reductions and the fold's team), so a result is the
// same bit for bit on every run on one machine. The last chunk's guard (i < row_length) is the Triton mask; a
// fused output is written in the same pass.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/instance_scratch.hpp>
#include <kstream/impl/sinks.hpp>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/reduce_fold.hpp>
#include <kstream/impl/reduce_step.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/tiling.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// Device teams (device_team_size, device_in_flight: kstream/impl/plan.hpp) are compiled for at most 64 registers
/// a thread (LaunchBounds of four teams: the kernels use 32-64). `Wide`: 80 (three teams) for rows with a fused
/// output, whose stores' row offsets in flight spill at 64, and for warps' units of rows, whose two rows' loads
/// and edges in flight spill at 64 (the dot's 72-80 bytes); two teams (128) hold fewer loads in flight.
template <class ExecSpace, bool Wide = false>
using DeviceReducePolicy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<device_team_size, Wide ? 3 : 4>>;
/// The one-launch reduction's teams (one_launch_teams), the same eager and recorded (so a replay gives the eager
/// call's bits): no launch bounds, which Kokkos 4.6's graph nodes do not compile for a team reduction.
template <class ExecSpace>
using DeviceOneLaunchPolicy = Kokkos::TeamPolicy<ExecSpace>;

/// Where a device reduction's rows start (RowStarts), how each is read (its items and edges), and the division by
/// a row's items for the cursor's steps; the warps' units (Units) apart, so that the other functors keep their size
/// (RowItems).
template <bool Rows, int K>
struct ReduceRows {
  RowStarts<K> starts;
  RowItems row;
  FastDivider rows_of;
};
template <int K>
struct ReduceRows<false, K> {};
template <bool Units>
struct ReduceUnits {
  RowUnits units;
};
template <>
struct ReduceUnits<false> {};

/// The loops of DeviceReduceTiles (below): a thread's items, packs, edges or warps' units of a chunk into its
/// InFlight accumulators.
template <class ExecSpace, class Acc, int W, class Reducer, class Step, bool Rows, bool Units>
struct DeviceReduceLoops : ReduceRows<Rows, Step::operands>, ReduceUnits<Units> {
  static constexpr int InFlight = device_in_flight;
  static constexpr int K = Step::operands;
  using Seq = typename Step::Seq;
  Reducer r;
  Step step;
  std::int64_t n;
  bool packed;
  std::int32_t passes = 1;  // passes of packs in flight a chunk holds (row_chunk_passes)
  Acc* partials;

  DeviceReduceLoops(const Reducer& r_, const Step& step_, std::int64_t n_, bool packed_, Acc* partials_)
      : r(r_), step(step_), n(n_), packed(packed_), partials(partials_) {}

  /// Items (V elements: a pack, or one) [first, last) / V of the flattened rows into this thread's accumulators,
  /// the team's threads on consecutive items, each `threads` items on; every load in flight issued before any is
  /// reduced (or stored: a fused output may alias an input).
  template <int V>
  KOKKOS_INLINE_FUNCTION void accumulate_rows(std::int64_t first, std::int64_t last, int rank, int threads,
                                              Acc (&acc)[InFlight]) const {
    std::int64_t item = first / V + rank;
    const std::int64_t end = last / V;
    if (item >= end) return;
    const std::int64_t lead = this->row.lead;
    RowCursor<K> cursor(this->starts, this->row.items, item);
    for (; item + (InFlight - 1) * threads < end; item += InFlight * threads) {
      std::int64_t offset[InFlight][K];
      typename Step::template Packs<V> loaded[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s) {
        step.along(cursor.base, lead + cursor.at * V, offset[s]);
        loaded[s] = step.from(offset[s]).template load_pack<V>(0, Seq{});
        cursor.advance(this->starts, this->rows_of, threads);
      }
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s)
        acc[s] = step.from(offset[s]).template pack<Acc, V>(0, loaded[s], r, acc[s], Seq{});
    }
    for (; item < end; item += threads) {
      std::int64_t offset[K];
      step.along(cursor.base, lead + cursor.at * V, offset);
      const Step here = step.from(offset);
      acc[0] = here.template pack<Acc, V>(0, here.template load_pack<V>(0, Seq{}), r, acc[0], Seq{});
      cursor.advance(this->starts, this->rows_of, threads);
    }
  }

  /// Units [first, last) of chunk `chunk` (RowUnits), one a warp at a time: lane l reads packs l and 32 + l of the
  /// unit in both its rows, and with a row's first unit element l of each row's edges, all in flight at once.
  KOKKOS_INLINE_FUNCTION void accumulate_units(std::int64_t chunk, int rank, int threads, Acc (&acc)[InFlight]) const {
    static_assert(InFlight == 4 && device_row_unit_packs == 2 * device_row_lanes, "two rows, two loads each");
    constexpr int lanes = device_row_lanes;
    const RowItems& e = this->row;
    const int lane = rank % lanes, packs = int(e.items);
    const std::int64_t first = chunk * device_row_units_per_chunk;
    const std::int64_t last = first + device_row_units_per_chunk < n ? first + device_row_units_per_chunk : n;
    const bool edge_lane = lane < e.edges;
    const std::int64_t column = e.column(lane) - e.lead;  // from the row's first pack
    for (std::int64_t u = first + rank / lanes; u < last; u += threads / lanes) {
      const RowUnits::Unit unit = this->units.at(std::uint32_t(u));
      Step body[2] = {step, step};  // each row from its first pack
      KSTREAM_DEVICE_UNROLL
      for (int j = 0; j < 2; ++j) {
        std::int64_t base[K], offset[K];
        this->starts.offsets(unit.row + (j == 1 && unit.two ? 1 : 0), base);
        step.along(base, e.lead, offset);
        body[j] = step.from(offset);
      }
      const auto in_unit = [&](int s) { return unit.pack + (s & 1) * lanes + lane < packs && (s < 2 || unit.two); };
      const auto in_edges = [&](int j) { return unit.pack == 0 && edge_lane && (j == 0 || unit.two); };
      typename Step::template Packs<W> loaded[InFlight];
      typename Step::Elements edge[2];
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s)
        if (in_unit(s)) loaded[s] = body[s >> 1].template load_pack<W>(unit.pack + (s & 1) * lanes + lane, Seq{});
      KSTREAM_DEVICE_UNROLL
      for (int j = 0; j < 2; ++j)
        if (in_edges(j)) edge[j] = body[j].load(column, Seq{});
      KSTREAM_DEVICE_UNROLL
      for (int s = 0; s < InFlight; ++s)
        if (in_unit(s))
          acc[s] = body[s >> 1].template pack<Acc, W>(unit.pack + (s & 1) * lanes + lane, loaded[s], r, acc[s], Seq{});
      KSTREAM_DEVICE_UNROLL
      for (int j = 0; j < 2; ++j)
        if (in_edges(j)) acc[j] = r(acc[j], body[j].template element<Acc>(column, edge[j], Seq{}));
    }
  }

  /// The edges of the rows whose first pack lies in packs [first, last) of the rows', one element per thread.
  KOKKOS_INLINE_FUNCTION void accumulate_edges(std::int64_t first, std::int64_t last, int rank, int threads,
                                               Acc& acc) const {
    const RowItems& e = this->row;
    if (e.edges == 0) return;
    const std::int64_t from = e.row_from(first), count = (e.row_from(last) - from) * e.edges;
    for (std::int64_t j = rank; j < count; j += threads) {  // count < 2^31: the chunk's rows, a few edges each
      const auto in_row = std::uint32_t(j) / std::uint32_t(e.edges);
      std::int64_t base[K], offset[K];
      this->starts.offsets(std::uint32_t(from + in_row), base);
      step.along(base, e.column(j - std::int64_t(in_row) * e.edges), offset);
      const Step here = step.from(offset);
      acc = r(acc, here.template element<Acc>(0, here.load(0, Seq{}), Seq{}));
    }
  }

  /// Elements [first, last) into this thread's accumulators.
  KOKKOS_INLINE_FUNCTION void accumulate(const Step& step, std::int64_t first, std::int64_t last, int rank, int threads,
                                         Acc (&acc)[InFlight]) const {
    std::int64_t tail = first;  // elements from here on go one by one
    if (packed) {
      const std::int64_t p_last = last / W;  // only the last chunk has a partial pack
      std::int64_t p = first / W + rank;
      // Every pack in flight is loaded before any is reduced (or stored: a fused output may alias an input).
      for (; p + (InFlight - 1) * threads < p_last; p += InFlight * threads) {
        typename Step::template Packs<W> loaded[InFlight];
        KSTREAM_DEVICE_UNROLL
        for (int k = 0; k < InFlight; ++k) loaded[k] = step.template load_pack<W>(p + k * threads, Seq{});
        KSTREAM_DEVICE_UNROLL
        for (int k = 0; k < InFlight; ++k)
          acc[k] = step.template pack<Acc, W>(p + k * threads, loaded[k], r, acc[k], Seq{});
      }
      for (; p < p_last; p += threads)
        acc[0] = step.template pack<Acc, W>(p, step.template load_pack<W>(p, Seq{}), r, acc[0], Seq{});
      tail = p_last * W;
    }
    std::int64_t i = tail + rank;
    for (; i + (InFlight - 1) * threads < last; i += InFlight * threads) {
      typename Step::Elements loaded[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int k = 0; k < InFlight; ++k) loaded[k] = step.load(i + k * threads, Seq{});
      KSTREAM_DEVICE_UNROLL
      for (int k = 0; k < InFlight; ++k)
        acc[k] = r(acc[k], step.template element<Acc>(i + k * threads, loaded[k], Seq{}));
    }
    for (; i < last; i += threads) acc[0] = r(acc[0], step.template element<Acc>(i, step.load(i, Seq{}), Seq{}));
  }
};

/// Device tiles: team t reduces chunk t (elements [t * c, (t + 1) * c) up to n, c = device_chunk_items) with InFlight
/// accumulators per thread into partials[t] (two launches), or chunks t, t + league, ... into Kokkos' reduction
/// (one launch), reading 16-byte packs of W elements where every operand allows (`packed`), single elements
/// otherwise. With Rows the chunk is one of the flattened rows' items (n counts their elements): each thread keeps
/// a cursor on its row, the row's start in each operand from its coordinates, moved on as the thread's items cross
/// into the next rows. Rows of packs: the items are the rows' whole packs, and the team then reads the edges of the
/// rows whose first pack its chunk holds, in a loop of their own (the loop of packs in flight stays free of
/// branches and of their registers). `Units` (rows of packs, two launches): chunk t is units [t * u, (t + 1) * u)
/// (u = device_row_units_per_chunk, n counts the units), each warp's (accumulate_units).
template <class ExecSpace, class Acc, int W, class Reducer, class Step, bool Rows, bool Units = false>
struct DeviceReduceTiles : DeviceReduceLoops<ExecSpace, Acc, W, Reducer, Step, Rows, Units> {
  using Loops = DeviceReduceLoops<ExecSpace, Acc, W, Reducer, Step, Rows, Units>;
  using Loops::Loops;
  using Loops::InFlight;
  using Loops::n;
  using Loops::packed;
  using Loops::partials;
  using Loops::passes;
  using Loops::r;
  using Loops::step;
  static constexpr bool wide = Rows && (Step::writes || Units);  // two-launch kernel's bounds (DeviceReducePolicy)
  using member_type = typename DeviceReducePolicy<ExecSpace>::member_type;

  /// Two launches: the team's value into partials[team], folded by the next kernel.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    Acc mine = thread_value(team, team.league_rank());
    team.team_reduce(KokkosReducer<Reducer, Acc, Kokkos::HostSpace>(r, mine));  // (a scalar, as Kokkos::Sum)
    if (team.team_rank() == 0) partials[team.league_rank()] = mine;
  }
  /// One launch (one_launch_teams): each thread's value of its team's chunk into Kokkos' reduction over the
  /// threads and teams, whose order is fixed for a given league and device.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, Acc& value) const {
    value = r(value, thread_value(team, team.league_rank()));
  }

  /// This thread's share of chunk `chunk`.
  KOKKOS_INLINE_FUNCTION Acc thread_value(const member_type& team, std::int64_t chunk) const {
    Acc acc[InFlight];
    KSTREAM_DEVICE_UNROLL
    for (int k = 0; k < InFlight; ++k) acc[k] = r.template identity<Acc>();
    const std::int64_t items = device_chunk_items(W, passes);
    const std::int64_t first = chunk * items;
    const std::int64_t last = first + items < n ? first + items : n;
    if constexpr (Units) {
      this->accumulate_units(chunk, team.team_rank(), team.team_size(), acc);
    } else if constexpr (Rows) {
      if (packed) {
        this->template accumulate_rows<W>(first, last, team.team_rank(), team.team_size(), acc);
        this->accumulate_edges(first / W, last / W, team.team_rank(), team.team_size(), acc[0]);
      } else {
        this->template accumulate_rows<1>(first, last, team.team_rank(), team.team_size(), acc);
      }
    } else {
      this->accumulate(step, first, last, team.team_rank(), team.team_size(), acc);
    }
    Acc mine = acc[0];
    KSTREAM_DEVICE_UNROLL
    for (int k = 1; k < InFlight; ++k) mine = r(mine, acc[k]);
    return mine;
  }
};

/// Host tiles: one thread reduces tile t of the flattened index into partials(t) along its rows, each row with
/// Lanes interleaved accumulators (enough independent vector chains that float to double adds keep up with memory:
/// docs/engine.md).
template <class Acc, class Reducer, class Step>
struct HostReduceTiles {
  static constexpr int Lanes = 32;
  using Seq = typename Step::Seq;
  Reducer r;
  Step step;
  Strides<Step::operands> strides;
  std::int64_t n, tile_items;
  Acc* partials;

  void operator()(std::int64_t tile) const {
    const Step local(step);  // a local copy: stores through a fused output cannot alias it
    const std::int64_t first = tile * tile_items, last = std::min(first + tile_items, n);
    Acc acc[Lanes];
    for (int l = 0; l < Lanes; ++l) acc[l] = r.template identity<Acc>();
    walk_runs(strides, first, last, [&](const std::int64_t(&offset)[Step::operands], std::int64_t length) {
      const Step row = local.from(offset);
      std::int64_t i = 0;
      for (; i + Lanes <= length; i += Lanes)
        for (int l = 0; l < Lanes; ++l)
          acc[l] = r(acc[l], row.template element<Acc>(i + l, row.load(i + l, Seq{}), Seq{}));
      for (int l = 0; i < length; ++i, ++l) acc[l] = r(acc[l], row.template element<Acc>(i, row.load(i, Seq{}), Seq{}));
    });
    Acc total = acc[0];
    for (int l = 1; l < Lanes; ++l) total = r(total, acc[l]);
    partials[tile] = total;
  }
};

/// Elements per host tile: a fixed length, so the partials do not depend on the thread count.
inline constexpr std::int64_t host_tile_items = 16384;

/// Reduces `step` over the plan's elements into `result`, through `sink` (run now, or recorded): a rank-0 view in
/// exec's memory (of Acc, or of another type: the accumulated value converted once), or (run now only) an Acc* on
/// the host that holds the value when this returns. `operands`: the step's operands (inputs, then the output).
template <class ExecSpace, class Acc, int W, class Sink, class Reducer, class Step, class Result>
void reduce_tiles(const Sink& sink, const char* label, const ExecSpace& exec, const Reducer& r, const Step& step,
                  const ReducePlan& rp, const Operand* const (&operands)[Step::operands], const Result& result) {
  constexpr bool now = std::is_same_v<Sink, LaunchNow>;
  constexpr bool to_host = std::is_same_v<Result, Acc*>;
  static_assert(now || !to_host, "a recorded reduction goes into a view");
  constexpr bool convert = !std::is_same_v<typename result_value<Result, Acc>::type, Acc>;
  if constexpr (is_device_execution_space_v<ExecSpace>) {
    using Space = typename ExecSpace::memory_space;
    const DeviceReduction how = device_reduction(rp, W, exec.concurrency());
    const bool rows = rp.rows > 1;  // each row read as `row`: its whole packs (its edges go with them), or elements
    const RowItems row = how.packed ? RowItems(rp.row_lead, W, rp.row_length) : RowItems(0, 1, rp.row_length);
    const std::int64_t chunks = how.chunks, teams = how.teams;
    if (chunks > INT32_MAX || (rows && !rp.narrow_rows))
      throw std::length_error(std::string(label) + ": " + std::to_string(rp.rows) + " rows of " +
                              std::to_string(rp.row_length) +
                              " elements: a device reduction takes fewer than 2^31 chunks, and rows whose extents "
                              "and strides stay below 2^31");
    const bool one_launch = teams > 0;
    const std::int64_t kept = one_launch ? 0 : chunks;  // partials the fold reads
    // The tiles (rows, or one row) writing their partial results (two launches) to `partials`, handed to use();
    // warps' units of rows only in two launches (two_launches: std::true_type).
    const auto with_tiles = [&](Acc* partials, auto two_launches, const auto& use) {
      if (!rows)
        return use(DeviceReduceTiles<ExecSpace, Acc, W, Reducer, Step, false>(r, step, rp.n, how.packed, partials));
      const auto of_rows = [&](auto tiles) {
        tiles.starts = RowStarts<Step::operands>(rp.geometry, operands, 1);
        tiles.row = row;
        tiles.rows_of = rows_divider(row.items, device_team_size);
        tiles.passes = how.passes;
        return use(tiles);
      };
      if constexpr (decltype(two_launches)::value)
        if (how.row_units > 0) {
          DeviceReduceTiles<ExecSpace, Acc, W, Reducer, Step, true, true> units(r, step, how.row_units, how.packed,
                                                                                partials);
          units.units = RowUnits(rp.rows, row.items);
          return of_rows(units);
        }
      return of_rows(
          DeviceReduceTiles<ExecSpace, Acc, W, Reducer, Step, true>(r, step, how.covered, how.packed, partials));
    };
    // partials[0, kept), then (converting, or two launches to the host) a slot for the value
    const auto launch = [&](Acc* partials) {
      // The reduction of `functor` over `policy` into the result: the tiles' own (one launch) or Kokkos' fold.
      const auto reduce_into = [&](const char* name, const auto& policy, const auto& functor) {
        if constexpr (to_host) {
          sink.reduce(name, policy, functor, KokkosReducer<Reducer, Acc, Kokkos::HostSpace>(r, *result));
        } else {
          using Into = KokkosReducer<Reducer, Acc, Space>;
          Acc* into = nullptr;
          if constexpr (convert) {
            into = partials + kept;
          } else {
            into = result.data();
          }
          sink.reduce(name, policy, functor, Into(r, typename Into::result_view_type(into)));
          if constexpr (convert)
            sink("kstream::reduce[convert]", Kokkos::RangePolicy<ExecSpace>(exec, 0, 1),
                 ConvertResult<Acc, Result>{into, result});
        }
      };
      if (one_launch)
        return with_tiles(partials, std::false_type{}, [&](const auto& tiles) {
          reduce_into(label, DeviceOneLaunchPolicy<ExecSpace>(exec, int(teams), device_team_size), tiles);
        });
      with_tiles(partials, std::true_type{}, [&](const auto& tiles) {  // a team per chunk into partials[chunk]
        using Tiles = std::decay_t<decltype(tiles)>;
        sink(label, DeviceReducePolicy<ExecSpace, Tiles::wide>(exec, int(chunks), device_team_size), tiles);
      });
      if (!how.one_team_fold) {
        using Fold = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
        return reduce_into("kstream::reduce[fold]", Fold(exec, 0, chunks),
                           FoldDevicePartials<Acc, Reducer>{r, partials});
      }
      const auto fold = [&](const auto& into) {  // one team
        const FoldPartialsInOneTeam<ExecSpace, Acc, Reducer, std::decay_t<decltype(into)>> functor{r, partials, chunks,
                                                                                                   into};
        const int threads =
            std::min(device_fold_threads,
                     Kokkos::TeamPolicy<ExecSpace>(exec, 1, 1).team_size_max(functor, Kokkos::ParallelForTag()));
        sink("kstream::reduce[fold]", Kokkos::TeamPolicy<ExecSpace>(exec, 1, threads), functor);
      };
      if constexpr (to_host) {
        fold(partials + kept);
        Kokkos::deep_copy(exec, Kokkos::View<Acc, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(result),
                          Kokkos::View<const Acc, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(partials + kept));
        exec.fence("kstream: a reduction's value for the host");
      } else {
        fold(result);
      }
    };
    const std::int64_t slots = std::max<std::int64_t>(1, kept + (convert || to_host ? 1 : 0));
    if constexpr (now) {
      with_instance_scratch(exec, std::size_t(slots) * sizeof(Acc), [&](void* p) { launch(static_cast<Acc*>(p)); });
    } else {  // a recording keeps its own partials: it may be replayed on another instance
      Kokkos::View<Acc*, Space> partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kstream::partials"), slots);
      sink.keep(partials);
      launch(partials.data());
    }
  } else {
    const std::int64_t tiles = std::max<std::int64_t>(1, (rp.n + host_tile_items - 1) / host_tile_items);
    Kokkos::View<Acc*, Kokkos::HostSpace> partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kstream::partials"),
                                                   tiles);
    const HostReduceTiles<Acc, Reducer, Step> body{
        r, step, Strides<Step::operands>(rp.geometry, operands), rp.n, host_tile_items, partials.data()};
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>> policy(exec, 0, tiles);
    if constexpr (now) {
      Kokkos::parallel_for(label, policy, body);
      exec.fence();  // host backends ran the tiles already; the fold is the calling thread's
      const Acc total = fold(r, partials.data(), tiles);
      if constexpr (to_host) {
        *result = total;
      } else {
        result() = from_accumulator<typename Result::value_type>(total);
      }
    } else {
      sink.keep(partials);
      sink(label, policy, body);
      sink("kstream::reduce[fold]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, 1),
           FoldPartials<Acc, Reducer, Result>{r, partials.data(), tiles, result});
    }
  }
}

}  // namespace kstream::impl

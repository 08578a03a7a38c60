#pragma once
// The kernel of the row operations (kstream/rows.hpp): for each slice (the elements that share the kept
// dimensions' indices), statistics over its elements, then out = op(x, statistics, parameters) over them.
//
//   plan (plan_rows in src/reduce_plan.cpp)             runs
//   host, every operand's slice adjacent in memory       a block of adjacent slices a thread: slice s written
//                                                        while slice s + 1 is read, a piece of each in turn
//                                                        (adjacent_slices, kstream/impl/row_host.hpp)
//   host, otherwise                                      a slice at a time, one element at a time
//   device, x's unit stride along the kept dimensions     outer: a warp's threads on adjacent slices, the team's
//     (below its stride along the reduced ones)            others sharing their elements; two reads (turned: out's
//                                                        slices adjacent instead, staged in tiles in team scratch
//                                                        and stored along them: a kernel of its own)
//   device, the slice fits in team scratch               on chip: a team per slice; pass 1 reads each element
//                                                        from memory into scratch, pass 2 reads scratch: one read
//                                                        (CUDA, slices of row_copy_bytes: x's packs copied into
//                                                        scratch at once by cp.async, then folded from there)
//   device, otherwise                                    a team per slice, two reads (the second mostly from L2);
//                                                        where x's slice is adjacent, its first whole packs that
//                                                        fit stay in scratch (Partial: a kernel of its own)
//   (device, a slice adjacent in x: 16-byte packs of x, up to four a thread in flight, the elements before the
//   first whole pack and after the last one at a time; out stored in packs where its packs line up with x's;
//   launched with bounds of one 1024-thread team an SM: 64 registers a thread on CUDA; inner teams of up to 256)
//
// A team folds its threads' statistics in a fixed tree in scratch; nothing depends on timing: the same bits on
// every run. The slice's elements and the kept dimensions come from the normalization of reductions along
// dimensions (kstream/impl/reduce_plan.hpp), with the statistics as a stride-0 result.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/reduce_plan.hpp>
#include <kstream/impl/reduce_step.hpp>  // from_accumulator
#include <kstream/impl/row_host.hpp>
#include <kstream/impl/row_slices.hpp>
#include <kstream/impl/row_values.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/store_policy.hpp>
#include <kstream/low_precision.hpp>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// Pass 1 of a row kernel: a slice's elements folded into a state, and kept in scratch where a cache is given.
template <class Team, class T, class O, class Stat, class Op, RowPath Path, class... P>
struct RowReads : RowSlices<Team, T, O, Stat, Op, Path, P...> {
  using Base = RowSlices<Team, T, O, Stat, Op, Path, P...>;
  using Base::Base;
  using State = typename Base::State;
  using V = typename Base::V;
  static constexpr int K = Base::K, W = Base::W, InFlight = Base::InFlight;
  static constexpr bool Partial = Base::Partial;
  using Base::stat, Base::x, Base::length, Base::copied, Base::start, Base::offset, Base::kept;

  /// Pass 1: elements first, first + by, ... of the slice into one state (and into `cache` where given), InFlight
  /// loads at once into as many states, folded in order.
  KOKKOS_INLINE_FUNCTION State gather(const std::int64_t (&base)[K], std::int64_t first, std::int64_t by,
                                      T* cache) const {
    State s[InFlight];
    const State initial = start(base);
    KSTREAM_DEVICE_UNROLL
    for (int l = 0; l < InFlight; ++l) s[l] = initial;
    std::int64_t j = first;
    for (; j + (InFlight - 1) * by < length; j += InFlight * by) {
      T v[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < InFlight; ++l) v[l] = x[offset(base, j + l * by, 0)];
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < InFlight; ++l) {
        if (cache != nullptr) cache[j + l * by] = v[l];
        stat.add(s[l], compute_value(v[l]));
      }
    }
    for (; j < length; j += by) {
      const T v = x[offset(base, j, 0)];
      if (cache != nullptr) cache[j] = v;
      stat.add(s[0], compute_value(v));
    }
    KSTREAM_DEVICE_UNROLL
    for (int l = 1; l < InFlight; ++l) s[0] = stat(s[0], s[l]);
    return s[0];
  }

  /// CUDA (compute capability 8.0 and up): packs first, first + by, ... of `from` copied into `to` by cp.async, all
  /// in flight at once with no registers held, then awaited (the thread reads only its own packs back); returns
  /// `to`. Elsewhere copies nothing and returns `from`.
  KOKKOS_INLINE_FUNCTION const V* copy_packs(const V* from, [[maybe_unused]] std::int64_t packs,
                                             [[maybe_unused]] std::int64_t first, [[maybe_unused]] std::int64_t by,
                                             [[maybe_unused]] V* to) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    for (std::int64_t i = first; i < packs; i += by) {
      const auto at = static_cast<unsigned>(__cvta_generic_to_shared(to + i));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(at), "l"(from + i) : "memory");
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    return to;
#else
    return from;
#endif
  }
  /// Pass 1 over a slice adjacent in x (packed): its whole packs, InFlight at once, then the elements before and
  /// after them; into `cache` where given (its element `head` starts a pack). A statistic with add_run folds a
  /// group of packs with it, from registers (fewer instructions an element than add's merge), into one state.
  KOKKOS_INLINE_FUNCTION State gather_packs(const std::int64_t (&base)[K], std::int64_t head, std::int64_t first,
                                            std::int64_t by, T* cache) const {
    State s[InFlight];
    const State initial = start(base);
    KSTREAM_DEVICE_UNROLL
    for (int l = 0; l < InFlight; ++l) s[l] = initial;
    const std::int64_t packs = (length - head) / W, tail = head + packs * W;
    const V* const from = reinterpret_cast<const V*>(x + base[0] + head);
    const V* in = from;
    if (!Partial && copied && cache != nullptr)
      in = copy_packs(from, packs, first, by, reinterpret_cast<V*>(cache + head));
    const bool store = cache != nullptr && in == from;  // (not copied: each pack stored as it is folded)
    for (std::int64_t i = first; i < packs; i += InFlight * by) {
      V v[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < InFlight; ++l)
        if (i + l * by < packs) v[l] = in[i + l * by];
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < InFlight; ++l)
        if (store && i + l * by < packs && (!Partial || i + l * by < kept(packs)))
          reinterpret_cast<V*>(cache + head)[i + l * by] = v[l];
      if constexpr (has_add_run_v<Stat, State, T>) {  // the statistic's own loop, over the packs in registers
        if (i + (InFlight - 1) * by < packs) {
          T group[InFlight * W];
          KSTREAM_DEVICE_UNROLL
          for (int e = 0; e < InFlight * W; ++e) group[e] = v[e / W].lane[e % W];
          stat.add_run(s[0], group, InFlight * W);
        } else {
          KSTREAM_DEVICE_UNROLL
          for (int l = 0; l < InFlight; ++l)
            if (i + l * by < packs) stat.add_run(s[0], v[l].lane, W);
        }
      } else {
        KSTREAM_DEVICE_UNROLL
        for (int l = 0; l < InFlight; ++l) {
          if (i + l * by >= packs) continue;
          KSTREAM_DEVICE_UNROLL
          for (int e = 0; e < W; ++e) stat.add(s[l], compute_value(v[l].lane[e]));
        }
      }
    }
    for (std::int64_t e = first; e < length - packs * W; e += by) {  // the edges, one element a thread
      const std::int64_t j = e < head ? e : tail + (e - head);
      const T v = x[base[0] + j];
      if (!Partial && cache != nullptr) cache[j] = v;
      stat.add(s[0], compute_value(v));
    }
    if constexpr (!has_add_run_v<Stat, State, T>) {
      KSTREAM_DEVICE_UNROLL
      for (int l = 1; l < InFlight; ++l) s[0] = stat(s[0], s[l]);
    }
    return s[0];
  }
};

/// Pass 2 of a row kernel over a slice adjacent in x (packed), and of a turned plan.
template <class Team, class T, class O, class Stat, class Op, RowPath Path, class... P>
struct RowWrites : RowReads<Team, T, O, Stat, Op, Path, P...> {
  using Base = RowReads<Team, T, O, Stat, Op, Path, P...>;
  using Base::Base;
  using V = typename Base::V;
  static constexpr int K = Base::K, W = Base::W, InFlight = Base::InFlight;
  static constexpr bool Partial = Base::Partial;
  using Base::op, Base::x, Base::out, Base::along, Base::length, Base::lanes, Base::slices, Base::kept, Base::head_of;
  using Base::value, Base::offset, Base::first;

  /// Pass 2 over a slice adjacent in x (packed), x from `cache` where given. Where out lines up with x (unit
  /// stride, a pack boundary at `head`, x's type) and the parameters run at unit stride with x's element size, out
  /// is stored in whole packs in a loop of its own (inside the general loop, the compiler split them into element
  /// stores), a parameter read in packs where its packs line up too; else an element at a time.
  template <class Row, std::size_t... I>
  KOKKOS_INLINE_FUNCTION void write_packs(const std::int64_t (&base)[K], std::int64_t head, std::int64_t first,
                                          std::int64_t by, const Row& row, const T* cache,
                                          std::index_sequence<I...>) const {
    const std::int64_t packs = (length - head) / W, tail = head + packs * W;
    const V* in = reinterpret_cast<const V*>((cache != nullptr ? cache : x + base[0]) + head);
    const auto pack = [&](std::int64_t i) {  // pack i of the slice (Partial: from x past the packs held)
      if constexpr (Partial) return (i < kept(packs) ? in : reinterpret_cast<const V*>(x + base[0] + head))[i];
      return in[i];
    };
    bool whole = false;
    if constexpr (std::is_same_v<O, T> && ((sizeof(P) == sizeof(T)) && ...)) {
      whole = along[1] == 1 && head_of(out + base[1]) == head && ((along[2 + I] == 1) && ...);
      if (whole) {
        [[maybe_unused]] const bool lined[sizeof...(P) + 1] = {
            head_of(this->template parameter<I>() + base[2 + I]) == head...};
        const auto parameter_pack = [&](auto index, std::int64_t k) {  // pack k of parameter `index`
          constexpr std::size_t J = decltype(index)::value;
          using Q = std::tuple_element_t<J, std::tuple<P...>>;
          const Q* at = this->template parameter<J>() + base[2 + J] + head;
          if (lined[J]) return reinterpret_cast<const Pack<Q, W>*>(at)[k];
          Pack<Q, W> q;
          KSTREAM_DEVICE_UNROLL
          for (int e = 0; e < W; ++e) q.lane[e] = at[k * W + e];
          return q;
        };
        V* to = reinterpret_cast<V*>(out + base[1] + head);
        for (std::int64_t i = first; i < packs; i += by) {  // a pack at a time: more in flight spilled registers
          const V v = pack(i);
          [[maybe_unused]] const Slots<std::index_sequence_for<P...>, Pack<P, W>...> w{
              {parameter_pack(std::integral_constant<std::size_t, I>{}, i)}...};
          V r;
          KSTREAM_DEVICE_UNROLL
          for (int e = 0; e < W; ++e)
            r.lane[e] = from_accumulator<O>(op(compute_value(v.lane[e]), row, compute_value(get<I>(w).lane[e])...));
          to[i] = r;
        }
      }
    }
    for (std::int64_t i = first; i < packs && !whole; i += InFlight * by) {
      V v[InFlight];
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < InFlight; ++l)
        if (i + l * by < packs) v[l] = pack(i + l * by);
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < InFlight; ++l) {
        if (i + l * by >= packs) continue;
        const std::int64_t j = head + (i + l * by) * W;
        KSTREAM_DEVICE_UNROLL
        for (int e = 0; e < W; ++e) out[offset(base, j + e, 1)] = value(base, j + e, v[l].lane[e], row);
      }
    }
    for (std::int64_t e = first; e < length - packs * W; e += by) {
      const std::int64_t j = e < head ? e : tail + (e - head);
      out[offset(base, j, 1)] = value(base, j, !Partial && cache != nullptr ? cache[j] : x[base[0] + j], row);
    }
  }

  /// Pass 2 of a turned plan (every thread of the team, s < slices or not: `mine`), through `tile` in team scratch,
  /// row_tile_rounds of lanes elements of each of the team's slices at a time: each thread computes those of its
  /// slice (x read across the slices, along its unit stride), then stores lane-wise elements of the slice rank /
  /// lanes (out written along its unit stride).
  template <class Row>
  KOKKOS_INLINE_FUNCTION void write_turned(const Team& team, O* tile, int b, int lane, bool mine,
                                           const std::int64_t (&base)[K], const Row& row, const T* cache) const {
    constexpr int Rounds = row_tile_rounds(int(sizeof(O)));
    const int rank = team.team_rank(), block = team.team_size() / lanes, width = Rounds * lanes;
    const int pitch = row_tile_pitch(lanes, int(sizeof(O))), to_b = rank / lanes, to_lane = rank % lanes;
    const std::int64_t to_s = std::int64_t(team.league_rank()) * block + to_b;
    std::int64_t to[K] = {};
    if (to_s < slices) first(to_s, to);
    for (std::int64_t j0 = 0; j0 < length; j0 += width) {
      T v[Rounds] = {};  // (read only where loaded)
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < Rounds; ++l) {
        const std::int64_t j = j0 + lane + l * lanes;
        if (mine && j < length) v[l] = cache != nullptr ? cache[j] : x[offset(base, j, 0)];
      }
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < Rounds; ++l) {
        const std::int64_t j = j0 + lane + l * lanes;
        if (mine && j < length) tile[b * pitch + lane + l * lanes] = value(base, j, v[l], row);
      }
      team.team_barrier();
      KSTREAM_DEVICE_UNROLL
      for (int l = 0; l < Rounds; ++l) {
        const std::int64_t j = j0 + to_lane + l * lanes;
        if (to_s < slices && j < length) out[offset(to, j, 1)] = tile[to_b * pitch + to_lane + l * lanes];
      }
      team.team_barrier();
    }
  }
};

/// The kernel (RowPlan): its slices, pass 1, pass 2 (the bases above), run on a host's threads or a device's teams.
template <class Team, class T, class O, class Stat, class Op, RowPath Path, class... P>
struct RowKernel : RowWrites<Team, T, O, Stat, Op, Path, P...> {
  using Base = RowWrites<Team, T, O, Stat, Op, Path, P...>;
  using Base::Base;
  using State = typename Base::State;
  static constexpr int K = Base::K, W = Base::W;
  static constexpr bool Partial = Base::Partial, Turned = Base::Turned;
  using Base::stat, Base::op, Base::x, Base::along, Base::reduced, Base::length, Base::slices, Base::block, Base::lanes;
  using Base::outer, Base::on_chip, Base::packed, Base::first, Base::head_of, Base::gather, Base::gather_packs;
  using Base::write, Base::write_packs, Base::write_turned;

  /// Host: slices [b * block, (b + 1) * block) by one thread.
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t b) const {
    const std::int64_t from = b * block, to = from + block < slices ? from + block : slices;
    bool unit = reduced == 1;
    for (int k = 0; k < K && unit; ++k) unit = along[k] == 1;
    if (unit) {
      KOKKOS_IF_ON_HOST((return adjacent_slices(*this, from, to, std::make_index_sequence<sizeof...(P)>{});))
    }
    for (std::int64_t s = from; s < to; ++s) {
      std::int64_t base[K];
      first(s, base);
      write(base, 0, 1, row_constants(op, gather(base, 0, 1, nullptr)), nullptr);
    }
  }

  /// Device: team t holds slices t * block, ...; each slice's `lanes` threads fold their states in a fixed tree.
  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const int rank = team.team_rank(), block = team.team_size() / lanes;
    const int b = outer ? rank % block : rank / lanes, lane = outer ? rank / block : rank % lanes;
    const int next = outer ? block : 1;  // from a lane's slot to the next lane's
    const std::int64_t s = std::int64_t(team.league_rank()) * block + b;
    std::int64_t base[K] = {};
    if (s < slices) first(s, base);
    const std::int64_t head = packed && s < slices ? head_of(x + base[0]) : 0;
    T* cache = nullptr;
    const auto scratch = team.team_scratch(0);  // the states first: their alignment, whatever the slices' length
    auto* states = static_cast<State*>(scratch.get_shmem(std::size_t(team.team_size()) * sizeof(State)));
    if (on_chip || Partial) {  // a span a slice, in whole packs: element `head` starts a pack, as in x
      std::int64_t span = row_cache_span(length, int(sizeof(T)));
      if constexpr (Partial) span = row_cache_span(this->held, int(sizeof(T)));
      cache = static_cast<T*>(scratch.get_shmem_aligned(std::size_t(block * span) * sizeof(T), pack_bytes)) +
              b * span + (packed ? (W - head) % W : 0);
    }
    if (s >= slices) {
      states[rank] = stat.template identity<T>();
    } else if (!Turned && packed) {
      states[rank] = gather_packs(base, head, lane, lanes, cache);
    } else {
      states[rank] = gather(base, lane, lanes, Partial ? nullptr : cache);  // (Partial: x's slice adjacent)
    }
    team.team_barrier();
    for (int half = lanes / 2; half > 0; half /= 2) {
      if (lane < half) states[rank] = stat(states[rank], states[rank + half * next]);
      team.team_barrier();
    }
    if constexpr (Turned) {  // (outer)
      O* const tile = static_cast<O*>(
          scratch.get_shmem_aligned(std::size_t(block * row_tile_pitch(lanes, int(sizeof(O)))) * sizeof(O), 16));
      return write_turned(team, tile, b, lane, s < slices, base, row_constants(op, states[rank - lane * next]), cache);
    }
    if (s >= slices) return;
    const auto row = row_constants(op, states[rank - lane * next]);
    if (!Turned && packed) {
      write_packs(base, head, lane, lanes, row, cache, std::index_sequence_for<P...>{});
    } else {
      write(base, lane, lanes, row, Partial ? nullptr : cache);
    }
  }
};

}  // namespace kstream::impl

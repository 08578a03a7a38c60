// The suite's fusion and chain rows, in their own file so that a parallel (CUDA) build compiles them beside
// kstream_bench.cpp: fma as two naive kernels (unfused_naive); a chain of four operations fused in one
// kstream::transform against naive Kokkos, fused and one kernel per operation; chain64, 64 eager calls against the
// same calls recorded once and replayed as a graph; with --kstream_tuning, chain64 and add/fma over grids of tile
// shapes and chain64 as a graph of minimal kernels.
#include <kstream/kstream.hpp>
#include <map>
#include <memory>

#include "bench_support.hpp"

namespace kstream::bench {
namespace {

struct Multiply {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const {
    return a * b;
  }
};

/// Diagnostics of a recorded chain's cost per graph node (tuning only): chain64 as a Kokkos Graph of minimal kernels
/// (pointers and n, one element per thread, no tiles), on a TeamPolicy of 256-thread teams or on a RangePolicy.
/// Against kstream's recorded chain they separate what Kokkos' policy costs per node from what kstream's functor
/// costs.
template <class T, bool Fma>
struct MinimalStep {
  const T* a;
  const T* b;
  const T* c;
  T* out;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { out[i] = Fma ? a[i] * b[i] + c[i] : a[i] + b[i]; }
};
template <class Exec, class T, bool Fma>
struct MinimalTeamStep {
  MinimalStep<T, Fma> step;
  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Exec>::member_type& team) const {
    const std::int64_t i = std::int64_t(team.league_rank()) * team.team_size() + team.team_rank();
    if (i < step.n) step(i);
  }
};

template <class S, bool F>
struct Tagged {
  S s;
  static constexpr bool fma = F;
};

template <class Exec, class T, bool Team>
Variant<Exec, T> minimal_graph_chain(std::string name) {
  using O = Operands<Exec, T>;
  auto graphs = std::make_shared<std::map<std::pair<const T*, std::int64_t>, Kokkos::Experimental::Graph<Exec>>>();
  return {
      Op::chain64, std::move(name), [=](const O& o) {
        const auto key = std::make_pair(o.out.data(), o.n);
        auto it = graphs->find(key);
        if (it == graphs->end()) {
          auto graph = Kokkos::Experimental::create_graph<Exec>([&](const auto& root) {
            Kokkos::Experimental::GraphNodeRef<Exec> last = root;
            auto append = [&](auto step) {
              if constexpr (Team) {
                constexpr int team = 256;
                const int league = int((o.n + team - 1) / team);
                last = last.then_parallel_for("chain64[minimal team]", Kokkos::TeamPolicy<Exec>(league, team),
                                              MinimalTeamStep<Exec, T, decltype(step)::fma>{step.s});
              } else {
                last = last.then_parallel_for("chain64[minimal range]", Kokkos::RangePolicy<Exec>(0, o.n), step.s);
              }
            };
            for (int j = 0; j < chain64_steps / 2; ++j) {
              const T* first = j == 0 ? o.x.data() : o.out.data();
              append(Tagged<MinimalStep<T, false>, false>{{first, o.x.data(), nullptr, o.tmp0.data(), o.n}});
              append(Tagged<MinimalStep<T, true>, true>{{o.tmp0.data(), o.ones.data(), o.y.data(), o.out.data(), o.n}});
            }
          });
          it = graphs->emplace(key, std::move(graph)).first;
        }
        it->second.submit(Exec());
      }};
}

}  // namespace

template <class Exec, class T>
void add_fusion(std::vector<Variant<Exec, T>>& list, bool tuning) {
  using O = Operands<Exec, T>;
  const Exec exec;
  const std::vector<Variant<Exec, T>> fusion = {
      // What fusion buys: a multiply kernel, then an add kernel, the product going through memory.
      {Op::fma, "unfused_naive",
       [=](const O& o) {
         kstream::naive::transform(exec, o.tmp0, Multiply{}, o.x, o.y);
         kstream::naive::add(exec, o.tmp0, o.z, o.out);
       }},
      {Op::chain, "fused_tiled", [=](const O& o) { kstream::transform(exec, o.out, Chain<T>{}, o.x, o.y, o.z); }},
      {Op::chain, "fused_naive",
       [=](const O& o) { kstream::naive::transform(exec, o.out, Chain<T>{}, o.x, o.y, o.z); }},
      // The same chain as a user writes it one operation per kernel: 10 array passes instead of 4.
      {Op::chain, "separate_naive",
       [=](const O& o) {
         kstream::naive::transform(exec, o.tmp0, Scale<T>{T(3)}, o.x);
         kstream::naive::transform(exec, o.tmp1, Scale<T>{T(0.5)}, o.y);
         kstream::naive::add(exec, o.tmp0, o.tmp1, o.tmp0);
         kstream::naive::add(exec, o.tmp0, o.z, o.out);
       }},
  };
  list.insert(list.end(), fusion.begin(), fusion.end());
  // chain64 (launch-bound sequences): 64 eager calls, and the same calls recorded once and replayed as a graph.
  auto chain64 = [](auto& ops, const O& o) {
    for (int j = 0; j < chain64_steps / 2; ++j) {
      ops.add(j == 0 ? o.x : o.out, o.x, o.tmp0);
      ops.fma(o.tmp0, o.ones, o.y, o.out);
    }
  };
  struct EagerCalls {
    Exec exec;
    void add(const Vec<Exec, T>& a, const Vec<Exec, T>& b, const Vec<Exec, T>& out) const {
      kstream::add(exec, a, b, out);
    }
    void fma(const Vec<Exec, T>& a, const Vec<Exec, T>& b, const Vec<Exec, T>& c, const Vec<Exec, T>& out) const {
      kstream::fma(exec, a, b, c, out);
    }
  };
  list.push_back({Op::chain64, "eager", [=](const O& o) {
                    EagerCalls calls{exec};
                    chain64(calls, o);
                  }});
  // Recorded once per operand set (outside the timed loop: the warm-up call records), then submitted.
  auto recordings = std::make_shared<std::map<std::pair<const T*, std::int64_t>, kstream::Recording<Exec>>>();
  list.push_back({Op::chain64, "recorded", [=](const O& o) {
                    const auto key = std::make_pair(o.out.data(), o.n);
                    auto it = recordings->find(key);
                    if (it == recordings->end())
                      it = recordings
                               ->emplace(key, kstream::record(exec, [&](kstream::Recorder<Exec>& r) { chain64(r, o); }))
                               .first;
                    it->second.submit(exec);
                  }});
  if (tuning) {
    // chain64 recorded with explicit team sizes (an explicit shape is used as given, so t256 is the shape every
    // call had before short calls spread their teams over the multiprocessors; tiling.hpp).
    for (const int team : is_device_backend<Exec> ? std::vector<int>{32, 64, 128, 256} : std::vector<int>{}) {
      const TileShape shape{team, 1, 1};
      struct ShapedRecorder {
        kstream::Recorder<Exec>& r;
        TileShape shape;
        void add(const Vec<Exec, T>& a, const Vec<Exec, T>& b, const Vec<Exec, T>& out) const {
          r.add(a, b, out, shape);
        }
        void fma(const Vec<Exec, T>& a, const Vec<Exec, T>& b, const Vec<Exec, T>& c, const Vec<Exec, T>& out) const {
          r.fma(a, b, c, out, shape);
        }
      };
      auto shaped = std::make_shared<std::map<std::pair<const T*, std::int64_t>, kstream::Recording<Exec>>>();
      list.push_back({Op::chain64, "recorded_t" + std::to_string(team), [=](const O& o) {
                        const auto key = std::make_pair(o.out.data(), o.n);
                        auto it = shaped->find(key);
                        if (it == shaped->end())
                          it = shaped
                                   ->emplace(key, kstream::record(exec,
                                                                  [&](kstream::Recorder<Exec>& r) {
                                                                    ShapedRecorder calls{r, shape};
                                                                    chain64(calls, o);
                                                                  }))
                                   .first;
                        it->second.submit(exec);
                      }});
    }
    if constexpr (is_device_backend<Exec>) {
      list.push_back(minimal_graph_chain<Exec, T, true>("graph_minimal_team"));
      list.push_back(minimal_graph_chain<Exec, T, false>("graph_minimal_range"));
    }
    // GPU: team size x packs in flight (one chunk: more work per thread only lost bandwidth on the H200,
    // docs/engine.md). CPU: one thread per team, packs x tile length. Every layout: on unequally aligned or
    // strided views packs_in_flight repeats one pack's worth of single elements (tiling.hpp).
    constexpr bool gpu = is_device_backend<Exec>;
    const std::vector<int> teams = gpu ? std::vector<int>{64, 128, 256, 512} : std::vector<int>{1};
    const std::vector<int> packs_counts = gpu ? std::vector<int>{1, 2, 4} : std::vector<int>{1, 2, 4, 8};
    const std::vector<int> chunk_counts = gpu ? std::vector<int>{1} : std::vector<int>{64, 256, 1024};
    for (const int team : teams) {
      for (const int packs : packs_counts) {
        for (const int chunks : chunk_counts) {
          const TileShape shape{team, packs, chunks};
          const std::string tag =
              "tiled_t" + std::to_string(team) + "_p" + std::to_string(packs) + "_c" + std::to_string(chunks);
          list.push_back(on_every_layout<Exec, T>(Op::add, tag,
                                                  [=](const auto& o) { kstream::add(exec, o.x, o.y, o.out, shape); }));
          list.push_back(on_every_layout<Exec, T>(
              Op::fma, tag, [=](const auto& o) { kstream::fma(exec, o.x, o.y, o.z, o.out, shape); }));
        }
      }
    }
  }
}

#define KSTREAM_SUITE_FUSION(Exec)                                                \
  template void add_fusion(std::vector<Variant<Exec, float>>& list, bool tuning); \
  template void add_fusion(std::vector<Variant<Exec, double>>& list, bool tuning);
KSTREAM_BENCH_FOR_EACH_BACKEND(KSTREAM_SUITE_FUSION)
#undef KSTREAM_SUITE_FUSION

}  // namespace kstream::bench

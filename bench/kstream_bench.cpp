// The kstream benchmark suite: for every enabled backend and float/double, the copy reference, the naive
// Kokkos baseline, kstream's tiled kernels (also in place: tiled_inplace), the native peers and, where CMake found
// it, Kokkos Kernels' BLAS-1 (kokkosblas, kokkosblas_inplace), over sizes 2^10 .. 2^28 and a tail size.
//
//   kstream_bench [google benchmark flags] [--kstream_max_n=N] [--kstream_min_time=SECONDS] [--kstream_tuning]
//                [--kstream_streaming_stores=automatic|always|never]   (host store path; kstream/streaming_stores.hpp)
//   kstream_bench --kstream_configuration      kstream's version, Kokkos, backends and default tile shapes
//
// BabelStream's set: copy, mul, add, triad, dot and nstream rows (scalar 0.5; bench_support.hpp). Views of several
// dimensions: the rows of layout nd-<case> (suite_rank_n.cpp).
// Names read op/variant/type/backend/layout/n, e.g. add/tiled/float/Cuda/offsets123/268435456 (layouts: aligned,
// offset1, offsets123, stride2, stride3; bench_support.hpp). Time is manual time over a batch
// of calls (CUDA events on the GPU, fences and wall clock on the host); counters: GB/s (1e9 bytes/s from the
// byte table), us_per_call, pct_of_copy (against the copy measured at the same n in this run), n.
// Every result is validated after its timed loop; a wrong one is reported with SkipWithError, not as a number.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <kstream/kstream.hpp>
#include <map>
#include <sstream>
#include <string_view>

#include "bench_support.hpp"

namespace kstream::bench {
namespace {

struct Settings {
  std::int64_t max_n = 0;            // 0: from the memory of the machine
  bool tuning = false;               // also time a grid of tile shapes for add and fma
  bool print_configuration = false;  // print kstream::print_configuration and exit
  double min_time = 0.1;  // seconds of timed calls per benchmark (set per benchmark: the flag's syntax varies
                          // between Google Benchmark versions)
};

Settings& settings() {
  static Settings s;
  return s;
}

/// The launch floor: calls that do nothing, one per way kstream and its peers launch (CUDA's own in
/// peers_cuda.cpp), registered at 2^12 elements for float and double (each process of a per-type run has its own):
/// a Kokkos RangePolicy over the n indices, a TeamPolicy of the grid kstream's add launches there, and a
/// parallel_reduce into a device view. Their difference to a plain launch is what a small call pays for Kokkos.
struct EmptyIndex {
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const {}
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t, double&) const {}
};
template <class Exec>
struct EmptyTeam {
  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Exec>::member_type&) const {}
};

template <class Exec, class T>
void add_launch_floor(std::vector<Variant<Exec, T>>& list) {
  using O = Operands<Exec, T>;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  const Exec exec;
  list.push_back({Op::empty, "kokkos_range",
                  [=](const O& o) { Kokkos::parallel_for("kstream::bench::empty", Range(exec, 0, o.n), EmptyIndex{}); },
                  true});
  const TileShape shape = default_tile_shape<Exec>();
  list.push_back({Op::empty, "kokkos_team",
                  [=](const O& o) {
                    const int league = floor_league(o.n, sizeof(T), shape);
                    // A GPU: kstream's team size; a host: Kokkos' choice (kstream runs its own region there).
                    const auto policy = is_device_backend<Exec>
                                            ? Kokkos::TeamPolicy<Exec>(exec, league, shape.team_size)
                                            : Kokkos::TeamPolicy<Exec>(exec, league, Kokkos::AUTO);
                    Kokkos::parallel_for("kstream::bench::empty", policy, EmptyTeam<Exec>{});
                  },
                  true});
  auto into = std::make_shared<Kokkos::View<double, typename Exec::memory_space>>("bench_empty_reduce");
  list.push_back({Op::empty, "kokkos_reduce",
                  [=](const O& o) {
                    Kokkos::parallel_reduce("kstream::bench::empty", Range(exec, 0, o.n), EmptyIndex{}, *into);
                  },
                  true});
}

/// Every row of one backend and element type: copy, add and fma naive and tiled here; in place, reductions, the
/// STREAM set, Kokkos Kernels, fusion and chains from their files (float and double); the native peers.
template <class Exec, class T>
std::vector<Variant<Exec, T>> variants() {
  using O = Operands<Exec, T>;
  const Exec exec;
  std::vector<Variant<Exec, T>> list = {
      {Op::copy, "kokkos_deep_copy", [=](const O& o) { Kokkos::deep_copy(exec, o.out, o.x); }},
      on_every_layout<Exec, T>(Op::add, "naive", [=](const auto& o) { kstream::naive::add(exec, o.x, o.y, o.out); }),
      on_every_layout<Exec, T>(Op::add, "tiled", [=](const auto& o) { kstream::add(exec, o.x, o.y, o.out); }),
      on_every_layout<Exec, T>(Op::fma, "naive",
                               [=](const auto& o) { kstream::naive::fma(exec, o.x, o.y, o.z, o.out); }),
      on_every_layout<Exec, T>(Op::fma, "tiled", [=](const auto& o) { kstream::fma(exec, o.x, o.y, o.z, o.out); }),
  };
  // The other rows compute in T's own arithmetic: float and double only (16-bit types compute in float by
  // kstream's rule, which these expressions do not spell out).
  if constexpr (!is_low_precision_v<T>) {
    // In place (out += x; out += x * y): the pairs of Kokkos Kernels' axpby and mult, which have no other form.
    list.push_back(in_place_variant<Exec, T>(Op::add, "tiled_inplace",
                                             [=](const O& o) { kstream::add(exec, o.x, o.out, o.out); }));
    list.push_back(in_place_variant<Exec, T>(Op::fma, "tiled_inplace",
                                             [=](const O& o) { kstream::fma(exec, o.x, o.y, o.out, o.out); }));
    add_reductions(list);
    add_stream_set(list);
    add_kokkos_std_peers(list);
#if KSTREAM_BENCH_KOKKOS_KERNELS
    add_kokkos_kernels_peers(list);
#endif
    add_fusion(list, settings().tuning);
  }
  if constexpr (!is_low_precision_v<T>) add_launch_floor(list);
  add_native_peers(list);
  // Each launch-floor probe once more, fenced after every call: the round trip a caller that waits sees.
  for (std::size_t i = 0, count = list.size(); i < count; ++i) {
    if (list[i].op != Op::empty) continue;
    auto call = list[i].run;
    std::string name = list[i].name + "_fenced";
    list.push_back({Op::empty, std::move(name), [=](const O& o) { call(o); exec.fence(); }, true});
  }
  return list;
}

/// Copy bandwidth (GB/s) measured in this run, by (backend, type, n): the denominator of pct_of_copy.
std::map<std::string, double>& copy_rates() {
  static std::map<std::string, double> rates;
  return rates;
}

/// Calls per timed batch. On a GPU the start event is recorded before the first kernel of the batch has been
/// launched, so the batch's time includes one launch latency (several microseconds, longer through Kokkos than
/// through cub): at least 32 calls (>= 20 ms at 2^28, the anchors' method) keep that below 0.1 %. On the host
/// the clock starts after a fence and a call includes its own fork/join, so one call per batch is honest there.
template <class Exec>
std::int64_t batch_size(std::int64_t n) {
  const std::int64_t least = is_device_backend<Exec> ? 32 : 1;
  return std::clamp<std::int64_t>((std::int64_t(1) << 22) / std::max<std::int64_t>(n, 1), least, 4096);
}

constexpr int inputs_of(Op op) {
  return op == Op::add || op == Op::triad ? 2 : op == Op::fma || op == Op::chain || op == Op::nstream ? 3 : 1;
}

/// Whether kstream's engine writes this call's output with streaming stores (host x86, large, packed, not
/// aliased): recorded as a counter so a reader sees why a host number can pass the plain loop.
template <class Exec, class T, class ViewLayout>
bool streams_stores(Op op, const Operands<Exec, T, ViewLayout>& o) {
  switch (op) {
    case Op::add:
      return impl::plan_of(Exec(), default_tile_shape<Exec>(), o.out, o.x, o.y).streaming_stores;
    case Op::fma:
    case Op::chain:
      return impl::plan_of(Exec(), default_tile_shape<Exec>(), o.out, o.x, o.y, o.z).streaming_stores;
    case Op::copy:
    case Op::mul:
      return impl::plan_of(Exec(), default_tile_shape<Exec>(), o.out, o.x).streaming_stores;
    case Op::triad:
      return impl::plan_of(Exec(), default_tile_shape<Exec>(), o.out, o.x, o.y).streaming_stores;
    default:
      return false;
  }
}

template <class Exec, class T, class ViewLayout, class Call>
void time_calls(benchmark::State& state, const Variant<Exec, T>& variant, const Call& call,
                const Operands<Exec, T, ViewLayout>& ops, const std::string& copy_key) {
  const std::int64_t n = ops.n;
  if (variant.in_place)
    reset_accumulator(variant.op, ops);
  else if (variant.op != Op::empty)
    Kokkos::deep_copy(Exec(), ops.out, from_float<T>(std::numeric_limits<float>::quiet_NaN()));
  try {
    call(ops);  // warm-up, outside the timed loop
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  Timer<Exec> timer;
  // One benchmark iteration is a batch of back-to-back calls (launch overhead amortized the way a program sees
  // it); the iteration's manual time is the batch's, the counters are per call.
  // A chain64 call is 64 operations: a batch holds as many operations as other batches hold calls.
  const std::int64_t batch =
      variant.op == Op::chain64 ? std::max<std::int64_t>(1, batch_size<Exec>(n) / chain64_steps) : batch_size<Exec>(n);
  double seconds = 0;
  for (auto _ : state) {
    timer.start();
    for (std::int64_t b = 0; b < batch; ++b) call(ops);
    const double batch_seconds = timer.stop();
    seconds += batch_seconds;
    state.SetIterationTime(batch_seconds);
  }
  const double calls = double(state.iterations()) * double(batch);
  const double bytes = double(arrays_moved(variant.op)) * sizeof(T) * double(n);
  state.SetBytesProcessed(std::int64_t(bytes * calls));
  const double gbps = seconds > 0 ? bytes * calls / seconds / 1e9 : 0.0;
  state.counters["GB/s"] = gbps;
  state.counters["us_per_call"] = calls > 0 ? 1e6 * seconds / calls : 0.0;
  state.counters["n"] = double(n);
  state.counters["calls_per_iteration"] = double(batch);
  if (variant.op == Op::chain64) state.counters["us_per_op"] = calls > 0 ? 1e6 * seconds / calls / chain64_steps : 0.0;
  if ((variant.name.rfind("tiled", 0) == 0 || variant.name == "fused_tiled") && !variant.in_place)
    state.counters["streaming_stores"] = streams_stores(variant.op, ops) ? 1 : 0;
  if constexpr (is_device_backend<Exec>) {  // kstream's reductions: one launch or two (docs/results.md's floor)
    if (variant.op == Op::dot && variant.name == "tiled")
      state.counters["launches"] = impl::device_reduction_of(Exec(), 0, ops.x, ops.y).launches();
    if (variant.op == Op::update_norm && variant.name == "fused_tiled")
      state.counters["launches"] = impl::device_reduction_of(Exec(), 2, ops.out, ops.x, ops.out).launches();
  }
  if (variant.op == Op::copy) {
    auto& best = copy_rates()[copy_key];
    best = std::max(best, gbps);
  } else if (auto it = copy_rates().find(copy_key); it != copy_rates().end() && it->second > 0) {
    state.counters["pct_of_copy"] = 100.0 * gbps / it->second;
  }
  if (variant.in_place) {  // the timed calls kept accumulating: validate one call from the start values
    reset_accumulator(variant.op, ops);
    call(ops);
  }
  if constexpr (std::is_same_v<ViewLayout, Kokkos::LayoutRight>) {
    if (variant.validate) {
      Exec().fence();
      if (const std::string problem = variant.validate(ops); !problem.empty()) {
        state.SkipWithError(("validation failed: " + problem).c_str());
        return;
      }
    }
  }
  if (variant.op != Op::empty && variant.op != Op::dot) {
    if (const std::int64_t errors = count_errors(variant.op, ops); errors != 0)
      state.SkipWithError(
          ("validation failed: " + std::to_string(errors) + " of " + std::to_string(n) + " elements wrong").c_str());
  }
}

template <class Exec, class T>
void run(benchmark::State& state, const Variant<Exec, T>& variant, Layout layout, std::int64_t n,
         const Extents& extents, const std::string& copy_key) {
  auto& storage = storage_for<Exec, T>(extents);
  if (layout_stride(layout) > 1)
    time_calls(state, variant, variant.run_strided, storage.strided_operands(n, layout), copy_key);
  else
    time_calls(state, variant, variant.run, storage.operands(n, layout, inputs_of(variant.op)), copy_key);
}

std::int64_t memory_bytes_for(bool device) {
#if defined(KSTREAM_BENCH_GPU)
  if (device) return gpu_free_bytes();
#endif
  (void)device;
  return std::int64_t(sysconf(_SC_PHYS_PAGES)) * std::int64_t(sysconf(_SC_PAGE_SIZE));
}

/// One registered size of one layout.
struct SizeCase {
  Layout layout;
  std::int64_t n;
};

/// Aligned: every power of two 2^10 .. 2^24 (the mid sizes, where launches weigh), then 2^26 and 2^28; odd sizes
/// 2^16 + 7, 2^20 + 7, 2^24 + 7 and the largest + 7. Other layouts: 2^20, 2^24 and 2^28.
/// Capped by --kstream_max_n and by memory: x, y, z and out of the largest strided extent plus two aligned
/// temporaries in at most 60 % of the backend's memory.
template <class Exec, class T>
std::vector<SizeCase> sizes() {
  const double budget = 0.6 * double(memory_bytes_for(is_device_backend<Exec>)) / double(sizeof(T));
  const std::int64_t max_n = settings().max_n > 0 ? settings().max_n : std::numeric_limits<std::int64_t>::max();
  const auto fits = [&](std::int64_t n) { return n <= max_n && 6.0 * double(n) <= budget; };
  std::vector<SizeCase> list;
  std::int64_t largest = 0;
  for (int log2 = 10; log2 <= 28; log2 += log2 < 24 ? 1 : 2) {
    const std::int64_t n = std::int64_t(1) << log2;
    if (fits(n)) list.push_back({Layout::aligned, largest = n});
    if ((log2 == 16 || log2 == 20 || log2 == 24) && fits(n + 7)) list.push_back({Layout::aligned, n + 7});
  }
  if (largest > 0 && fits(largest + 7) && list.back().n != largest + 7) list.push_back({Layout::aligned, largest += 7});
  for (const Layout layout : all_layouts) {
    if (layout == Layout::aligned) continue;
    for (const int log2 : {20, 24, 28}) {
      const std::int64_t n = std::int64_t(1) << log2;
      const double need = 4.0 * double(n * layout_stride(layout) + 3) + 2.0 * double(largest);
      if (n <= max_n && need <= budget) list.push_back({layout, n});
    }
  }
  return list;
}

/// chain64 runs at 2^12, 2^16, 2^20, 2^24 and 2^28 on a GPU (up to 2^20 on the host, where a call of 64 operations
/// on large arrays takes seconds), aligned only.
template <class Exec>
bool chain64_size(Layout layout, std::int64_t n) {
  const std::int64_t largest = is_device_backend<Exec> ? std::int64_t(1) << 28 : std::int64_t(1) << 20;
  if (layout != Layout::aligned || n < 4096 || n > largest || (n & (n - 1)) != 0) return false;
  int log2 = 0;
  while ((std::int64_t(1) << log2) < n) ++log2;
  return log2 % 4 == 0;
}

template <class Exec, class T>
void register_backend(const char* type_name) {
  const auto list = sizes<Exec, T>();
  if (list.empty()) return;
  Extents extents;
  for (const auto& [layout, n] : list) {
    extents.capacity = std::max(extents.capacity, n * layout_stride(layout) + 3);
    if (layout == Layout::aligned) extents.temporaries = std::max(extents.temporaries, n);
  }
  const std::int64_t smallest = list.front().n;
  const auto all = std::make_shared<std::vector<Variant<Exec, T>>>(variants<Exec, T>());
  // Copy first at each size, so the other variants can report pct_of_copy.
  for (const auto& [layout, n] : list) {
    for (const bool copies : {true, false}) {
      for (const auto& variant : *all) {
        if ((variant.op == Op::copy) != copies || !variant.runs_on(layout)) continue;
        if (variant.only_small && (n != smallest * 4 || layout != Layout::aligned)) continue;
        if (variant.op == Op::chain64 && !chain64_size<Exec>(layout, n)) continue;
        const std::string copy_key = std::string(Exec::name()) + "/" + type_name + "/" + std::to_string(n);
        const std::string name = std::string(op_name(variant.op)) + "/" + variant.name + "/" + type_name + "/" +
                                 Exec::name() + "/" + layout_name(layout) + "/" + std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(),
                                     [all, &variant, layout, n, extents, copy_key](benchmark::State& state) {
                                       run(state, variant, layout, n, extents, copy_key);
                                     })
            ->UseManualTime()
            ->MinTime(settings().min_time)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

/// Brings a GPU to its working clocks before the first timing (about a second of copies), so the first
/// benchmarks are not measured on an idle, slowly clocked device.
template <class Exec>
void warm_up() {
  if constexpr (!is_device_backend<Exec>) return;
  Kokkos::View<float*, typename Exec::memory_space> a("warm_up_a", std::int64_t(1) << 28), b("warm_up_b", a.extent(0));
  Timer<Exec> timer;
  double elapsed = 0;
  while (elapsed < 1.0) {
    timer.start();
    for (int k = 0; k < 20; ++k) Kokkos::deep_copy(Exec(), b, a);
    elapsed += timer.stop();
  }
}

template <class Exec>
void register_backend() {
  register_backend<Exec, float>("float");
  register_backend<Exec, double>("double");
  // 16-bit types where Kokkos has them (a CUDA build); elsewhere Kokkos makes them float, measured above.
#if !KOKKOS_HALF_T_IS_FLOAT
  register_backend<Exec, Kokkos::Experimental::half_t>("half");
#endif
#if !KOKKOS_BHALF_T_IS_FLOAT
  register_backend<Exec, Kokkos::Experimental::bhalf_t>("bf16");
#endif
}

std::string read_cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

void add_context(const std::string& command) {
  for (const auto& [key, value] : kstream::configuration()) benchmark::AddCustomContext("kstream." + key, value);
  benchmark::AddCustomContext("kstream.command", command);
  const StreamingStores mode = kstream::streaming_stores();
  benchmark::AddCustomContext("kstream.streaming_stores", mode == StreamingStores::always  ? "always"
                                                          : mode == StreamingStores::never ? "never"
                                                                                           : "automatic");
  const char* commit = std::getenv("KSTREAM_GIT_COMMIT");
  benchmark::AddCustomContext("kstream.commit", commit && *commit ? commit : "unknown");
  benchmark::AddCustomContext("kstream.cpu_model", read_cpu_model());
  for (const char* var : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "KSTREAM_MACHINE"}) {
    const char* value = std::getenv(var);
    benchmark::AddCustomContext(std::string("env.") + var, value ? value : "(unset)");
  }
  for (const auto& [key, value] : cuda_context()) benchmark::AddCustomContext("kstream." + key, value);
#if KSTREAM_BENCH_KOKKOS_KERNELS
  benchmark::AddCustomContext("kstream.kokkos_kernels", kokkos_kernels_version());
#else
  benchmark::AddCustomContext("kstream.kokkos_kernels", "not found at configure time (no kokkosblas rows)");
#endif
}

// Takes kstream's own flags out of argv, leaving Google Benchmark's.
void parse_flags(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg.rfind("--kstream_max_n=", 0) == 0) {
      const std::string value(arg.substr(std::strlen("--kstream_max_n=")));
      char* end = nullptr;
      const long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1024) {
        std::fprintf(stderr, "kstream_bench: --kstream_max_n needs a whole number >= 1024, got '%s'\n", value.c_str());
        std::exit(2);
      }
      settings().max_n = n;
    } else if (arg.rfind("--kstream_min_time=", 0) == 0) {
      const std::string value(arg.substr(std::strlen("--kstream_min_time=")));
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds > 0)) {
        std::fprintf(stderr, "kstream_bench: --kstream_min_time needs seconds > 0, got '%s'\n", value.c_str());
        std::exit(2);
      }
      settings().min_time = seconds;
    } else if (arg == "--kstream_tuning") {
      settings().tuning = true;
    } else if (arg.rfind("--kstream_streaming_stores=", 0) == 0) {
      const std::string_view value = arg.substr(std::strlen("--kstream_streaming_stores="));
      if (value == "automatic") {
        kstream::set_streaming_stores(StreamingStores::automatic);
      } else if (value == "always") {
        kstream::set_streaming_stores(StreamingStores::always);
      } else if (value == "never") {
        kstream::set_streaming_stores(StreamingStores::never);
      } else {
        std::fprintf(stderr, "kstream_bench: --kstream_streaming_stores takes automatic, always or never, got '%s'\n",
                     std::string(value).c_str());
        std::exit(2);
      }
    } else if (arg == "--kstream_configuration") {
      settings().print_configuration = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
}

}  // namespace
}  // namespace kstream::bench

int main(int argc, char** argv) {
  using namespace kstream::bench;
  std::string command;  // as typed, before Kokkos and Google Benchmark take their flags out of argv
  for (int i = 0; i < argc; ++i) command.append(i ? " " : "").append(argv[i]);  // no temporary: g++ 12 -Wrestrict
  Kokkos::ScopeGuard kokkos(argc, argv);
  parse_flags(argc, argv);
  if (settings().print_configuration) {
    kstream::print_configuration(std::cout);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context(command);
  const std::int64_t nd_max_n = settings().max_n > 0 ? settings().max_n : std::numeric_limits<std::int64_t>::max();
#if defined(KSTREAM_BENCH_GPU)
  register_backend<KSTREAM_BENCH_GPU>();
  register_rank_n<KSTREAM_BENCH_GPU>(nd_max_n, settings().min_time);  // a GPU build's rows of several dimensions
  register_along<KSTREAM_BENCH_GPU>(nd_max_n, settings().min_time);
  register_rows<KSTREAM_BENCH_GPU>(nd_max_n, settings().min_time);
  warm_up<KSTREAM_BENCH_GPU>();
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  register_backend<Kokkos::OpenMP>();
#if !defined(KSTREAM_BENCH_GPU)
  register_rank_n<Kokkos::OpenMP>(nd_max_n, settings().min_time);
  register_along<Kokkos::OpenMP>(nd_max_n, settings().min_time);
  register_rows<Kokkos::OpenMP>(nd_max_n, settings().min_time);
#endif
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  register_backend<Kokkos::Serial>();
#if !defined(KSTREAM_BENCH_GPU)
  register_rank_n<Kokkos::Serial>(nd_max_n, settings().min_time);
  register_along<Kokkos::Serial>(nd_max_n, settings().min_time);
  register_rows<Kokkos::Serial>(nd_max_n, settings().min_time);
#endif
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Everything holding Kokkos objects (the variants' execution spaces, the storage) goes before finalize.
  benchmark::ClearRegisteredBenchmarks();
  current_storage().reset();
  return 0;
}

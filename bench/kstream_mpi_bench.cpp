// kstream on several MPI ranks: one rank per GPU on a CUDA build (host threads per rank on a host build), every
// rank owning a contiguous slice of each distributed vector and running kstream's engine on it. No data moves
// between ranks (elementwise work needs none); MPI carries only the timings and the validation counts.
//
//   mpirun -np 2 kstream_mpi_bench [google benchmark flags] [--kstream_weak_n=268435456,1073741824]
//       [--kstream_strong_n=1073741824,17179869184] [--kstream_ops=add,fma,chain] [--kstream_types=float,double]
//       [--kstream_rank_counts=1,2] [--kstream_iterations=10] [--kstream_repetitions=5]
//
// Every benchmark runs on the first k ranks of the job for each k of --kstream_rank_counts (default 1, 2, 4, ...,
// the job's size), so one job measures 1 GPU and 2 GPUs on the same machine and build; the other ranks wait.
//   weak:   n elements per rank (the name's n), k n in all;     strong: n elements in all (the name's n), n / k each.
// Names read op/tiled/type/backend/mode/n, e.g. add/tiled/float/Cuda/weak/1073741824, with counters ranks (k),
// GB/s (all ranks' bytes from the byte table over the slowest rank's time), us_per_call, n (global), n_per_rank.
// A case that does not fit in every rank's memory is not run and is listed in the context (mpi.not_run).
//
// Each case allocates and fills its slices, calls for a quarter second (working clocks), then times iterations of
// a barrier, the batch of calls, a fence, then the maximum of the ranks' times (MPI).
// Iterations are fixed (every rank runs the same loop); --kstream_repetitions registers every benchmark that many
// times, round after round (interleaved). Results are checked on every rank after its timed loop and the counts
// summed with MPI: a wrong element anywhere fails the benchmark (SkipWithError) and the exit status, never a number.
// Rank 0 prints and writes the JSON (--benchmark_out); it has kstream_bench's schema.
// Kokkos is initialized from settings (the rank's device), not from --kokkos-* flags; OpenMP threads per rank
// come from OMP_NUM_THREADS.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <kstream/kstream.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "bench_support.hpp"

namespace kstream::bench {
namespace {

using Exec = Kokkos::DefaultExecutionSpace;

enum class Mode { weak, strong };

struct MpiSettings {
  std::vector<std::int64_t> weak_n{std::int64_t(1) << 28, std::int64_t(1) << 30};
  std::vector<std::int64_t> strong_n{std::int64_t(1) << 30};
  std::vector<Op> ops{Op::add, Op::fma, Op::chain};
  std::vector<std::string> types{"float"};
  std::vector<int> rank_counts;  // empty: 1, 2, 4, ... and the job's size
  int iterations = 10;
  int repetitions = 1;
  int inject_error_on_rank = -1;  // test hook: that rank writes one wrong element after its timed loop
};

MpiSettings& settings() {
  static MpiSettings s;
  return s;
}

struct Job {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
};

Job& job() {
  static Job j;
  return j;
}

/// Set when any benchmark failed its validation: the exit status.
bool& any_failure() {
  static bool failed = false;
  return failed;
}

[[noreturn]] void usage_error(const std::string& message) {
  if (job().rank == 0) std::fprintf(stderr, "kstream_mpi_bench: %s\n", message.c_str());
  MPI_Finalize();
  std::exit(2);
}

std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> items;
  std::stringstream stream{std::string(list)};
  for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  return items;
}

std::vector<std::int64_t> parse_counts(std::string_view flag, std::string_view list, std::int64_t least) {
  std::vector<std::int64_t> values;
  for (const std::string& item : split(list)) {
    char* end = nullptr;
    const long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value < least)
      usage_error(std::string(flag) + " takes a comma-separated list of whole numbers >= " + std::to_string(least) +
                  ", got '" + std::string(list) + "'");
    values.push_back(value);
  }
  if (values.empty()) usage_error(std::string(flag) + " needs at least one value");
  return values;
}

// Takes kstream's flags out of argv (every rank), and --benchmark_out* on ranks other than 0 (one JSON file).
void parse_flags(int& argc, char** argv) {
  auto& s = settings();
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    auto value_of = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (arg.rfind(flag, 0) == 0 && arg.size() > flag.size() && arg[flag.size()] == '=')
        return arg.substr(flag.size() + 1);
      return std::nullopt;
    };
    if (auto v = value_of("--kstream_weak_n")) {
      s.weak_n = *v == "none" ? std::vector<std::int64_t>{} : parse_counts("--kstream_weak_n", *v, 1);
    } else if (auto v = value_of("--kstream_strong_n")) {
      s.strong_n = *v == "none" ? std::vector<std::int64_t>{} : parse_counts("--kstream_strong_n", *v, 1);
    } else if (auto v = value_of("--kstream_ops")) {
      s.ops.clear();
      for (const std::string& op : split(*v)) {
        if (op == "add") s.ops.push_back(Op::add);
        else if (op == "fma") s.ops.push_back(Op::fma);
        else if (op == "chain") s.ops.push_back(Op::chain);
        else usage_error("--kstream_ops takes add, fma and chain, got '" + op + "'");
      }
    } else if (auto v = value_of("--kstream_types")) {
      s.types = split(*v);
      for (const std::string& type : s.types)
        if (type != "float" && type != "double") usage_error("--kstream_types takes float and double, got '" + type + "'");
    } else if (auto v = value_of("--kstream_rank_counts")) {
      s.rank_counts.clear();
      for (const std::int64_t k : parse_counts("--kstream_rank_counts", *v, 1)) {
        if (k > job().size)
          usage_error("--kstream_rank_counts: " + std::to_string(k) + " ranks asked, the job has " +
                      std::to_string(job().size));
        s.rank_counts.push_back(int(k));
      }
    } else if (auto v = value_of("--kstream_iterations")) {
      s.iterations = int(parse_counts("--kstream_iterations", *v, 1).front());
    } else if (auto v = value_of("--kstream_repetitions")) {
      s.repetitions = int(parse_counts("--kstream_repetitions", *v, 1).front());
    } else if (auto v = value_of("--kstream_inject_error_on_rank")) {
      s.inject_error_on_rank = int(parse_counts("--kstream_inject_error_on_rank", *v, 0).front());
    } else if (arg.rfind("--benchmark_enable_random_interleaving", 0) == 0) {
      // Each rank would shuffle differently and wait in another benchmark's barrier.
      usage_error("--benchmark_enable_random_interleaving cannot keep ranks in step; use --kstream_repetitions=N");
    } else if (arg.rfind("--benchmark_out", 0) == 0 && job().rank != 0) {
      // rank 0 writes the file
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (s.rank_counts.empty()) {
    for (int k = 1; k < job().size; k *= 2) s.rank_counts.push_back(k);
    s.rank_counts.push_back(job().size);
  }
}

/// Rank r's slice of n elements split over k ranks: [first, first + count).
struct Slice {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

Slice slice_of(Mode mode, std::int64_t n, int k, int rank) {
  if (rank >= k) return {};
  if (mode == Mode::weak) return {std::int64_t(rank) * n, n};
  const std::int64_t first = n / k * rank + std::min<std::int64_t>(rank, n % k);
  return {first, n / k + (rank < n % k ? 1 : 0)};
}

std::int64_t global_n(Mode mode, std::int64_t n, int k) {
  return mode == Mode::weak ? n * k : n;
}

/// Bytes one rank may give a benchmark's arrays: 95 % of its GPU's free memory (fma at 2^34 floats on two H200s
/// needs 128 GiB of each GPU's 140), or 60 % of the host's memory shared by the ranks on the host; the minimum over
/// the job.
std::int64_t memory_per_rank() {
  std::int64_t bytes = 0;
  if constexpr (is_device_backend<Exec>) {
#if defined(KSTREAM_BENCH_GPU)
    bytes = std::int64_t(0.95 * double(gpu_free_bytes()));
#endif
  } else {
    const double host = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    bytes = std::int64_t(0.6 * host / job().local_size);
  }
  std::int64_t least = 0;
  MPI_Allreduce(&bytes, &least, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  return least;
}

template <class T>
using View = Kokkos::View<T*, Exec::memory_space>;

/// One rank's slice of x, y, z and out (z only where the operation reads it), inputs filled from global indices.
template <class T>
struct SliceOperands {
  Operands<Exec, T> ops;
  View<T> x, y, z, out;

  SliceOperands(Op op, Slice slice)
      : x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mpi_bench_x"), slice.count),
        y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mpi_bench_y"), slice.count),
        z(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mpi_bench_z"), op == Op::add ? 0 : slice.count),
        out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mpi_bench_out"), slice.count) {
    fill(slice.first);
    using V = Vec<Exec, T>;
    // add reads no z: validation passes out for it (expected_value ignores z for add).
    ops = {slice.count,
           V(x.data(), slice.count),
           V(y.data(), slice.count),
           V(op == Op::add ? out.data() : z.data(), slice.count),
           V(out.data(), slice.count),
           V(),
           V(),
           V()};
  }

  void fill(std::int64_t first) {
    auto vx = x, vy = y, vz = z, vout = out;
    const bool has_z = z.extent(0) > 0;
    Kokkos::parallel_for(
        "kstream::mpi_bench::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, x.extent(0)),
        KOKKOS_LAMBDA(std::int64_t i) {
          vx(i) = input_value<T>(0, first + i);
          vy(i) = input_value<T>(1, first + i);
          if (has_z) vz(i) = input_value<T>(2, first + i);
          vout(i) = T(-1);  // not a possible result (inputs are >= 0): an element never written is caught
        });
    Kokkos::fence();
  }
};

template <class T>
void call(Op op, const Operands<Exec, T>& o) {
  const Exec exec;
  switch (op) {
    case Op::add:
      return kstream::add(exec, o.x, o.y, o.out);
    case Op::fma:
      return kstream::fma(exec, o.x, o.y, o.z, o.out);
    case Op::chain:
      return kstream::transform(exec, o.out, Chain<T>{}, o.x, o.y, o.z);
    default:
      return;
  }
}

/// Calls per timed iteration: about 32 GiB of one rank's traffic (about 8 ms on a GPU), at least 1, at most 4096.
std::int64_t calls_per_iteration(std::int64_t bytes_per_rank_call) {
  return std::clamp<std::int64_t>((std::int64_t(1) << 35) / std::max<std::int64_t>(bytes_per_rank_call, 1), 1, 4096);
}

/// Calls until a quarter of a second has passed: a GPU that idled (say, while the 1-rank cases ran on another
/// one) is brought to its working clocks before it is timed; the first two-GPU run without this timed the second
/// GPU slow (2026-11-30_H200x2_mpi_no_warmup.json, in git history before 8d6974c).
template <class T>
void warm_up(Op op, const Operands<Exec, T>& o) {
  const auto begin = std::chrono::steady_clock::now();
  do {
    call<T>(op, o);
    Kokkos::fence();
  } while (std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(250));
}

template <class T>
void run(benchmark::State& state, Op op, Mode mode, std::int64_t n, int k) {
  const Slice slice = slice_of(mode, n, k, job().rank);
  const bool active = slice.count > 0;
  const std::int64_t largest_slice = slice_of(mode, n, k, 0).count;
  const std::int64_t batch = calls_per_iteration(arrays_moved(op) * std::int64_t(sizeof(T)) * largest_slice);
  std::optional<SliceOperands<T>> operands;
  std::string failure;
  if (active) {
    try {
      operands.emplace(op, slice);
      warm_up<T>(op, operands->ops);
    } catch (const std::exception& e) {  // e.g. out of memory: every rank hears of it, none waits for the others
      failure = e.what();
      operands.reset();
    }
  }
  int failed_ranks = failure.empty() ? 0 : 1, all_failed = 0;
  MPI_Allreduce(&failed_ranks, &all_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (all_failed > 0) {
    any_failure() = true;
    state.SkipWithError(("could not run on " + std::to_string(all_failed) + " rank(s)" +
                         (failure.empty() ? std::string() : ", rank " + std::to_string(job().rank) + ": " + failure))
                            .c_str());
    return;
  }
  double seconds = 0;
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto begin = std::chrono::steady_clock::now();
    if (active) {
      for (std::int64_t b = 0; b < batch; ++b) call<T>(op, operands->ops);
      Exec().fence();
    }
    const double mine =
        active ? std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() : 0.0;
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.SetIterationTime(slowest);
    seconds += slowest;
  }
  // Validation on every rank, summed over the job.
  std::int64_t errors = 0;
  if (active) {
    if (job().rank == settings().inject_error_on_rank)
      Kokkos::deep_copy(Kokkos::subview(operands->out, slice.count - 1), T(-1));
    errors = count_errors(op, operands->ops);
  }
  std::vector<std::int64_t> per_rank(job().size);
  MPI_Allgather(&errors, 1, MPI_INT64_T, per_rank.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  operands.reset();
  const std::int64_t all_n = global_n(mode, n, k);
  const double calls = double(state.iterations()) * double(batch);
  const double bytes = double(arrays_moved(op)) * sizeof(T) * double(all_n);
  state.counters["GB/s"] = seconds > 0 ? bytes * calls / seconds / 1e9 : 0.0;
  state.counters["us_per_call"] = calls > 0 ? 1e6 * seconds / calls : 0.0;
  state.counters["n"] = double(all_n);
  state.counters["n_per_rank"] = double(largest_slice);
  state.counters["ranks"] = double(k);
  state.counters["calls_per_iteration"] = double(batch);
  std::string wrong;
  for (int r = 0; r < job().size; ++r)
    if (per_rank[r] != 0)
      wrong += (wrong.empty() ? "" : ", ") + std::to_string(per_rank[r]) + " wrong on rank " + std::to_string(r);
  if (!wrong.empty()) {
    any_failure() = true;
    state.SkipWithError(("validation failed on " + std::to_string(k) + " ranks: " + wrong + " (of " +
                         std::to_string(all_n) + " elements)")
                            .c_str());
  }
}

/// Registers every case of type T that fits in `memory` bytes per rank; lists the others in `not_run` (when given).
template <class T>
void register_all(const char* type_name, std::int64_t memory, std::vector<std::string>* not_run) {
  for (const Mode mode : {Mode::weak, Mode::strong}) {
    for (const std::int64_t n : mode == Mode::weak ? settings().weak_n : settings().strong_n) {
      for (const int k : settings().rank_counts) {
        for (const Op op : settings().ops) {
          const std::int64_t arrays = op == Op::add ? 3 : 4;
          const std::int64_t need = arrays * std::int64_t(sizeof(T)) * slice_of(mode, n, k, 0).count;
          const std::string name = std::string(op_name(op)) + "/tiled/" + type_name + "/" + Exec::name() + "/" +
                                   (mode == Mode::weak ? "weak" : "strong") + "/" + std::to_string(n);
          if (need > memory) {
            if (not_run)
              not_run->push_back(name + " on " + std::to_string(k) + " rank(s): " + std::to_string(need) +
                              " bytes per rank, " + std::to_string(memory) + " available");
            continue;
          }
          benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) { run<T>(state, op, mode, n, k); })
              ->UseManualTime()
              ->Iterations(settings().iterations)
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
}

/// Prints nothing: the reporter of ranks other than 0.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

/// "host: device" of this rank, gathered on rank 0 for the context.
std::string describe_rank() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string text = std::string(host) + ", " + Exec::name();
#if defined(KOKKOS_ENABLE_CUDA)
  const int device = Kokkos::Cuda().cuda_device();
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  char bus[32] = {};
  cudaDeviceGetPCIBusId(bus, sizeof(bus), device);
  text += " device " + std::to_string(device) + " (" + prop.name + ", " + bus + ")";
#elif defined(KOKKOS_ENABLE_HIP)
  const int device = Kokkos::HIP().hip_device();
  hipDeviceProp_t prop{};
  (void)hipGetDeviceProperties(&prop, device);
  char bus[32] = {};
  (void)hipDeviceGetPCIBusId(bus, sizeof(bus), device);
  text += " device " + std::to_string(device) + " (" + prop.name + ", " + prop.gcnArchName + ", " + bus + ")";
#else
  text += " " + std::to_string(Exec().concurrency()) + " threads";
#endif
  return text;
}

std::vector<std::string> gather_strings(const std::string& mine) {
  constexpr int width = 256;
  std::vector<char> sent(width, '\0'), all(std::size_t(width) * job().size, '\0');
  std::memcpy(sent.data(), mine.data(), std::min<std::size_t>(mine.size(), width - 1));
  MPI_Gather(sent.data(), width, MPI_CHAR, all.data(), width, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> strings;
  for (int r = 0; r < job().size; ++r) strings.emplace_back(all.data() + std::size_t(r) * width);
  return strings;
}

void add_context(const std::string& command, const std::vector<std::string>& not_run) {
  const std::vector<std::string> ranks = gather_strings(describe_rank());
  if (job().rank != 0) return;
  for (const auto& [key, value] : kstream::configuration()) benchmark::AddCustomContext("kstream." + key, value);
  for (const auto& [key, value] : cuda_context()) benchmark::AddCustomContext("kstream." + key, value);
  benchmark::AddCustomContext("kstream.command", command);
  const char* commit = std::getenv("KSTREAM_GIT_COMMIT");
  benchmark::AddCustomContext("kstream.commit", commit && *commit ? commit : "unknown");
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string first_line(library, std::min<std::size_t>(std::strlen(library), std::strcspn(library, "\n")));
  benchmark::AddCustomContext("mpi.library", first_line);
  benchmark::AddCustomContext("mpi.ranks", std::to_string(job().size));
  benchmark::AddCustomContext("mpi.ranks_per_host", std::to_string(job().local_size));
  for (int r = 0; r < job().size; ++r) benchmark::AddCustomContext("mpi.rank." + std::to_string(r), ranks[r]);
  std::string skipped;
  for (const std::string& line : not_run) skipped += (skipped.empty() ? "" : "; ") + line;
  benchmark::AddCustomContext("mpi.not_run", skipped.empty() ? "(none)" : skipped);
  for (const char* var : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "KSTREAM_MACHINE"}) {
    const char* value = std::getenv(var);
    benchmark::AddCustomContext(std::string("env.") + var, value ? value : "(unset)");
  }
}

/// The rank's device: local rank modulo the GPUs this host has (a CUDA build); host builds set nothing.
Kokkos::InitializationSettings kokkos_settings() {
  Kokkos::InitializationSettings settings;
#if defined(KSTREAM_BENCH_GPU)
  const int devices = gpu_count();
  if (devices == 0) usage_error("no GPU on this host");
  if (job().local_size > devices && job().local_rank == 0)
    std::fprintf(stderr, "kstream_mpi_bench: %d ranks on this host share %d GPUs: results will not scale\n",
                 job().local_size, devices);
  settings.set_device_id(job().local_rank % devices);
#endif
  return settings;
}

}  // namespace
}  // namespace kstream::bench

int main(int argc, char** argv) {
  using namespace kstream::bench;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &job().rank);
  MPI_Comm_size(MPI_COMM_WORLD, &job().size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job().rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &job().local_rank);
  MPI_Comm_size(local, &job().local_size);
  MPI_Comm_free(&local);
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  parse_flags(argc, argv);
  bool failed = false;
  {
    Kokkos::ScopeGuard kokkos(kokkos_settings());
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) usage_error("unrecognized arguments");
    const std::int64_t memory = memory_per_rank();
    std::vector<std::string> not_run;
    for (int round = 0; round < settings().repetitions; ++round) {
      for (const std::string& type : settings().types) {
        std::vector<std::string>* listed = round == 0 ? &not_run : nullptr;
        if (type == "float") register_all<float>("float", memory, listed);
        if (type == "double") register_all<double>("double", memory, listed);
      }
    }
    add_context(command, not_run);
    if (job().rank == 0) {
      for (const std::string& line : not_run) std::fprintf(stderr, "kstream_mpi_bench: not run (memory): %s\n", line.c_str());
      benchmark::RunSpecifiedBenchmarks();
    } else {
      SilentReporter silent;
      benchmark::RunSpecifiedBenchmarks(&silent);
    }
    benchmark::Shutdown();
    failed = any_failure();
  }
  MPI_Finalize();
  return failed ? 1 : 0;
}

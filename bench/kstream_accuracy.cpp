// How close float dot products come to the exact result: kstream::dot (float inputs accumulated in double)
// against what a user writes without it (a Kokkos parallel_reduce in float, an `omp parallel for reduction` loop
// in float) and, on CUDA, cuBLAS's Sdot, on three input families:
//   uniform      x, y uniform in [-1, 1]
//   cancelling   x = +2^20, s, -2^20, s, ... (s uniform in [0, 1)), y = 1: the large values cancel exactly
//   wide         x = u * 2^k (u uniform in [-1, 1], k uniform in [-20, 20]), y uniform in [-1, 1]
// The reference is a compensated sum in long double on the host. Each row: relative error |got - exact| / |exact|.
//
//   kstream_accuracy [--n=N] [--out=FILE.json] [--inputs=DIR]      (default n = 2^24)
// --inputs writes each family's x and y as raw float32 (DIR/<family>_x.f32, _y.f32) for other programs to read the
// same inputs (scripts/triton_compare.py --accuracy: PyTorch and Triton).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <kstream/configuration.hpp>
#include <kstream/reduce.hpp>
#include <random>
#include <string>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cublas_v2.h>
#endif

namespace {

struct Row {
  std::string backend, family, method;
  double value, exact;
  double relative_error() const { return exact == 0 ? std::fabs(value) : std::fabs(value - exact) / std::fabs(exact); }
};

/// The inputs of one family on the host.
void make_inputs(const std::string& family, std::int64_t n, std::vector<float>& x, std::vector<float>& y) {
  std::mt19937_64 random(2026);
  std::uniform_real_distribution<double> unit(-1, 1), positive(0, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  x.resize(n);
  y.resize(n);
  for (std::int64_t i = 0; i < n; ++i) {
    if (family == "uniform") {
      x[i] = float(unit(random));
      y[i] = float(unit(random));
    } else if (family == "cancelling") {
      x[i] = i % 2 ? float(positive(random)) : (i % 4 == 0 ? 1048576.0f : -1048576.0f);
      y[i] = 1.0f;
    } else {
      x[i] = float(std::ldexp(unit(random), exponent(random)));
      y[i] = float(unit(random));
    }
  }
}

/// sum of x(i) * y(i) as a compensated (Neumaier) sum in long double: the products of floats are exact there.
long double exact_dot(const std::vector<float>& x, const std::vector<float>& y) {
  long double sum = 0, compensation = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double term = (long double)x[i] * (long double)y[i];
    const long double t = sum + term;
    compensation += std::fabs(sum) >= std::fabs(term) ? (sum - t) + term : (term - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

/// values as raw float32; false where the file cannot be written.
bool write_floats(const std::string& path, const std::vector<float>& values) {
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(float)));
  return bool(file);
}

template <class Exec>
struct FloatDot {
  Kokkos::View<const float*, typename Exec::memory_space> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, float& sum) const { sum += x(i) * y(i); }
};

template <class Exec>
void measure(const char* backend, const std::string& family, const std::vector<float>& hx, const std::vector<float>& hy,
             long double exact, std::vector<Row>& rows) {
  using Space = typename Exec::memory_space;
  const std::int64_t n = std::int64_t(hx.size());
  Kokkos::View<float*, Space> x("x", n), y("y", n);
  Kokkos::deep_copy(x, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(hx.data(), n));
  Kokkos::deep_copy(y, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(hy.data(), n));
  const Exec exec;
  auto add = [&](const char* method, double value) { rows.push_back({backend, family, method, value, double(exact)}); };
  add("kstream::dot", kstream::dot(exec, x, y));
  float naive = 0;
  Kokkos::parallel_reduce("naive_float_dot", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                          FloatDot<Exec>{x, y}, naive);
  add("Kokkos parallel_reduce (float)", naive);
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) {
    const float* px = x.data();
    const float* py = y.data();
    float sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) sum += px[i] * py[i];
    add("omp parallel for reduction (float)", sum);
  }
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    cublasHandle_t handle{};
    cublasCreate(&handle);
    float result = 0;
    cublasSdot(handle, int(n), x.data(), 1, y.data(), 1, &result);
    cublasDestroy(handle);
    add("cuBLAS Sdot", result);
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::int64_t n = std::int64_t(1) << 24;
  std::string out, inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--n=", 0) == 0) {
      char* end = nullptr;
      n = std::strtoll(arg.c_str() + 4, &end, 10);
      if (*end != '\0' || n < 1 || n > (std::int64_t(1) << 31) - 1) {
        std::fprintf(stderr, "kstream_accuracy: --n takes a whole number from 1 to 2^31 - 1, got '%s'\n",
                     arg.c_str() + 4);
        return 2;
      }
    } else if (arg.rfind("--out=", 0) == 0) {
      out = arg.substr(6);
    } else if (arg.rfind("--inputs=", 0) == 0) {
      inputs = arg.substr(9);
    } else {
      std::fprintf(stderr, "kstream_accuracy: unknown argument '%s' (takes --n=N, --out=FILE.json, --inputs=DIR)\n",
                   arg.c_str());
      return 2;
    }
  }
  std::vector<Row> rows;
  for (const std::string family : {"uniform", "cancelling", "wide"}) {
    std::vector<float> x, y;
    make_inputs(family, n, x, y);
    const long double exact = exact_dot(x, y);
    if (!inputs.empty() &&
        !(write_floats(inputs + "/" + family + "_x.f32", x) && write_floats(inputs + "/" + family + "_y.f32", y))) {
      std::fprintf(stderr, "kstream_accuracy: cannot write the inputs into '%s'\n", inputs.c_str());
      return 1;
    }
#if defined(KOKKOS_ENABLE_CUDA)
    measure<Kokkos::Cuda>("Cuda", family, x, y, exact, rows);
#endif
#if defined(KOKKOS_ENABLE_HIP)
    measure<Kokkos::HIP>("HIP", family, x, y, exact, rows);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    measure<Kokkos::OpenMP>("OpenMP", family, x, y, exact, rows);
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    measure<Kokkos::Serial>("Serial", family, x, y, exact, rows);
#endif
  }
  std::printf("| backend | inputs | method | result | exact | relative error |\n|---|---|---|---|---|---|\n");
  for (const Row& r : rows)
    std::printf("| %s | %s | %s | %.17g | %.17g | %.2e |\n", r.backend.c_str(), r.family.c_str(), r.method.c_str(),
                r.value, r.exact, r.relative_error());
  if (!out.empty()) {
    std::ofstream file(out);
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    auto env = [](const char* name) {
      const char* value = std::getenv(name);
      return std::string(value && *value ? value : "(unset)");
    };
    auto quoted = [](const std::string& text) {  // a JSON string (the Kokkos configuration has several lines)
      std::string q = "\"";
      for (const char c : text)
        q += c == '"'    ? std::string("\\\"")
             : c == '\\' ? std::string("\\\\")
             : c == '\n' ? std::string("\\n")
                         : std::string(1, c);
      return q + "\"";
    };
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    file << "{\"context\": {\"command\": " << quoted(command) << ", \"date\": " << quoted(date)
         << ", \"kstream.commit\": " << quoted(env("KSTREAM_GIT_COMMIT"))
         << ", \"env.KSTREAM_MACHINE\": " << quoted(env("KSTREAM_MACHINE"))
         << ", \"env.OMP_NUM_THREADS\": " << quoted(env("OMP_NUM_THREADS")) << ", \"kokkos_version\": \""
         << KOKKOS_VERSION_MAJOR << "." << KOKKOS_VERSION_MINOR << "." << KOKKOS_VERSION_PATCH << "\"";
    for (const auto& [key, value] : kstream::configuration())
      file << ", " << quoted("kstream." + key) << ": " << quoted(value);
    file << "}, \"n\": " << n << ", \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "%s{\"backend\": \"%s\", \"inputs\": \"%s\", \"method\": \"%s\", \"result\": %.17g, "
                    "\"exact\": %.17g, \"relative_error\": %.6e}",
                    i ? ", " : "", rows[i].backend.c_str(), rows[i].family.c_str(), rows[i].method.c_str(),
                    rows[i].value, rows[i].exact, rows[i].relative_error());
      file << line;
    }
    file << "]}\n";
  }
  return 0;
}

#include <Kokkos_Core.hpp>
#include <kstream/configuration.hpp>
#include <kstream/impl/store_policy.hpp>
#include <kstream/streaming_stores.hpp>
#include <kstream/tiling.hpp>
#include <kstream/version.hpp>
#include <ostream>
#include <sstream>

namespace kstream {
namespace {

std::string to_string(const TileShape& shape) {
  std::ostringstream os;
  os << "team_size=" << shape.team_size << " packs_in_flight=" << shape.packs_in_flight
     << " chunks_per_thread=" << shape.chunks_per_thread << " pack_bytes=" << pack_bytes;
  return os.str();
}

template <class ExecSpace>
void describe_backend(std::map<std::string, std::string>& facts, std::string& backends) {
  const std::string name = ExecSpace::name();
  backends += (backends.empty() ? "" : ",") + name;
  facts["tile_shape." + name] = to_string(default_tile_shape<ExecSpace>());
}

}  // namespace

std::map<std::string, std::string> configuration() {
  std::map<std::string, std::string> facts;
  facts["version"] = KSTREAM_VERSION_STRING;
  facts["kokkos_version"] = std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
                            "." + std::to_string(KOKKOS_VERSION % 100);
  std::string backends;
#if defined(KOKKOS_ENABLE_SERIAL)
  describe_backend<Kokkos::Serial>(facts, backends);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  describe_backend<Kokkos::OpenMP>(facts, backends);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  describe_backend<Kokkos::Cuda>(facts, backends);
  const char* kind = "CUDA build (host backends compiled through nvcc)";
#elif defined(KOKKOS_ENABLE_HIP)
  describe_backend<Kokkos::HIP>(facts, backends);
  const char* kind = "HIP build (host backends compiled through hipcc)";
#else
  const char* kind = "host-only build";
#endif
  facts["backends"] = backends;
  // How this library was built: a host-only build and a GPU build's host backends compile differently.
  facts["build.compiler"] = KSTREAM_COMPILER;
  facts["build.host_arch"] = KSTREAM_HOST_ARCH_FLAG;
  facts["build.kind"] = kind;
  facts["build.streaming_stores"] = KSTREAM_HOST_STREAMING_STORES ? "x86 streaming stores available" : "none";
  facts["build.last_level_cache_bytes"] = std::to_string(last_level_cache_bytes());
  facts["default_execution_space"] = Kokkos::DefaultExecutionSpace::name();
  if (Kokkos::is_initialized()) {
    std::ostringstream os;
    Kokkos::print_configuration(os, false);
    facts["kokkos_configuration"] = os.str();
    facts["concurrency.default"] = std::to_string(Kokkos::DefaultExecutionSpace().concurrency());
    facts["concurrency.host"] = std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency());
#if defined(KOKKOS_ENABLE_CUDA)
    const cudaDeviceProp gpu = Kokkos::Cuda().cuda_device_prop();  // a copy: the instance is a temporary
    facts["gpu"] = std::string(gpu.name) + ", sm_" + std::to_string(gpu.major) + std::to_string(gpu.minor);
#elif defined(KOKKOS_ENABLE_HIP)
    const hipDeviceProp_t gpu = Kokkos::HIP().hip_device_prop();  // a copy: the instance is a temporary
    facts["gpu"] = std::string(gpu.name) + ", " + gpu.gcnArchName;
#endif
  }
  return facts;
}

void print_configuration(std::ostream& os) {
  const auto facts = configuration();
  auto fact = [&](const std::string& key) {
    const auto it = facts.find(key);
    return it == facts.end() ? std::string("?") : it->second;
  };
  os << "kstream " << fact("version") << "\n"
     << "  Kokkos " << fact("kokkos_version") << ", backends " << fact("backends") << " (default "
     << fact("default_execution_space") << ")\n"
     << "  build: " << fact("build.kind") << ", " << fact("build.compiler") << " " << fact("build.host_arch") << "\n";
  if (facts.count("gpu")) os << "  GPU: " << fact("gpu") << "\n";
  for (const auto& [key, value] : facts)
    if (key.rfind("tile_shape.", 0) == 0) os << "  default tile shape on " << key.substr(11) << ": " << value << "\n";
  os << "  host stores: " << fact("build.streaming_stores") << ", automatic above "
     << 2 * last_level_cache_bytes() / (1 << 20) << " MiB of operands (twice the last-level cache)\n";
}

std::string configuration_text() {
  std::ostringstream os;
  for (const auto& [key, value] : configuration()) os << key << ": " << value << "\n";
  return os.str();
}

}  // namespace kstream

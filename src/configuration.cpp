#include <Kokkos_Core.hpp>
#include <kstream/configuration.hpp>
#include <kstream/tiling.hpp>
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
#endif
  facts["backends"] = backends;
  facts["default_execution_space"] = Kokkos::DefaultExecutionSpace::name();
  if (Kokkos::is_initialized()) {
    std::ostringstream os;
    Kokkos::print_configuration(os, false);
    facts["kokkos_configuration"] = os.str();
    facts["concurrency.default"] = std::to_string(Kokkos::DefaultExecutionSpace().concurrency());
    facts["concurrency.host"] = std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency());
  }
  return facts;
}

std::string configuration_text() {
  std::ostringstream os;
  for (const auto& [key, value] : configuration()) os << key << ": " << value << "\n";
  return os.str();
}

}  // namespace kstream

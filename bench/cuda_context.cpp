// Facts about the GPU for the benchmarks' JSON context (kstream_bench, kstream_mpi_bench): model, kernel driver,
// CUDA versions. Empty in builds without CUDA.
#include "bench_support.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda/std/version>  // CCCL_MAJOR_VERSION

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

namespace kstream::bench {

namespace {
/// The NVIDIA kernel driver's release ("580.159.04"), from /proc/driver/nvidia/version; "unknown" elsewhere.
/// Its first line names the module in words that vary ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
/// 580.159.04  Release Build ..."): the release is the first word made of digits and dots.
std::string kernel_driver_release() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  std::getline(file, line);
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    const bool digits_and_dots = word.find_first_not_of("0123456789.") == std::string::npos;
    if (digits_and_dots && std::isdigit(static_cast<unsigned char>(word.front())) &&
        word.find('.') != std::string::npos)
      return word;
  }
  return "unknown";
}
}  // namespace

std::vector<std::pair<std::string, std::string>> cuda_context() {
  int device = 0, driver = 0, runtime = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  return {{"gpu", prop.name},
          {"gpu.driver", kernel_driver_release()},
          {"gpu.sm_count", std::to_string(prop.multiProcessorCount)},
          {"gpu.compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
          {"gpu.memory_bytes", std::to_string(prop.totalGlobalMem)},
          {"cuda.driver_api", version(driver)},
          {"cuda.runtime", version(runtime)},
          {"cuda.cccl", std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
                            std::to_string(CCCL_PATCH_VERSION)}};
}

}  // namespace kstream::bench
#else
namespace kstream::bench {
std::vector<std::pair<std::string, std::string>> cuda_context() {
  return {};
}
}  // namespace kstream::bench
#endif

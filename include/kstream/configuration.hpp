#pragma once
// What this build of kstream runs on: Kokkos version, enabled backends and their default tile shapes.
// Compiled in src/configuration.cpp; the benchmark suite writes it into its JSON context.
#include <map>
#include <string>

namespace kstream {

/// Key/value facts about the build and the Kokkos it uses ("kokkos_version", "backends", "tile_shape.Cuda", ...).
std::map<std::string, std::string> configuration();

/// The same facts as "key: value" lines.
std::string configuration_text();

}  // namespace kstream

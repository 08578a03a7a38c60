#pragma once
// What this build of kstream runs on: its version, Kokkos version, enabled backends and their default tile shapes.
// Compiled in src/configuration.cpp; the benchmark suite writes it into its JSON context.
#include <iosfwd>
#include <map>
#include <string>

namespace kstream {

/// Key/value facts about the build and the Kokkos it uses ("kokkos_version", "backends", "tile_shape.Cuda", ...).
std::map<std::string, std::string> configuration();

/// The same facts as "key: value" lines.
std::string configuration_text();

/// A short human-readable summary in the spirit of Kokkos::print_configuration: kstream's version, the Kokkos
/// version and backends, each enabled backend's default tile shape, and the host store policy.
void print_configuration(std::ostream& os);

}  // namespace kstream

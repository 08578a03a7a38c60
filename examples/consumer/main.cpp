// A program built against kstream as a package or a subproject: out = a * b + c and x + y on the default
// execution space, checked on the host. Exits non-zero when a result is wrong.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <iostream>
#include <kstream/kstream.hpp>
#include <kstream/version.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::int64_t n = 100003;  // not a multiple of any tile: the tail guard runs
  Kokkos::View<double*> a("a", n), b("b", n), c("c", n), out("out", n);
  Kokkos::deep_copy(a, 1.5);
  Kokkos::deep_copy(b, 4.0);
  Kokkos::deep_copy(c, 0.25);
  kstream::fma(a, b, c, out);  // 1.5 * 4 + 0.25 = 6.25
  kstream::add(out, a, out);   // 6.25 + 1.5 = 7.75
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) wrong += host(i) != 7.75;
  std::printf("kstream %s on %s: %lld of %lld elements wrong\n", KSTREAM_VERSION_STRING,
              Kokkos::DefaultExecutionSpace::name(), static_cast<long long>(wrong), static_cast<long long>(n));
  kstream::print_configuration(std::cout);
  return wrong == 0 ? 0 : 1;
}

// Must not compile: a HostSpace view on the Cuda execution space ("not accessible from the execution space").
#include <kstream/add.hpp>
void call(Kokkos::View<float*, Kokkos::HostSpace> x, Kokkos::View<float*, Kokkos::HostSpace> out) {
  kstream::add(Kokkos::Cuda(), x, x, out);
}

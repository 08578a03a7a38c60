// Must not compile: kstream works on rank-1 views ("views must be rank 1").
#include <kstream/add.hpp>
void call(Kokkos::View<double**> x, Kokkos::View<double**> out) {
  kstream::add(x, x, out);
}

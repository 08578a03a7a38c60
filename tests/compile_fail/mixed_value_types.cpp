// Must not compile: add needs one value type ("x, y and out must hold the same value type").
#include <kstream/add.hpp>
void call(Kokkos::View<float*> x, Kokkos::View<double*> out) {
  kstream::add(x, x, out);
}

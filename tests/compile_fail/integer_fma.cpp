// Must not compile: fma is for floating point ("the value type must be floating point").
#include <kstream/fma.hpp>
void call(Kokkos::View<int*> x, Kokkos::View<int*> out) {
  kstream::fma(x, x, x, out);
}

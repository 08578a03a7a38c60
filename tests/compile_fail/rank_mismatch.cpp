// Must not compile: every view of a call has one rank ("the views must all have the same rank").
#include <kstream/add.hpp>
void call(Kokkos::View<double**> x, Kokkos::View<double***> out) {
  kstream::add(x, x, out);
}

// Must not compile: the output view holds const values ("the output view must not be const").
#include <kstream/add.hpp>
void call(Kokkos::View<const double*> x, Kokkos::View<const double*> out) {
  kstream::add(x, x, out);
}

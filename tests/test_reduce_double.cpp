// kstream::dot and kstream::transform_reduce on double views of every backend (the bodies: reduce_tests.hpp).
#define KSTREAM_REDUCE_TYPE double
#include "reduce_tests.hpp"

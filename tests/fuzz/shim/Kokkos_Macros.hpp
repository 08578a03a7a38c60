#pragma once
// The two Kokkos macros kstream/impl/index_math.hpp uses, for the plan's fuzz target (built without Kokkos: the
// index arithmetic it checks is plain C++).
#define KOKKOS_INLINE_FUNCTION inline
#define KOKKOS_FORCEINLINE_FUNCTION inline

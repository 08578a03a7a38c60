// The suite's cases of rank 3 (and the reductions on its interiors) (suite_rank_n.hpp).
#include "suite_rank_n.hpp"

namespace kstream::bench {

KSTREAM_ND_RANK(, 3)
KSTREAM_ND_BF16(, 3)

}  // namespace kstream::bench

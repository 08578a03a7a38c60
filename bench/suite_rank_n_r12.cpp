// The suite's cases of ranks 1 and 2 (suite_rank_n.hpp).
#include "suite_rank_n.hpp"

namespace kstream::bench {

KSTREAM_ND_RANK(, 1)
KSTREAM_ND_RANK(, 2)
KSTREAM_ND_BF16(, 2)

}  // namespace kstream::bench

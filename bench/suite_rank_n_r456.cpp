// The suite's cases of ranks 4 to 6 (suite_rank_n.hpp).
#include "suite_rank_n.hpp"

namespace kstream::bench {

KSTREAM_ND_RANK(, 4)
KSTREAM_ND_RANK(, 5)
KSTREAM_ND_RANK(, 6)

}  // namespace kstream::bench

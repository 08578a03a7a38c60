// kstream::dot and kstream::transform_reduce on float views of every backend (the bodies: reduce_tests.hpp), and
// the device reductions' split, checked on any host.
#define KSTREAM_REDUCE_TYPE float
#include "reduce_tests.hpp"

namespace kstream::test {
namespace {

// The GPU split, checked on any host: chunks of one pass (256 threads x 4 packs of W), or of two or four (rows of
// packs, row_chunk_passes), as many as cover n and no more, and at least one (an empty reduction's identity comes
// from one team).
TEST(ReduceSplit, DeviceChunksCoverEveryElementOnce) {
  for (const int passes : {1, 2, 4})
    for (const int W : {1, 2, 4, 8}) {
      const std::int64_t items = std::int64_t(256) * 4 * W * passes;
      EXPECT_EQ(impl::device_chunk_items(W, passes), items);
      for (const std::int64_t n : {std::int64_t(0), std::int64_t(1), items - 1, items, items + 1, 263 * items + 5,
                                   (std::int64_t(1) << 28) + 7, (std::int64_t(1) << 31) + 7}) {
        const std::int64_t chunks = impl::device_chunks(n, W, passes);
        EXPECT_GE(chunks, 1) << "n " << n;
        EXPECT_GE(chunks * items, n) << "n " << n << ", W " << W;  // every element
        EXPECT_LT((chunks - 1) * items, std::max<std::int64_t>(n, 1)) << "n " << n << ", W " << W << ", " << passes;
      }
    }
  EXPECT_EQ(impl::device_chunks(std::int64_t(1) << 28, 4), 65536);
  EXPECT_EQ(impl::device_chunks(std::int64_t(1) << 28, 4, 4), 16384);
}

}  // namespace
}  // namespace kstream::test

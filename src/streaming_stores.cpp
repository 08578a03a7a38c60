#include <unistd.h>

#include <atomic>
#include <kstream/streaming_stores.hpp>

namespace kstream {
namespace {
std::atomic<StreamingStores>& mode() {
  static std::atomic<StreamingStores> current{StreamingStores::automatic};
  return current;
}
}  // namespace

void set_streaming_stores(StreamingStores m) {
  mode().store(m, std::memory_order_relaxed);
}

StreamingStores streaming_stores() {
  return mode().load(std::memory_order_relaxed);
}

std::int64_t last_level_cache_bytes() {
  static const std::int64_t bytes = [] {
    long size = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    size = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (size <= 0) size = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return size > 0 ? std::int64_t(size) : std::int64_t(32) << 20;
  }();
  return bytes;
}

}  // namespace kstream

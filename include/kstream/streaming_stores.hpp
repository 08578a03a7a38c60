#pragma once
// Non-temporal (streaming) stores on host backends.
//
// A plain store of a line that is not in cache first reads it (write-allocate): an add then moves 16 bytes per
// element instead of 12, an fma 20 instead of 16. On x86 the tiled engine can write its 16-byte packs with
// streaming stores (MOVNTDQ) that skip that read, which pays when the output could not stay in cache anyway.
//
//   kstream::set_streaming_stores(kstream::StreamingStores::automatic);   // the default
//
// automatic: used on a host execution space on x86 when every view is contiguous, the output is not one of the
//            inputs, and the arrays together are at least twice the last-level cache (below that, the output is
//            better left in cache for whoever reads it next). Views at unequal alignments stream too: the output
//            is written in 16-byte packs at its own alignment, the inputs are read at theirs;
// always:    on every contiguous host call whose output is not an input (tests use it to cover the path at small n);
// never:     plain stores only.
// Device backends, non-x86 hosts, strided views (a pack would span elements that are not the view's), outputs
// whose element size does not tile 16 bytes and aliased outputs always use plain stores.
// The setting is process-wide and may be changed between calls from any thread.
#include <cstdint>

namespace kstream {

enum class StreamingStores { automatic, always, never };

void set_streaming_stores(StreamingStores mode);
StreamingStores streaming_stores();

/// Bytes of the last-level cache as the automatic mode sees it (sysconf; 32 MiB when the system does not say).
std::int64_t last_level_cache_bytes();

}  // namespace kstream

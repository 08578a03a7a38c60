#pragma once
// The kernels of calls that keep several dimensions after normalization (kstream/impl/plan.hpp), where they do
// not run as device rows (tiled_functor.hpp):
//   GeneralFunctor   device: one element per index of a RangePolicy over the flattened space, its coordinates
//                    from divisions precomputed on the host (Coordinates: 32-bit index math where the plan
//                    allows; Strides: 64-bit; TiledCoordinates: tiles of two dimensions, for mixed layouts);
//   HostWalkFunctor  host: tiles of the flattened index, each one thread's walk along its rows (a contiguous row
//                    is a plain vectorized loop, with streaming stores where the plan says).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <kstream/impl/index_math.hpp>
#include <kstream/impl/pack.hpp>
#include <kstream/impl/plan.hpp>
#include <kstream/impl/slots.hpp>
#include <kstream/impl/store_policy.hpp>
#include <kstream/impl/tiled_functor.hpp>
#include <type_traits>
#include <utility>

namespace kstream::impl {

/// Index: Coordinates, TiledCoordinates (32-bit index math) or Strides (64-bit), each index's offsets in every
/// operand.
template <class Index, class Op, class OutT, class... InTs>
struct GeneralFunctor : OpField<Op> {
  static constexpr int K = 1 + int(sizeof...(InTs));
  using Seq = std::index_sequence_for<InTs...>;
  Bases<Seq, OutT, InTs...> at;
  Index index;

  GeneralFunctor(const Op& op, const Bases<Seq, OutT, InTs...>& at_, const Index& index_)
      : OpField<Op>(op), at(at_), index(index_) {}

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    std::int64_t offset[K];
    if constexpr (std::is_same_v<decltype(index.offsets(i, offset)), bool>) {
      if (!index.offsets(std::uint32_t(i), offset)) return;  // a tile's padding
    } else {
      index.offsets(i, offset);
    }
    apply(offset, Seq{});
  }

  template <std::size_t... Is>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const std::int64_t (&offset)[K], std::index_sequence<Is...>) const {
    at.out[offset[0]] = this->operation()(get<Is>(at.in)[offset[Is + 1]]...);
  }
};

template <class Op, class OutT, class... InTs>
struct HostWalkFunctor : OpField<Op> {
  static constexpr int K = 1 + int(sizeof...(InTs));
  using Seq = std::index_sequence_for<InTs...>;
  Bases<Seq, OutT, InTs...> at;
  Strides<K> strides;
  std::int64_t n, tile_elements;  ///< elements, or blocks where cross >= 0
  bool streaming_stores;
  int cross;

  HostWalkFunctor(const Bases<Seq, OutT, InTs...>& at_, const Plan& p, const Strides<K>& strides_, const Op& op)
      : OpField<Op>(op),
        at(at_),
        strides(strides_),
        n(p.body_items),
        tile_elements(p.chunks_per_thread),
        streaming_stores(p.streaming_stores),
        cross(p.cross_dim) {}

  // A local copy of the functor: in host memory the output stores could alias it as far as the compiler knows.
  void operator()(std::int64_t tile) const {
    const HostWalkFunctor local(*this);
    const std::int64_t first = tile * tile_elements;
    local.walk(first, std::min(n, first + tile_elements));
    if (streaming_stores) streaming_store_fence();  // visible at the join
  }

 private:
  void walk(std::int64_t first, std::int64_t last) const {
    bool unit = true;
    for (int k = 0; k < K; ++k) unit = unit && strides.stride[k][0] == 1;
    const auto each = [&](const std::int64_t(&offset)[K], std::int64_t length) { run(offset, length, unit, Seq{}); };
    if (cross >= 0) return walk_blocks(strides, cross, first, last, each);
    walk_runs(strides, first, last, each);
  }

  template <std::size_t... Is>
  void run(const std::int64_t (&offset)[K], std::int64_t length, bool unit, std::index_sequence<Is...>) const {
    OutT* const target = at.out + offset[0];
    const Slots<Seq, const InTs*...> sources{{get<Is>(at.in) + offset[Is + 1]}...};
    if (unit && length * std::int64_t(sizeof(OutT)) < 64) {  // shorter than a cache line: none to stream, and
      KSTREAM_NO_VECTOR                                        // host_elements' preamble would cost more than the row
      for (std::int64_t j = 0; j < length; ++j)
        target[j] = this->operation()(get<Is>(sources)[j]...);
      return;
    }
    if (unit) return host_elements(this->operation(), target, sources, 0, length, streaming_stores, Seq{});
    const std::int64_t target_stride = strides.stride[0][0];
    KSTREAM_IVDEP
    for (std::int64_t j = 0; j < length; ++j)
      target[j * target_stride] = this->operation()(get<Is>(sources)[j * strides.stride[Is + 1][0]]...);
  }
};

}  // namespace kstream::impl

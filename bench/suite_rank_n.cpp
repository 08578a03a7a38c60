// Registers the suite's rows of several dimensions (suite_rank_n.hpp); the cases of each rank are compiled in
// suite_rank_n_r*.cpp.
#include "suite_rank_n.hpp"

namespace kstream::bench {

KSTREAM_ND_RANK(extern, 1)
KSTREAM_ND_RANK(extern, 2)
KSTREAM_ND_RANK(extern, 3)
KSTREAM_ND_RANK(extern, 4)
KSTREAM_ND_RANK(extern, 5)
KSTREAM_ND_RANK(extern, 6)
KSTREAM_ND_BF16(extern, 2)
KSTREAM_ND_BF16(extern, 3)

namespace nd {

template <class Exec, class T>
void register_type(const std::string& type_name, std::int64_t max_n, double min_time) {
  constexpr bool bf16 = is_low_precision_v<T>;  // GPU builds: ranks 2 and 3 only
  std::vector<int> sizes;
  for (const int bits : {24, 27})
    if ((std::int64_t(1) << bits) <= max_n) sizes.push_back(bits);
  if (sizes.empty()) {  // a small run (tests): one size below max_n
    int bits = 12;
    while ((std::int64_t(2) << bits) <= max_n) ++bits;
    sizes.push_back(bits);
  }
  for (const int bits : sizes) {
    const auto list = cases_of(bits);
    std::int64_t capacity = 0;
    for (const NdCase& c : list) capacity = std::max(capacity, c.capacity());
    for (const NdCase& c : list) {
      switch (c.rank) {
        case 1:
          if constexpr (!bf16) register_case<Exec, T, 1>(type_name, c, capacity, min_time);
          break;
        case 2:
          register_case<Exec, T, 2>(type_name, c, capacity, min_time);
          break;
        case 3:
          register_case<Exec, T, 3>(type_name, c, capacity, min_time);
          break;
        case 4:
          if constexpr (!bf16) register_case<Exec, T, 4>(type_name, c, capacity, min_time);
          break;
        case 5:
          if constexpr (!bf16) register_case<Exec, T, 5>(type_name, c, capacity, min_time);
          break;
        case 6:
          if constexpr (!bf16) register_case<Exec, T, 6>(type_name, c, capacity, min_time);
          break;
        default:
          break;
      }
    }
  }
}

}  // namespace nd

template <class Exec>
void register_rank_n(std::int64_t max_n, double min_time) {
  nd::register_type<Exec, float>("float", max_n, min_time);
  nd::register_type<Exec, double>("double", max_n, min_time);
#if defined(KSTREAM_BENCH_GPU)
  nd::register_type<Exec, Kokkos::Experimental::bhalf_t>("bf16", max_n, min_time);
#endif
}

#define KSTREAM_SUITE_RANK_N(Exec) template void register_rank_n<Exec>(std::int64_t, double);
KSTREAM_ND_FOR_EACH_BACKEND(KSTREAM_SUITE_RANK_N)
#undef KSTREAM_SUITE_RANK_N

}  // namespace kstream::bench

#pragma once
// Paired rounds for the diagnostic host programs: every variant runs `reps` calls (after 3 warm-up calls) in each
// of 31 rounds, the variants taking turns, so that a drifting machine slows all of them alike. The order of the
// turns is shuffled in every round (a fixed seed): in a fixed order each variant always follows the same one, whose
// threads and caches it inherits, and that can bias a variant by more than the differences measured. Returns each
// variant's per-call microseconds, sorted (median: v[v.size() / 2]).
#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

inline std::vector<std::vector<double>> paired_rounds(
    const std::vector<std::pair<const char*, std::function<void()>>>& variants, int reps) {
  std::vector<std::vector<double>> t(variants.size());
  std::vector<std::size_t> order(variants.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::mt19937 shuffle_bits(20261130);
  for (int round = 0; round < 31; ++round) {
    std::shuffle(order.begin(), order.end(), shuffle_bits);
    for (const std::size_t k : order) {
      for (int r = 0; r < 3; ++r) variants[k].second();
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r) variants[k].second();
      const auto t1 = std::chrono::steady_clock::now();
      t[k].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
    }
  }
  for (auto& v : t) std::sort(v.begin(), v.end());
  return t;
}

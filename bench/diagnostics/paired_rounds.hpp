#pragma once
// Paired rounds for the diagnostic host programs: every variant runs `reps` calls (after 3 warm-up calls) in each
// of 31 rounds, the variants taking turns, so that a drifting machine slows all of them alike. Returns each
// variant's per-call microseconds, sorted (median: v[v.size() / 2]).
#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

inline std::vector<std::vector<double>> paired_rounds(
    const std::vector<std::pair<const char*, std::function<void()>>>& variants, int reps) {
  std::vector<std::vector<double>> t(variants.size());
  for (int round = 0; round < 31; ++round)
    for (std::size_t k = 0; k < variants.size(); ++k) {
      for (int r = 0; r < 3; ++r) variants[k].second();
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r) variants[k].second();
      const auto t1 = std::chrono::steady_clock::now();
      t[k].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
    }
  for (auto& v : t) std::sort(v.begin(), v.end());
  return t;
}

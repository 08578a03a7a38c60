#!/usr/bin/env bash
# Builds kstream's benchmark suite and runs it, writing Google Benchmark JSON into bench/results/ with a dated
# name, then a markdown report with plots beside it (scripts/report.py). Default: the host OpenMP backend from
# the toolchain root (scripts/toolchain.sh; made on the first run, about a minute).
#
#   scripts/bench.sh                                  # all sizes that fit in memory, float and double
#   scripts/bench.sh --kstream_max_n=16777216         # cap the size (small machines)
#   scripts/bench.sh --benchmark_filter='add/.*/float'   # any kstream_bench / Google Benchmark flag
#   Kokkos_ROOT=/opt/kokkos-cuda KSTREAM_PRESET=cuda scripts/bench.sh    # your own Kokkos (CUDA or host)
#
# OpenMP threads are bound (OMP_PROC_BIND=spread, OMP_PLACES=threads) unless you set them.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
source scripts/toolchain.sh
kstream_toolchain_ready

preset=${KSTREAM_PRESET:-bench}
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
machine=${KSTREAM_MACHINE:-$(hostname)}
out_dir=bench/results
mkdir -p "$out_dir"
json="$out_dir/${stamp}_${machine}_${preset}.json"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} KSTREAM_MACHINE=$machine

kstream_log "building preset $preset"
kstream_in_root bash -c "cmake --preset $preset >/dev/null && cmake --build --preset $preset"
binary=build/$preset/bench/kstream_bench
kstream_log "running $binary (progress below; JSON to $json)"
# Console output shows progress; the JSON file keeps every repetition and the median/mean/stddev aggregates.
kstream_in_root "$binary" --benchmark_repetitions="${KSTREAM_REPETITIONS:-3}" --benchmark_out="$json" \
  --benchmark_out_format=json --benchmark_counters_tabular=true "$@"

python=$(kstream_report_python)
"$python" scripts/report.py "$json" --out "${json%.json}.md" --plots "${json%.json}_plots"
kstream_log "results: $json, report: ${json%.json}.md"

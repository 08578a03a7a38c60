#!/usr/bin/env bash
# Runs kstream's whole test suite on the host backends: builds and tests the Serial backend under the
# sanitizers (ASan + UBSan; Trilinos' Kokkos 4.5) and the optimized OpenMP build (Kokkos 5.2), then the report
# script's test; beside the builds, the plan's fuzz target for 60 s (scripts/fuzz.sh, KSTREAM_FUZZ_SECONDS).
# Works on a fresh Debian 12 machine: the first run makes the toolchain root (scripts/toolchain.sh, about a
# minute), later runs reuse it.
#
#   scripts/test.sh                       # serial-asan openmp, then the Python scripts
#   KSTREAM_TEST_PRESETS="serial openmp asan" scripts/test.sh   # also: Serial optimized, OpenMP under the sanitizers
#   KSTREAM_TEST_PRESETS="openmp" scripts/test.sh
#   Kokkos_ROOT=/path/to/kokkos scripts/test.sh    # your own Kokkos, no toolchain root (preset "openmp")
#
# Ends with one line "N passed, N failed" over all configurations; exits non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
source scripts/toolchain.sh
kstream_toolchain_ready

if kstream_use_own_kokkos; then
  presets=${KSTREAM_TEST_PRESETS:-openmp}
else
  presets=${KSTREAM_TEST_PRESETS:-serial-asan openmp}
fi

passed=0
failed=0
count_ctest() {  # reads ctest's "x% tests passed, F tests failed out of T"
  local line
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n1)
  if [[ -z "$line" ]]; then failed=$((failed + 1)); return; fi
  local f t
  f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  t=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
  passed=$((passed + t - f))
  failed=$((failed + f))
}

log_dir=$repo/build/logs
mkdir -p "$log_dir"
# The plan's fuzz target runs on one core beside the builds (its own clang build, no Kokkos).
scripts/fuzz.sh >"$log_dir/fuzz.log" 2>&1 &
fuzz_pid=$!
for preset in $presets; do
  kstream_log "preset $preset: configure, build, test"
  kokkos_root=""
  other_kokkos=""  # the toolchain root has two Kokkos: each build's package test is shown the other one
  kokkos_kernels=""
  if ! kstream_use_own_kokkos; then
    if [[ "$preset" == serial* ]]; then
      kokkos_root=$KSTREAM_SERIAL_KOKKOS_ROOT
      other_kokkos=/usr/lib/x86_64-linux-gnu/cmake/Kokkos
      kokkos_kernels="-DKokkosKernels_ROOT=$KSTREAM_SERIAL_KOKKOSKERNELS_ROOT"  # its kokkosblas rows in bench.small_rows
    else
      other_kokkos=$KSTREAM_SERIAL_KOKKOS_ROOT
    fi
  fi
  # The tuning programs (bench/tuning) build in the OpenMP configuration, so they cannot rot.
  tuning=""
  [[ "$preset" == openmp ]] && tuning="-DKSTREAM_BUILD_TUNING=ON"
  # serial-asan is the Serial build under ASan + UBSan (-O2): the library and the tests on the Serial backend and
  # Trilinos' Kokkos, checked for memory errors and undefined behaviour, and the suite (not instrumented) with Kokkos
  # Kernels' rows; the property test takes a sample of its cases there (all of them in the OpenMP build, which also
  # runs the package and compile-failure tests, skipped under the sanitizers).
  test_env=""
  [[ "$preset" == serial-asan ]] && test_env="KSTREAM_PROPERTY_CASES=1000"
  # OpenMP threads: the machine's cores, bound, as a user would run; Serial ignores them.
  set +e
  KSTREAM_ROOT_KOKKOS=$kokkos_root OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} \
    kstream_in_root bash -c "cmake --preset $preset -DKSTREAM_OTHER_KOKKOS_DIR=$other_kokkos $tuning $kokkos_kernels >/dev/null &&
      cmake --build --preset $preset &&
      env $test_env ctest --preset $preset -j \$(nproc)" 2>&1 | tee "$log_dir/$preset.log"
  set -e
  count_ctest "$log_dir/$preset.log"
done

kstream_log "plan fuzz target"
if wait "$fuzz_pid"; then
  passed=$((passed + 1))
  tail -n 2 "$log_dir/fuzz.log"
else
  failed=$((failed + 1))
  tail -n 40 "$log_dir/fuzz.log"
fi

# The Python scripts (report.py, triton_compare.py), on Debian's python3 with matplotlib (outside the root: it reads results, builds nothing).
kstream_log "script tests"
python=$(kstream_report_python)
if "$python" tests/test_scripts.py 2>&1 | tee "$log_dir/scripts.log"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]

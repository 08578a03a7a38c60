#!/usr/bin/env bash
# Runs kstream's whole test suite on the host backends: builds and tests the Serial, OpenMP and sanitizer
# (ASan + UBSan, OpenMP) configurations, then the report script's test. Works on a fresh Debian 12 machine:
# the first run makes the toolchain root (scripts/toolchain.sh, about a minute), later runs reuse it.
#
#   scripts/test.sh                       # serial openmp asan, then the Python scripts
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
  presets=${KSTREAM_TEST_PRESETS:-serial openmp asan}
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
for preset in $presets; do
  kstream_log "preset $preset: configure, build, test"
  kokkos_root=""
  other_kokkos=""  # the toolchain root has two Kokkos: each build's package test is shown the other one
  kokkos_kernels=""
  if ! kstream_use_own_kokkos; then
    if [[ "$preset" == serial ]]; then
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
  # The Serial build checks the Serial backend's semantics (and Kokkos Kernels' rows); the OpenMP build checks the
  # optimized host code (-O3) and how users consume the package. So the Serial build compiles at -O1 (half the
  # time of -O3) without the examples, and leaves the package and compile-failure tests to the OpenMP build.
  light=""
  ctest_skip=""
  if [[ "$preset" == serial ]]; then
    light="-DCMAKE_CXX_FLAGS_RELEASE=-O1\ -DNDEBUG -DKSTREAM_BUILD_EXAMPLES=OFF"
    ctest_skip="-LE 'consumer|compile_fail'"
  fi
  # OpenMP threads: the machine's cores, bound, as a user would run; Serial ignores them.
  set +e
  KSTREAM_ROOT_KOKKOS=$kokkos_root OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} \
    kstream_in_root bash -c "cmake --preset $preset -DKSTREAM_OTHER_KOKKOS_DIR=$other_kokkos $tuning $kokkos_kernels $light >/dev/null &&
      cmake --build --preset $preset &&
      ctest --preset $preset -j \$(nproc) $ctest_skip" 2>&1 | tee "$log_dir/$preset.log"
  set -e
  count_ctest "$log_dir/$preset.log"
done

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

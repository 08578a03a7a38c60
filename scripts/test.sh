#!/usr/bin/env bash
# Runs kstream's whole test suite on the host backends: builds and tests the Serial backend under the
# sanitizers (ASan + UBSan, -Og; Trilinos' Kokkos 4.5) and the optimized OpenMP build (Kokkos 5.2), side by side;
# beside them the plan's fuzz target for 60 s (scripts/fuzz.sh, KSTREAM_FUZZ_SECONDS) and the report scripts' tests.
# Each part's output is shown when all are done (logs in build/logs).
# Works on a fresh Debian 12 machine: the first run makes the toolchain root (scripts/toolchain.sh, about a
# minute), later runs reuse it.
#
#   scripts/test.sh                       # serial-asan and openmp, the fuzz target, the Python scripts
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
# The plan's fuzz target runs on one core beside the builds (its own clang build, no Kokkos), and so do the Python
# scripts' tests (report.py, triton_compare.py: on Debian's python3 with matplotlib, outside the root; they read
# results and build nothing).
scripts/fuzz.sh >"$log_dir/fuzz.log" 2>&1 &
fuzz_pid=$!
python=$(kstream_report_python)
"$python" tests/test_scripts.py >"$log_dir/scripts.log" 2>&1 &
scripts_pid=$!

# The presets build at once, so that one build's last long files and a Serial build's tests fill the cores the
# other leaves idle: one command in the toolchain root (it takes one at a time) runs a script of every preset's
# configure, build and test. A Serial preset tests right after its build; the presets whose tests run OpenMP
# threads test after every build is done, one at a time, so that their threads do not share the cores with the
# compilers. Each preset writes build/logs/<preset>.log, shown in full when all are done.
script=$log_dir/presets.sh
{
  echo 'set -uo pipefail'
  echo 'pids=()'
} >"$script"
later=()
for preset in $presets; do
  kokkos_env=""
  other_kokkos=""  # the toolchain root has two Kokkos: each build's package test is shown the other one
  kokkos_kernels=""
  if ! kstream_use_own_kokkos; then
    if [[ "$preset" == serial* ]]; then
      kokkos_env="Kokkos_ROOT=$KSTREAM_SERIAL_KOKKOS_ROOT"
      other_kokkos=/usr/lib/x86_64-linux-gnu/cmake/Kokkos
      kokkos_kernels="-DKokkosKernels_ROOT=$KSTREAM_SERIAL_KOKKOSKERNELS_ROOT"  # its kokkosblas rows in bench.small_rows
    else
      other_kokkos=$KSTREAM_SERIAL_KOKKOS_ROOT
    fi
  fi
  # The tuning programs (bench/tuning) build in the OpenMP configuration, so they cannot rot.
  tuning=""
  [[ "$preset" == openmp ]] && tuning="-DKSTREAM_BUILD_TUNING=ON"
  # serial-asan is the Serial build under ASan + UBSan (-Og): the library and the tests on the Serial backend and
  # Trilinos' Kokkos, checked for memory errors and undefined behaviour, and the suite (not instrumented) with Kokkos
  # Kernels' rows; the property test takes a sample of its cases there (all of them in the OpenMP build, which also
  # runs the package and compile-failure tests, skipped under the sanitizers), and the tests that walk sizes stop at
  # 100003 elements there, not at 1000003 or 2^22 (tests/test_support.hpp, largest_edge_size: the same Serial plans).
  test_env=""
  [[ "$preset" == serial-asan ]] && test_env="KSTREAM_PROPERTY_CASES=1000 KSTREAM_LARGEST_EDGE_SIZE=100003"
  log=build/logs/$preset.log
  build="env $kokkos_env cmake --preset $preset -DKSTREAM_OTHER_KOKKOS_DIR=$other_kokkos $tuning $kokkos_kernels >/dev/null &&
    env $kokkos_env cmake --build --preset $preset --parallel \$(nproc)"
  run_tests="env $test_env ctest --preset $preset -j \$(nproc)"
  if [[ "$preset" == serial* ]]; then
    echo "( { $build && $run_tests; } >$log 2>&1 ) & pids+=(\$!)" >>"$script"
  else
    echo "( { $build; } >$log 2>&1; echo \$? >$log.built ) & pids+=(\$!)" >>"$script"
    later+=("[[ \$(cat $log.built) == 0 ]] && $run_tests >>$log 2>&1")
  fi
  kstream_log "preset $preset: configure, build, test (build/logs/$preset.log)"
done
echo 'wait "${pids[@]}"' >>"$script"
for step in "${later[@]}"; do echo "$step" >>"$script"; done
echo 'exit 0' >>"$script"
# OpenMP threads: the machine's cores, unbound unless OMP_PROC_BIND / OMP_PLACES are set (kstream_in_root passes
# them on). ctest runs several test processes at once, and each one's bound threads would sit on the same first
# cores (docs/engine.md). Serial ignores them.
kstream_in_root bash build/logs/presets.sh
for preset in $presets; do
  kstream_log "preset $preset"
  cat "$log_dir/$preset.log"
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

kstream_log "script tests"
if wait "$scripts_pid"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi
cat "$log_dir/scripts.log"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]

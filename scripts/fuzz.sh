#!/usr/bin/env bash
# The plan's fuzz target (tests/fuzz/plan_fuzz.cpp): builds it with clang's libFuzzer (Debian's clang and
# libclang-rt packages, installed when missing), then runs it for a bounded time from the committed corpus
# (tests/fuzz/corpus, copied: the run does not change it). Exits non-zero on any failure, with the input that
# caused it in build/fuzz/.
#
#   scripts/fuzz.sh                        # 60 seconds
#   KSTREAM_FUZZ_SECONDS=600 scripts/fuzz.sh
#   scripts/fuzz.sh --merge DIR            # add the inputs of DIR that reach new code to the committed corpus
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf '[kstream] %s\n' "$*" >&2; }

fuzzer_library() { clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null; }
if ! command -v clang++ >/dev/null || [[ ! -f "$(fuzzer_library)" ]]; then
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    log "the fuzz target needs clang++ and libFuzzer (Debian: apt-get install clang libclang-rt-dev)"
    exit 1
  fi
  log "installing clang and libFuzzer (Debian packages clang, libclang-rt-dev)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-dev >/dev/null
fi

work=$repo/build/fuzz
mkdir -p "$work"
# The plan, the aliasing checks and the index arithmetic are plain C++: no Kokkos (tests/fuzz/shim has the two
# macros the index header uses).
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iinclude -Itests/fuzz/shim \
  src/plan.cpp src/reduce_plan.cpp src/checks.cpp src/streaming_stores.cpp tests/fuzz/plan_fuzz.cpp -o "$work/plan_fuzz"

if [[ "${1:-}" == "--merge" ]]; then
  "$work/plan_fuzz" -merge=1 -max_len=256 tests/fuzz/corpus "${2:?--merge takes a folder of inputs}"
  exit
fi

seconds=${KSTREAM_FUZZ_SECONDS:-60}
rm -rf "$work/corpus" && cp -r tests/fuzz/corpus "$work/corpus"
log "fuzzing the plan for ${seconds} s from $(ls tests/fuzz/corpus | wc -l) committed inputs"
cd "$work"
if ./plan_fuzz -max_total_time="$seconds" -max_len=256 -print_final_stats=1 corpus >fuzz.log 2>&1; then
  grep -E '^stat::number_of_executed_units|^Done' fuzz.log >&2 || true
  log "fuzz: no failure"
else
  tail -n 30 fuzz.log >&2
  log "fuzz: FAILED (the input is in $work, the log in $work/fuzz.log)"
  exit 1
fi

#!/usr/bin/env bash
# kstream's main comparison in one command: the CUDA build against a host-only OpenMP build on the same machine,
# with Kokkos Kernels' BLAS-1 beside them where it is found. Builds both, runs each suite (one process per element
# type), and writes bench/results/<machine>/compare_cuda.json, compare_host.json, compare.md and
# compare_plots/compare.png (--quick: compare_quick*). Results are staged in build/compare/ and moved into bench/results only when
# everything succeeded.
#
#   Kokkos_ROOT=/opt/kokkos-cuda scripts/compare.sh            # every aligned size 2^10 .. 2^28 + 7
#   Kokkos_ROOT=/opt/kokkos-cuda scripts/compare.sh --quick    # 2^20, 2^24, 2^28, fewer repetitions
#   Kokkos_ROOT=/opt/kokkos-cuda scripts/compare.sh --check    # the checks only: what it would build and run
#
# Environment:
#   Kokkos_ROOT                      a Kokkos installed with Kokkos_ENABLE_CUDA for this GPU (required)
#   KSTREAM_HOST_KOKKOS_ROOT         a host-only Kokkos (OpenMP) for the host build (default: the toolchain root's,
#                                    scripts/toolchain.sh)
#   KokkosKernels_ROOT               Kokkos Kernels built on the CUDA Kokkos (optional: kokkosblas rows on the GPU)
#   KSTREAM_HOST_KOKKOSKERNELS_ROOT  Kokkos Kernels built on the host Kokkos (optional: kokkosblas rows on the host)
#   KSTREAM_MACHINE                  folder name under bench/results (default: the host name)
#   OMP_NUM_THREADS, OMP_PROC_BIND, OMP_PLACES   host threads (default: every core, spread, threads)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
source scripts/toolchain.sh

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
fail() { printf 'compare.sh: %s\n' "$*" >&2; exit 2; }

mode=full
check=0
for arg in "$@"; do
  case "$arg" in
    --quick) mode=quick ;;
    --check) check=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; fail "unknown argument '$arg' (takes --quick, --check or --help)" ;;
  esac
done

# --- Checks, before anything is built -----------------------------------------------------------------------
smi=${KSTREAM_NVIDIA_SMI:-nvidia-smi}  # (tests point this at a stand-in)
gpu=$("$smi" --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null | head -n1) || gpu=""
[[ -n "$gpu" ]] || fail "no NVIDIA GPU found ('$smi --query-gpu=name,compute_cap' gave nothing). The comparison
needs a GPU and its driver; on a machine without one, scripts/bench.sh runs the host suite alone."
gpu_name=${gpu%,*}
capability=$(tr -d ' ' <<<"${gpu##*,}")
case "$capability" in
  7.0) arch=VOLTA70 ;; 7.2) arch=VOLTA72 ;; 7.5) arch=TURING75 ;; 8.0) arch=AMPERE80 ;; 8.6) arch=AMPERE86 ;;
  8.7) arch=AMPERE87 ;; 8.9) arch=ADA89 ;; 9.0) arch=HOPPER90 ;; 10.0) arch=BLACKWELL100 ;;
  12.0) arch=BLACKWELL120 ;; *) arch="" ;;
esac
[[ -n "$arch" ]] || fail "the GPU ($gpu_name) reports compute capability '$capability', which this script cannot
name a Kokkos architecture for; see Kokkos' list of Kokkos_ARCH_* options."
kokkos_build_line="cmake -S <kokkos source> -B <build> -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_OPENMP=ON \\
  -DKokkos_ARCH_$arch=ON -DCMAKE_CXX_STANDARD=20 -DCMAKE_INSTALL_PREFIX=<prefix> && cmake --build <build> --target install"

# The folder holding KokkosConfigCommon.cmake under a Kokkos install prefix (or the CMake folder itself).
kokkos_config_dir() {
  local d
  for d in "$1" "$1"/lib/cmake/Kokkos "$1"/lib64/cmake/Kokkos "$1"/lib/x86_64-linux-gnu/cmake/Kokkos; do
    [[ -f "$d/KokkosConfigCommon.cmake" ]] && { echo "$d"; return; }
  done
  return 1
}
# A list variable set in KokkosConfigCommon.cmake (Kokkos_DEVICES, Kokkos_ARCH), ';'-separated.
kokkos_setting() { sed -nE "s/^set\($2 \"?([^\")]*)\"?\)/\1/p" "$1/KokkosConfigCommon.cmake" | head -n1; }

[[ -n "${Kokkos_ROOT:-}" ]] || fail "set Kokkos_ROOT to a Kokkos installed with its CUDA backend for this GPU
($gpu_name, compute capability $capability). To build one:
  $kokkos_build_line"
cuda_config=$(kokkos_config_dir "$Kokkos_ROOT") || fail "Kokkos_ROOT=$Kokkos_ROOT holds no KokkosConfigCommon.cmake
(lib/cmake/Kokkos, lib64/cmake/Kokkos): point it at the prefix Kokkos was installed to."
devices=$(kokkos_setting "$cuda_config" Kokkos_DEVICES)
[[ ";$devices;" == *";CUDA;"* ]] || fail "the Kokkos at $Kokkos_ROOT has no CUDA backend (devices: ${devices:-none}).
Build one for this GPU:
  $kokkos_build_line"
archs=$(kokkos_setting "$cuda_config" Kokkos_ARCH)
[[ ";$archs;" == *";$arch;"* ]] || fail "the Kokkos at $Kokkos_ROOT was built for ${archs:-no architecture}, but this
GPU ($gpu_name) is compute capability $capability: rebuild it with -DKokkos_ARCH_$arch=ON:
  $kokkos_build_line"
[[ -x "$Kokkos_ROOT/bin/nvcc_wrapper" ]] || fail "no $Kokkos_ROOT/bin/nvcc_wrapper: a CUDA Kokkos installs it (the
compiler kstream's CUDA build uses)"

host_kokkos=${KSTREAM_HOST_KOKKOS_ROOT:-}
if [[ -n "$host_kokkos" ]]; then
  host_config=$(kokkos_config_dir "$host_kokkos") || fail "KSTREAM_HOST_KOKKOS_ROOT=$host_kokkos holds no
KokkosConfigCommon.cmake. A host-only Kokkos: cmake -S <kokkos source> -B <build> -DCMAKE_CXX_COMPILER=g++ \\
  -DKokkos_ENABLE_OPENMP=ON -DKokkos_ARCH_NATIVE=ON -DCMAKE_CXX_STANDARD=20 -DCMAKE_INSTALL_PREFIX=<prefix> && cmake --build <build> --target install"
  host_devices=$(kokkos_setting "$host_config" Kokkos_DEVICES)
  [[ ";$host_devices;" == *";OPENMP;"* && ";$host_devices;" != *";CUDA;"* ]] || fail "KSTREAM_HOST_KOKKOS_ROOT=$host_kokkos
has devices '${host_devices:-none}': the host build needs a Kokkos with OpenMP and without CUDA (a CUDA build's host
code goes through nvcc and is not what a host-only user runs)."
  host_where="$host_kokkos (devices $host_devices)"
else
  host_where="the toolchain root's Kokkos (scripts/toolchain.sh: $KSTREAM_ROOT_DIR)"
fi
for var in KokkosKernels_ROOT KSTREAM_HOST_KOKKOSKERNELS_ROOT; do
  if [[ -n "${!var:-}" && ! -d "${!var}" ]]; then fail "$var=${!var} is not a folder (unset it to run without"\
" Kokkos Kernels rows)"; fi
done

machine=${KSTREAM_MACHINE:-$(hostname)}
threads=${OMP_NUM_THREADS:-$(nproc)}
if [[ $mode == quick ]]; then
  sizes="(1048576|16777216|268435456)"; repetitions=3; min_time=0.02
else
  sizes="[0-9]+"; repetitions=5; min_time=0.05
fi
rows="(copy|add|fma)/(kokkos_deep_copy|cudaMemcpy|omp_for|naive|tiled|tiled_inplace|cub_transform|cuda_kernel|kokkosblas|kokkosblas_inplace)"
flags=(--kstream_min_time=$min_time --benchmark_repetitions=$repetitions --benchmark_enable_random_interleaving=true)
kstream_log "GPU: $gpu_name (compute capability $capability, Kokkos_ARCH_$arch); CUDA Kokkos: $Kokkos_ROOT"
kstream_log "host: $host_where, $threads OpenMP threads; Kokkos Kernels: GPU ${KokkosKernels_ROOT:-none}, host ${KSTREAM_HOST_KOKKOSKERNELS_ROOT:-none}"
kstream_log "mode $mode: aligned sizes $sizes, $repetitions repetitions of ${min_time} s, results to bench/results/$machine/"
if [[ $check == 1 ]]; then kstream_log "checks passed (--check: nothing built or run)"; exit 0; fi

# --- Builds -------------------------------------------------------------------------------------------------
stage=$repo/build/compare/stage
rm -rf "$stage"
mkdir -p "$stage"
commit=${KSTREAM_GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
bench_options=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DKSTREAM_BUILD_TESTS=OFF -DKSTREAM_BUILD_EXAMPLES=OFF
               -DKSTREAM_ENABLE_MPI=OFF)

kstream_log "[1/4] CUDA build (build/compare/cuda, target kstream_bench)"
start=$SECONDS
(
  cmake -S . -B build/compare/cuda "${bench_options[@]}" -DCMAKE_CXX_COMPILER="$Kokkos_ROOT/bin/nvcc_wrapper" \
    ${KokkosKernels_ROOT:+-DKokkosKernels_ROOT=$KokkosKernels_ROOT} >"$stage/cuda_configure.log"
  cmake --build build/compare/cuda --target kstream_bench
) || fail "the CUDA build failed (configure log: $stage/cuda_configure.log)"
kstream_log "CUDA build done in $((SECONDS - start)) s"

kstream_log "[2/4] host-only OpenMP build (build/compare/host, target kstream_bench)"
start=$SECONDS
host_configure="cmake -S . -B build/compare/host ${bench_options[*]} -DCMAKE_CXX_COMPILER=${CXX:-g++}"
[[ -n "${KSTREAM_HOST_KOKKOSKERNELS_ROOT:-}" ]] && host_configure+=" -DKokkosKernels_ROOT=$KSTREAM_HOST_KOKKOSKERNELS_ROOT"
host_build="$host_configure >build/compare/stage/host_configure.log && cmake --build build/compare/host --target kstream_bench"
unset KokkosKernels_ROOT  # the GPU's Kokkos Kernels; the host one is passed explicitly
if [[ -n "$host_kokkos" ]]; then
  Kokkos_ROOT=$host_kokkos bash -c "$host_build" || fail "the host build failed (build/compare/stage/host_configure.log)"
  in_host() { Kokkos_ROOT=$host_kokkos "$@"; }
else
  # The toolchain root: made on first use (about a minute; needs root and this machine's Debian mirror).
  (unset Kokkos_ROOT Kokkos_DIR CMAKE_PREFIX_PATH; kstream_toolchain_ready) || fail "no host Kokkos: set
KSTREAM_HOST_KOKKOS_ROOT to a host-only Kokkos (OpenMP), or let scripts/toolchain.sh make its root (root and a Debian
mirror needed)"
  (unset Kokkos_ROOT Kokkos_DIR CMAKE_PREFIX_PATH; kstream_in_root bash -c "$host_build") ||
    fail "the host build in the toolchain root failed (build/compare/stage/host_configure.log)"
  in_host() { (unset Kokkos_ROOT Kokkos_DIR CMAKE_PREFIX_PATH; kstream_in_root "$@"); }
fi
kstream_log "host build done in $((SECONDS - start)) s"

# --- Runs: one process per element type (several types in one process re-allocate between them) ------------
export KSTREAM_MACHINE=$machine KSTREAM_GIT_COMMIT=$commit
step=3
for side in cuda host; do
  for type in float double; do
    if [[ $side == cuda ]]; then backend=Cuda; else backend=OpenMP; fi
    filter="^$rows/$type/$backend/aligned/$sizes/"
    kstream_log "[$step/4] $side suite, $type ($backend): progress below"
    if [[ $side == cuda ]]; then
      build/compare/cuda/bench/kstream_bench --benchmark_filter="$filter" "${flags[@]}" \
        --benchmark_out="$stage/${side}_$type.json" --benchmark_out_format=json
    else
      OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} \
        in_host build/compare/host/bench/kstream_bench --benchmark_filter="$filter" "${flags[@]}" \
        --benchmark_out="build/compare/stage/${side}_$type.json" --benchmark_out_format=json
    fi || fail "the $side suite ($type) failed; nothing was written to bench/results"
  done
  step=$((step + 1))
done

# --- Report -------------------------------------------------------------------------------------------------
python=$(kstream_report_python)
for side in cuda host; do
  "$python" scripts/report.py --merge "$stage/${side}_float.json" "$stage/${side}_double.json" \
    --out "$stage/compare_$side.json"
done
"$python" scripts/report.py "$stage/compare_cuda.json" "$stage/compare_host.json" --compare \
  --out "$stage/compare.md" --plots "$stage/compare_plots" --peak Cuda=4800 \
  --title "kstream: CUDA against host-only OpenMP ($mode run, $machine)"
dest=bench/results/$machine
name=compare; [[ $mode == quick ]] && name=compare_quick
mkdir -p "$dest"
rm -rf "$dest/${name}_plots"
for file in compare_cuda.json compare_host.json compare.md; do mv "$stage/$file" "$dest/${file/compare/$name}"; done
if [[ -d "$stage/compare_plots" ]]; then
  mv "$stage/compare_plots" "$dest/${name}_plots"
  sed -i "s#(compare_plots/#(${name}_plots/#g" "$dest/$name.md"
fi
kstream_log "done: $dest/$name.md (JSON: ${name}_cuda.json, ${name}_host.json) in $SECONDS s"

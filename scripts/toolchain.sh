#!/usr/bin/env bash
# Host toolchain for kstream: a Debian-unstable root (made with mmdebstrap) holding g++, cmake, ninja, OpenMPI,
# libkokkos-dev 5.2 (OpenMP), Trilinos' Kokkos 4.5 and Kokkos Kernels 4.5 (Serial), GoogleTest and Google Benchmark. Debian 12 has no usable Kokkos.
#
# Sourced by test.sh and bench.sh. Provides:
#   kstream_toolchain_ready          make (or reuse) the root; no-op when the user brings a Kokkos
#   kstream_in_root CMD...           run CMD in the repo inside the root (or directly without a root)
# A user with their own Kokkos sets Kokkos_ROOT or CMAKE_PREFIX_PATH and the root is skipped entirely.
# (A library for those scripts: it sets no shell options of its own.)

KSTREAM_ROOT_DIR=${KSTREAM_ROOT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kstream/toolchain-root}
KSTREAM_ROOT_PACKAGES="g++,cmake,ninja-build,libkokkos-dev,libgtest-dev,libgmock-dev,libbenchmark-dev,libopenmpi-dev,openmpi-bin,libblas-dev,liblapack-dev,git,ca-certificates"
# Bump when the package list or the fix-ups change, so cached roots are rebuilt.
KSTREAM_ROOT_VERSION=4
# Debian's libkokkos-dev 5.2 is built without the Serial backend. Trilinos' Kokkos 4.5 (Serial only) is unpacked
# beside it, not installed (the two packages own the same paths), for the Serial build of the tests, with
# Trilinos' Kokkos Kernels 4.5 built on it (the suite's kokkosblas rows; its CMake config names BLAS and LAPACK
# through trilinos-dev's files and the root's libblas-dev and liblapack-dev).
KSTREAM_SERIAL_KOKKOS_PACKAGES="libtrilinos-kokkos-dev libtrilinos-kokkos-16.1 libtrilinos-kokkos-kernels-dev libtrilinos-kokkos-kernels-16.1 trilinos-dev"
KSTREAM_SERIAL_KOKKOS_PREFIX=/opt/kokkos-serial
KSTREAM_SERIAL_KOKKOS_ROOT=$KSTREAM_SERIAL_KOKKOS_PREFIX/usr/lib/x86_64-linux-gnu/cmake/Kokkos
KSTREAM_SERIAL_KOKKOSKERNELS_ROOT=$KSTREAM_SERIAL_KOKKOS_PREFIX/usr/lib/x86_64-linux-gnu/cmake/KokkosKernels

kstream_log() { printf '[kstream] %s\n' "$*" >&2; }

kstream_use_own_kokkos() { [[ -n "${Kokkos_ROOT:-}${Kokkos_DIR:-}${CMAKE_PREFIX_PATH:-}" ]]; }

# The Debian mirror this machine already uses (never a host name written into the repo).
kstream_mirror() {
  local uri
  uri=$( (grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}';
          grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}') |
        grep -E '/debian/?$' | head -n1)
  [[ -n "$uri" ]] || { kstream_log "no Debian mirror found in /etc/apt sources"; return 1; }
  echo "${uri%/}"
}

kstream_root_ok() {
  [[ -f "$KSTREAM_ROOT_DIR/.kstream-root-$KSTREAM_ROOT_VERSION" ]] &&
    [[ -x "$KSTREAM_ROOT_DIR/usr/bin/cmake" ]] &&
    [[ -f "$KSTREAM_ROOT_DIR/usr/lib/x86_64-linux-gnu/cmake/Kokkos/KokkosConfig.cmake" ]] &&
    [[ -f "$KSTREAM_ROOT_DIR$KSTREAM_SERIAL_KOKKOS_ROOT/KokkosConfig.cmake" ]] &&
    [[ -f "$KSTREAM_ROOT_DIR$KSTREAM_SERIAL_KOKKOSKERNELS_ROOT/KokkosKernelsConfig.cmake" ]]
}

kstream_make_root() {
  if ! command -v mmdebstrap >/dev/null; then
    kstream_log "installing mmdebstrap (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
  fi
  local mirror tmp
  mirror=$(kstream_mirror)
  tmp="$KSTREAM_ROOT_DIR.tmp"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$KSTREAM_ROOT_DIR")"
  kstream_log "making the toolchain root in $KSTREAM_ROOT_DIR (Debian unstable; about a minute)"
  # unstable's Release file may be past its Valid-Until on a snapshot mirror: skip that check for this root only.
  mmdebstrap --variant=apt --mode=root \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --include="$KSTREAM_ROOT_PACKAGES" \
    --customize-hook="chroot \"\$1\" sh -c 'cd /tmp && apt-get download $KSTREAM_SERIAL_KOKKOS_PACKAGES &&
        for deb in /tmp/*.deb; do dpkg -x \$deb $KSTREAM_SERIAL_KOKKOS_PREFIX; done && rm /tmp/*.deb'" \
    unstable "$tmp" "deb $mirror unstable main" >&2
  # libkokkos-dev's exported targets name two archives the package does not ship; empty ones satisfy the check.
  local lib="$tmp/usr/lib/x86_64-linux-gnu"
  for archive in libkokkosalgorithms.a libkokkossimd.a; do
    [[ -e "$lib/$archive" ]] || ar rc "$lib/$archive"
  done
  touch "$tmp/.kstream-root-$KSTREAM_ROOT_VERSION"
  rm -rf "$KSTREAM_ROOT_DIR"
  mv "$tmp" "$KSTREAM_ROOT_DIR"
}

kstream_toolchain_ready() {
  if kstream_use_own_kokkos; then
    kstream_log "using your Kokkos (Kokkos_ROOT/Kokkos_DIR/CMAKE_PREFIX_PATH set): no toolchain root"
    return 0
  fi
  if kstream_root_ok; then
    kstream_log "reusing toolchain root $KSTREAM_ROOT_DIR"
  else
    kstream_make_root
  fi
}

# Run a command with the repo as working directory, inside the root when one is used.
kstream_in_root() {
  local repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if kstream_use_own_kokkos; then
    (cd "$repo" && "$@")
    return
  fi
  # libgomp reads /proc and /sys to bind threads; the repo is bind-mounted so builds land in the clone.
  # A trap undoes all mounts when the command ends, whatever its outcome (a subshell: the trap is this call's).
  (
    set -euo pipefail
    # One command in the root at a time: a second would find the mounts taken (and unmount them under the first).
    exec 9>"$KSTREAM_ROOT_DIR.lock"
    if ! flock -n 9; then
      kstream_log "waiting for another kstream command that is using the toolchain root"
      flock 9
    fi
    mnt="$KSTREAM_ROOT_DIR/kstream"
    mkdir -p "$mnt" "$KSTREAM_ROOT_DIR/proc" "$KSTREAM_ROOT_DIR/sys"
    unmount_all() {
      for m in "$KSTREAM_ROOT_DIR/sys" "$KSTREAM_ROOT_DIR/proc" "$mnt"; do
        mountpoint -q "$m" || continue
        umount "$m" 2>/dev/null || { sleep 1; umount "$m" 2>/dev/null; } || umount -l "$m"
      done
    }
    trap unmount_all EXIT
    trap 'exit 130' INT TERM
    mount --bind "$repo" "$mnt"
    mount -t proc proc "$KSTREAM_ROOT_DIR/proc"
    mount --bind /sys "$KSTREAM_ROOT_DIR/sys"  # libgomp reads the CPU topology for OMP_PLACES there
    mount -o remount,bind,ro "$KSTREAM_ROOT_DIR/sys" 2>/dev/null || true
    # Only variables that are set travel into the root (libgomp rejects an empty OMP_NUM_THREADS).
    local_env=(PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
               KSTREAM_GIT_COMMIT="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)")
    for var in OMP_PROC_BIND OMP_PLACES OMP_NUM_THREADS KSTREAM_PROPERTY_SEED KSTREAM_PROPERTY_CASES \
               KSTREAM_LARGEST_EDGE_SIZE KSTREAM_MACHINE CI; do
      if [[ -n "${!var:-}" ]]; then local_env+=("$var=${!var}"); fi
    done
    if [[ -n "${KSTREAM_ROOT_KOKKOS:-}" ]]; then local_env+=("Kokkos_ROOT=$KSTREAM_ROOT_KOKKOS"); fi
    chroot "$KSTREAM_ROOT_DIR" /usr/bin/env -i "${local_env[@]}" \
      /bin/bash -c 'cd /kstream && "$@"' kstream "$@"
  )
}

# A python3 for scripts/report.py: the first one with matplotlib, PATH first, then the system's. With your own
# Kokkos nothing is installed: without matplotlib the report has its tables and says how to get plots. On the
# toolchain-root path (a fresh Debian machine, as root) Debian's python3-matplotlib is installed when missing.
kstream_report_python() {
  local candidate
  for candidate in $(type -ap python3) /usr/bin/python3; do
    if "$candidate" -c 'import matplotlib' 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
  if ! kstream_use_own_kokkos && command -v apt-get >/dev/null && [[ $(id -u) -eq 0 ]]; then
    kstream_log "installing python3-matplotlib (Debian package) for scripts/report.py"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null
    echo /usr/bin/python3
    return
  fi
  kstream_log "no python3 with matplotlib: the report gets tables only (for plots: pip install matplotlib)"
  command -v python3 || echo /usr/bin/python3
}

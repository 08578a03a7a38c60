#!/usr/bin/env bash
# The evidence without a GPU that a change cannot move GPU numbers: the PTX for sm_90 of translation units at a git
# revision and in the working tree, compiled with the CUDA device check's commands (scripts/check-device-build.sh
# cuda: its build folder, its configured Kokkos headers), compared with the names normalised (each mangled name
# numbered in order of appearance; comments and debug lines dropped). Identical PTX, identical kernels.
#
#   scripts/compare-ptx.sh REV                          # the full reductions' tests (every dot and transform_reduce kernel)
#   scripts/compare-ptx.sh REV tests/test_add.cpp ...   # other translation units
#
# Prints one line per file (identical, or the count of differing lines and where the diff is); exits 1 when any
# differs, 2 when it cannot compare.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
rev=${1:?usage: scripts/compare-ptx.sh REV [FILE ...]}
shift
files=("$@")
[[ ${#files[@]} -gt 0 ]] || files=(tests/test_reduce_float.cpp tests/test_reduce_double.cpp)
build=$repo/${KSTREAM_DEVICE_CHECK_DIR:-build/device}-cuda
[[ -f $build/build.ninja ]] || { echo "no $build: run scripts/check-device-build.sh cuda first" >&2; exit 2; }
work=build/ptx
rm -rf "$work"
mkdir -p "$work/before"
git archive "$rev" | tar -x -C "$work/before"

# The file's compile command, made a PTX command for the tree at `root`.
ptx_command() {
  local file=$1 root=$2 out=$3 command
  command=$(ninja -C "$build" -t commands | grep -F -- "-c $repo/$file" | tail -n1)
  [[ -n "$command" ]] || { echo "no compile command for $file in $build" >&2; return 2; }
  command=$(sed -E 's/ -MD / /; s/ -MT [^ ]+ / /; s/ -MF [^ ]+ / /; s/ -o [^ ]+ / /' <<<"$command")
  command=${command//" -c $repo/$file"/" --ptx -o $out $root/$file"}
  command=${command//"-I$repo/include"/"-I$root/include"}
  echo "$command"
}

# Comments, debug lines and blank lines out; every mangled name numbered in order of appearance.
normalize() {
  grep -vE '^\s*(//|\.file|\.loc|$)' "$1" | perl -pe 'BEGIN { our %seen; our $n = 0 }
    s/(_Z[A-Za-z0-9_]+)/exists $seen{$1} ? $seen{$1} : ($seen{$1} = "name" . $n++)/ge'
}

status=0
for file in "${files[@]}"; do
  name=$(basename "$file" .cpp)
  for side in before after; do
    root=$repo
    [[ $side == before ]] && root=$repo/$work/before
    (cd "$build" && eval "$(ptx_command "$file" "$root" "$repo/$work/$name.$side.ptx")") ||
      { echo "$file: the $side side did not compile" >&2; exit 2; }
    normalize "$work/$name.$side.ptx" >"$work/$name.$side.normalized"
  done
  if diff -q "$work/$name.before.normalized" "$work/$name.after.normalized" >/dev/null; then
    echo "$file: identical PTX ($(grep -c '^\.entry\|^\.visible \.entry' "$work/$name.after.ptx") kernels) at $rev and in the working tree"
  else
    diff "$work/$name.before.normalized" "$work/$name.after.normalized" >"$work/$name.diff" || true
    echo "$file: PTX differs from $rev in $(grep -c '^[<>]' "$work/$name.diff") lines ($work/$name.diff)"
    status=1
  fi
done
exit $status

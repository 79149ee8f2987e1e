#!/usr/bin/env bash
# The full-disk trial of docs/reliability.md (needs root for mount): lsmlab stress on a 3 MiB
# tmpfs until the disk is full, then the tmpfs is grown and the database reopened and verified
# against the expected state (kept outside the tmpfs), and checked.
#
#   [LSMLAB=path/to/lsmlab] scripts/full-disk.sh [SEED]
set -euo pipefail
# LSMLAB=PATH runs a prebuilt binary instead of building one (resolved before the cd below).
if [ -n "${LSMLAB:-}" ]; then
  LSMLAB=$(realpath -e "$LSMLAB" 2>/dev/null) && [ -x "$LSMLAB" ] ||
    { echo "full-disk.sh: LSMLAB must name an executable lsmlab binary" >&2; exit 2; }
fi
cd "$(dirname "$0")/.."
bin=${LSMLAB:-}
[ -n "$bin" ] || { cargo build --release -q -p lsmlab-cli; bin=$PWD/target/release/lsmlab; }
mnt=$(mktemp -d /tmp/lsmlab-full.XXXXXX) expected=$(mktemp -u /tmp/lsmlab-full-expected.XXXXXX)
mount -t tmpfs -o size=3m tmpfs "$mnt"
trap 'umount "$mnt"; rm -rf "$mnt" "$expected"' EXIT
seed=${1:-3}
echo "== filling a 3 MiB disk (seed $seed)"
if "$bin" stress --db="$mnt/db" --expected="$expected" --seed="$seed" --ops=1000000 --reopens=0 --keys=20000 --groups=500; then
  echo "full-disk.sh: the disk never filled" >&2; exit 1
fi
mount -o remount,size=256m "$mnt"
echo "== disk grown to 256 MiB: reopen, verify every key, run on, verify again"
"$bin" stress --db="$mnt/db" --expected="$expected" --seed="$seed" --ops=2000 --reopens=1 --keys=20000 --groups=500
"$bin" check "$mnt/db"

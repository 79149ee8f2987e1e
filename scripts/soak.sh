#!/usr/bin/env bash
# Every call returns: the soak of every layout (crates/lsmlab/tests/soak.rs) for DURATION per
# configuration, built for release. Prints each configuration's figures: calls made, reads
# checked, float-ups, reopens, the longest call and the longest inline stretch.
#   scripts/soak.sh 1h                 # every configuration, an hour each
#   scripts/soak.sh 10m fslsm          # the configurations whose name contains "fslsm"
#   LSMLAB_SOAK_BOUND_SECS=5 scripts/soak.sh 2m
# A call over its bound (default 10 s) ends the run with exit 3, naming the call, its thread
# and the tree's state.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: scripts/soak.sh DURATION [FILTER]  (DURATION: 90, 90s, 10m or 1h)" >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in
  *h) secs=$(( ${1%h} * 3600 )) ;;
  *m) secs=$(( ${1%m} * 60 )) ;;
  *s) secs=${1%s} ;;
  *) secs=$1 ;;
esac
[[ "$secs" =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || usage
filter=${2:-}
cargo build --release -q -p lsmlab --tests
LSMLAB_SOAK_SECS=$secs cargo test --release -p lsmlab --test soak -- --nocapture --test-threads=1 $filter 2>&1 \
  | grep -oE 'soak [a-z_]+: .*|test result.*|panicked.*|over its bound.*'

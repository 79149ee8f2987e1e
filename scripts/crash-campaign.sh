#!/usr/bin/env bash
# The kill -9 campaign of docs/reliability.md: `lsmlab stress --crash` over many seeds (each
# seed draws its own options), half of them also killing themselves mid-write at a kill point.
# Prints one line per seed and the totals.
#
#   [LSMLAB=path/to/lsmlab] scripts/crash-campaign.sh [--seeds N] [--cycles N] [--first SEED] [--dir DIR] [--layout L]
#
# --layout L runs every seed under layout L (leveled, fslsm, universal) instead of the seed's own.
set -euo pipefail
# LSMLAB=PATH runs a prebuilt binary instead of building one (resolved before the cd below).
if [ -n "${LSMLAB:-}" ]; then
  LSMLAB=$(realpath -e "$LSMLAB" 2>/dev/null) && [ -x "$LSMLAB" ] ||
    { echo "crash-campaign.sh: LSMLAB must name an executable lsmlab binary" >&2; exit 2; }
fi
cd "$(dirname "$0")/.."
seeds=50 cycles=20 first=1 dir=$(mktemp -d /tmp/lsmlab-crash.XXXXXX) layout=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --cycles) cycles=$2; shift 2 ;;
    --first) first=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --layout) layout=(--layout="$2"); shift 2 ;;
    *) echo "crash-campaign.sh: unknown argument $1 (allowed: --seeds N --cycles N --first SEED --dir DIR --layout L)" >&2; exit 2 ;;
  esac
done
bin=${LSMLAB:-}
[ -n "$bin" ] || { cargo build --release -q -p lsmlab-cli; bin=target/release/lsmlab; }
points=(wal manifest current flush compaction compaction-blob)
total_cycles=0 total_ops=0 total_checks=0 total_values=0 total_float=0 total_viol=0 total_fail=0 failed_seeds=()
for ((s = first; s < first + seeds; s++)); do
  extra=()
  if (( s % 2 == 0 )); then
    p=${points[$(( (s / 2) % ${#points[@]} ))]}
    extra=(--kill-point="$p" --kill-odds=50)
  fi
  rm -rf "$dir/db" "$dir/db.expected"
  out=$("$bin" stress --db="$dir/db" --crash --cycles="$cycles" --kill-after-ms=100..1500 --seed="$s" "${layout[@]}" "${extra[@]}" 2>&1) || failed_seeds+=("$s")
  line=$(grep '^stress: ' <<<"$out" | tail -1)
  echo "seed $s ${extra[*]:-}: ${line#stress: }"
  grep -E 'VIOLATION|CHECK|OPEN FAILED|child failed' <<<"$out" | head -5 || true
  read -r c o k v u x f < <(sed -E 's/^stress: ([0-9]+) cycles.*, ([0-9]+) operations, ([0-9]+) key checks.*\(([0-9]+) acknowledged.*, ([0-9]+) float-ups, ([0-9]+) violations, ([0-9]+) failed opens$/\1 \2 \3 \4 \5 \6 \7/' <<<"$line")
  total_cycles=$((total_cycles + c)) total_ops=$((total_ops + o)) total_checks=$((total_checks + k))
  total_values=$((total_values + v)) total_float=$((total_float + u)) total_viol=$((total_viol + x)) total_fail=$((total_fail + f))
done
echo "campaign: $seeds seeds, $total_cycles kill -9 cycles, $total_ops operations, $total_checks key checks after reopen ($total_values acknowledged values verified), $total_float float-ups (at least), $total_viol violations, $total_fail failed opens${failed_seeds[*]:+; failing seeds: ${failed_seeds[*]}}"
rm -rf "$dir"
[ "$total_viol" -eq 0 ] && [ "$total_fail" -eq 0 ]

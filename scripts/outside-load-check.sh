#!/usr/bin/env bash
# The study's outside-load measure, end to end (docs/run.md, "Outside load").
#
#   scripts/outside-load-check.sh          # CPU burners beside a short study: the warning must fire
#   scripts/outside-load-check.sh quiet    # nothing beside it: the warning must not fire
#
# `busy` starts one busy loop per core (outside the study's process tree), runs a short study of
# lsmlab fills next to them, and checks that every run's outside_cpu_pct in runs.csv is at least
# the threshold (10 %) and that the report's setup carries the warning. `quiet` runs the same
# study alone and checks that the report has no warning: run it on a machine nothing else uses.
# LSMLAB=path/to/lsmlab (default target/debug/lsmlab).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-busy}
case "$mode" in busy|quiet) ;; *) echo "outside-load-check: mode: $mode; allowed busy, quiet" >&2; exit 2 ;; esac
LSMLAB=${LSMLAB:-$root/target/debug/lsmlab}
[ -x "$LSMLAB" ] || { echo "outside-load-check: $LSMLAB is not built (cargo build -p lsmlab-cli)" >&2; exit 1; }

tmp=$(mktemp -d)
burners=()
cleanup() {
  for p in "${burners[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

cat > "$tmp/plan.toml" <<'EOF'
title = "noise measure check"
engines = ["lsmlab"]
repetitions = 3
[flags]
num = 100000
value_size = 400
[[steps]]
bench = "fillrandom,readrandom"
EOF

if [ "$mode" = busy ]; then
  for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    burners+=($!)
  done
fi
"$LSMLAB" run "$tmp/plan.toml" -o "$tmp/out" >"$tmp/run.log" 2>&1 \
  || { cat "$tmp/run.log"; echo "outside-load-check: the study failed" >&2; exit 1; }
for p in "${burners[@]}"; do kill "$p" 2>/dev/null || true; done
burners=()

# runs.csv: outside_cpu_pct is column 7 (schema 2); one value per run.
per_run=$(awk -F, 'NR > 1 { print $2, $7, $8 }' "$tmp/out/runs.csv" | sort -u)
echo "run outside_cpu_pct steal_pct"
echo "$per_run"
line=$(grep -m1 "^| outside load |" "$tmp/out/report.md" || true)
echo "report: $line"
[ -n "$line" ] || { echo "FAIL: the report has no outside-load line" >&2; exit 1; }
if [ "$mode" = busy ]; then
  low=$(echo "$per_run" | awk '$2 == "" || $2 + 0 < 10' | wc -l)
  [ "$low" -eq 0 ] || { echo "FAIL: $low runs show under 10 % outside CPU beside $(nproc) burners" >&2; exit 1; }
  case "$line" in *WARNING*) ;; *) echo "FAIL: no warning beside the burners" >&2; exit 1 ;; esac
else
  case "$line" in *WARNING*) echo "FAIL: the warning fired on a machine said to be quiet" >&2; exit 1 ;; esac
fi
echo "ok: $mode"

#!/usr/bin/env bash
# Seed 000, experiment A (Bloom vs Ribbon at 10 bits per key) on lsmlab, scaled to about a
# minute on 2 cores: fillrandom, readrandom and readwhilewriting with the study's flags, once
# with each filter. Prints each run's db_bench lines and lsmlab block, then a side-by-side table.
#
#   scripts/seed000-a.sh [--num N] [--out DIR]      (defaults: --num 200000, --out target/seed000-a)
set -euo pipefail
cd "$(dirname "$0")/.."
num=200000
out=target/seed000-a
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "seed000-a.sh: unknown argument $1 (allowed: --num N, --out DIR)" >&2; exit 2 ;;
  esac
done
cargo build --release -q -p lsmlab-cli
mkdir -p "$out"
common=(--num="$num" --reads=$((num / 2)) --value_size=1024 --key_size=32 --threads=2
        --block_size=4096 --write_buffer_size=8388608 --target_file_size_base=8388608
        --compression_type=none --statistics --report_bg_io_stats=true --seed=1
        --benchmarks=fillrandom,readrandom,readwhilewriting)
for filter in bloom ribbon; do
  ribbon=false; [ $filter = ribbon ] && ribbon=true
  echo "=== $filter ($out/$filter.txt, $out/$filter.json)"
  target/release/lsmlab bench "${common[@]}" --bloom_bits=10 --use_ribbon_filter=$ribbon \
    --db="$out/$filter-db" --json="$out/$filter.json" >"$out/$filter.txt" 2>&1
  grep -E '^(fillrandom|readrandom|readwhilewriting) +:|^lsmlab (filter_fpr|memory|write_amp)' "$out/$filter.txt"
  rm -rf "$out/$filter-db"
done
echo
echo "=== Bloom vs Ribbon, 10 bits/key, --num=$num (ops/sec; FPR and filter memory after readrandom)"
printf '%-8s %12s %12s %18s %10s %14s\n' filter fillrandom readrandom readwhilewriting FPR filter_bytes
for filter in bloom ribbon; do
  f="$out/$filter.txt"
  ops() { awk -v b="$1" '$1==b {for(i=1;i<=NF;i++) if($i=="ops/sec") print $(i-1)}' "$f" | tail -1; }
  fpr=$(awk '/^-- lsmlab: readrandom/{r=1} r && /filter_fpr/{print $4; exit}' "$f")
  fbytes=$(awk '/^lsmlab.filter.bytes COUNT/{print $4}' "$f" | tail -1)
  printf '%-8s %12s %12s %18s %10s %14s\n' "$filter" "$(ops fillrandom)" "$(ops readrandom)" \
    "$(ops readwhilewriting)" "${fpr:-n/a}" "${fbytes:-n/a}"
done

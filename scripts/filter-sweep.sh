#!/usr/bin/env bash
# Seed 000, experiments A and B on both engines: for each bits-per-key and each filter,
# fillrandom then readrandom with --statistics, on lsmlab and (when on PATH) RocksDB's db_bench,
# one after the other. Prints a Markdown table: readrandom ops/sec and the filter FPR measured
# from each engine's tickers, FPR = (positive - true positive) / (useful + positive - true positive).
#
#   scripts/filter-sweep.sh [--num N] [--bpk "5 7 10 12"] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
num=200000
bpks="5 7 10 12"
out=target/filter-sweep
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num=$2; shift 2 ;;
    --bpk) bpks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "filter-sweep.sh: unknown argument $1 (allowed: --num N, --bpk \"LIST\", --out DIR)" >&2; exit 2 ;;
  esac
done
cargo build --release -q -p lsmlab-cli
mkdir -p "$out"
dbbench=$(command -v db_bench || true)
flags=(--num="$num" --value_size=1024 --key_size=32 --threads=1 --block_size=4096
       --write_buffer_size=8388608 --target_file_size_base=8388608 --compression_type=none
       --statistics --seed=1 --benchmarks=fillrandom,readrandom)
# ops/sec of a benchmark's summary line, and the FPR from the statistics dump
ops() { awk -v b="$2" '$1==b {for(i=1;i<=NF;i++) if($i=="ops/sec") print $(i-1)}' "$1" | tail -1; }
fpr() {
  awk '/^rocksdb.bloom.filter.useful COUNT/{u=$4} /^rocksdb.bloom.filter.full.positive COUNT/{p=$4}
       /^rocksdb.bloom.filter.full.true.positive COUNT/{t=$4}
       END{d=u+p-t; if (d>0) printf "%.3f%%", 100*(p-t)/d; else print "n/a"}' "$1"
}
echo "| bits/key | filter | lsmlab readrandom ops/s | lsmlab FPR | lsmlab filter bytes | RocksDB readrandom ops/s | RocksDB FPR | ops/s ratio |"
echo "|---|---|---|---|---|---|---|---|"
for bpk in $bpks; do
  for filter in bloom ribbon; do
    ribbon=false; [ $filter = ribbon ] && ribbon=true
    l="$out/lsmlab-$filter-$bpk.txt"; r="$out/rocksdb-$filter-$bpk.txt"
    rm -rf "$out/db"
    target/release/lsmlab bench "${flags[@]}" --bloom_bits="$bpk" --use_ribbon_filter=$ribbon \
      --db="$out/db" >"$l" 2>&1
    lops=$(ops "$l" readrandom); lfpr=$(fpr "$l")
    lbytes=$(awk '/^lsmlab.filter.bytes COUNT/{print $4}' "$l" | tail -1)
    rops=n/a; rfpr=n/a; ratio=n/a
    if [ -n "$dbbench" ]; then
      rm -rf "$out/db"
      "$dbbench" "${flags[@]}" --bloom_bits="$bpk" --use_ribbon_filter=$ribbon --db="$out/db" >"$r" 2>&1 || true
      rops=$(ops "$r" readrandom); rfpr=$(fpr "$r")
      ratio=$(awk -v a="$lops" -v b="$rops" 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "n/a" }')
    fi
    echo "| $bpk | $filter | $lops | $lfpr | ${lbytes:-n/a} | ${rops:-n/a} | $rfpr | $ratio |"
  done
done
rm -rf "$out/db"

#!/usr/bin/env bash
# Seed 002 (BlobDB vs inline across value sizes) on lsmlab and, when on PATH, RocksDB's db_bench.
# Case 1: fillrandom with 16-byte keys and about --bytes of values; case 2, on the database case 1
# left: readrandomwriterandom with 95 % reads. Inline vs --enable_blob_files=true --min_blob_size=0.
# Prints a Markdown table: fillrandom ops/sec, write amplification ((flush + compaction bytes
# written, blobs included) / (key + value bytes)), readrandomwriterandom ops/sec and Get P99 (µs).
#
#   scripts/blob-sweep.sh [--sizes "1024 4096 16384"] [--bytes 1073741824] [--flags "EXTRA"] [--out DIR]
#
# --flags adds db_bench flags to every run, e.g. a tree scaled down with the data: seed 002 wrote
# 500,000 values (8 GB at 16 KB) into db_bench's default tree; 1 GB into a tree 1/8 that size,
#   --flags "--write_buffer_size=8388608 --target_file_size_base=8388608 --max_bytes_for_level_base=33554432"
# has the same number of levels, and so the same write amplification, as the seed's.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="1024 4096 16384"
bytes=1073741824
out=target/blob-sweep
extra_flags=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --flags) extra_flags=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "blob-sweep.sh: unknown argument $1 (allowed: --sizes \"LIST\", --bytes N, --flags \"FLAGS\", --out DIR)" >&2; exit 2 ;;
  esac
done
cargo build --release -q -p lsmlab-cli
mkdir -p "$out"
dbbench=$(command -v db_bench || true)
ops() { awk -v b="$2" '$1==b {for(i=1;i<=NF;i++) if($i=="ops/sec") print $(i-1)}' "$1" | tail -1; }
wa() {
  awk -v user="$2" '/^rocksdb.flush.write.bytes COUNT/{f=$4} /^rocksdb.compact.write.bytes COUNT/{c=$4}
       END{ if (user>0) printf "%.2f", (f+c)/user; else print "n/a" }' "$1"
}
# P99 of the "Microseconds per read" histogram block, as db_bench prints it.
p99() { awk '/^Microseconds per read:/{r=1} r && /^Percentiles:/{for(i=1;i<=NF;i++) if($i=="P99:") {print $(i+1); exit}}' "$1"; }
echo "| value size | mode | engine | fillrandom ops/s | write amp | readrandomwriterandom ops/s | Get P99 µs |"
echo "|---|---|---|---|---|---|---|"
for size in $sizes; do
  num=$((bytes / size))
  user=$((num * (16 + size)))
  for mode in inline blob; do
    extra=(); [ $mode = blob ] && extra=(--enable_blob_files=true --min_blob_size=0)
    flags=(--benchmarks=fillrandom,readrandomwriterandom --readwritepercent=95 --reads=$((num / 5))
           --num=$num --key_size=16 --value_size=$size --compression_type=none --compression_ratio=1
           --statistics --histogram --seed=1 "${extra[@]}")
    # shellcheck disable=SC2206  # word splitting of --flags is intended
    flags+=($extra_flags)
    for engine in lsmlab rocksdb; do
      f="$out/$engine-$mode-$size.txt"
      rm -rf "$out/db"
      if [ $engine = lsmlab ]; then
        target/release/lsmlab bench "${flags[@]}" --db="$out/db" >"$f" 2>&1 || true
      elif [ -n "$dbbench" ]; then
        "$dbbench" "${flags[@]}" --db="$out/db" >"$f" 2>&1 || true
      else
        continue
      fi
      echo "| $size | $mode | $engine | $(ops "$f" fillrandom) | $(wa "$f" $user) | $(ops "$f" readrandomwriterandom) | $(p99 "$f") |"
    done
  done
done
rm -rf "$out/db"

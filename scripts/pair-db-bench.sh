#!/usr/bin/env bash
# lsmlab against a RocksDB db_bench on one command line: runs `lsmlab bench FLAGS` and
# `DB_BENCH FLAGS` alternately (db_bench first, then lsmlab, REPS times), each on a fresh
# database, and prints every run's ops/sec per benchmark, then per benchmark the median of
# each tool and the ratio of the medians (lsmlab / db_bench: above 1, lsmlab is faster).
#
#   scripts/pair-db-bench.sh [--reps N] [--db-bench PATH] [--lsmlab PATH] [--keep DIR] -- FLAGS...
#
# FLAGS are db_bench's (`--benchmarks=fillrandom,readrandom --num=1000000 ...`); `--db` is
# set by the script. The db_bench used is --db-bench, else $DB_BENCH, else `db_bench` on PATH;
# lsmlab is --lsmlab, else target/release/lsmlab (built here if missing). Alternating the two
# tools spreads a machine's drift over both; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=3
dbbench=${DB_BENCH:-}
lsmlab=target/release/lsmlab
keep=
usage="allowed: --reps N, --db-bench PATH, --lsmlab PATH, --keep DIR, then -- and db_bench's flags"
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --db-bench) dbbench=${2:?--db-bench needs a path}; shift 2 ;;
    --lsmlab) lsmlab=${2:?--lsmlab needs a path}; shift 2 ;;
    --keep) keep=${2:?--keep needs a directory}; shift 2 ;;
    --) shift; break ;;
    *) echo "pair-db-bench.sh: unknown argument $1 ($usage)" >&2; exit 2 ;;
  esac
done
case "$reps" in
  ''|*[!0-9]*|0) echo "pair-db-bench.sh: --reps $reps: allowed: a whole number of at least 1" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "pair-db-bench.sh: no db_bench flags after -- ($usage)" >&2; exit 2; }
benches=$(printf '%s\n' "$@" | sed -n 's/^--benchmarks=//p' | tail -1 | tr ',' ' ')
[ -n "$benches" ] || { echo "pair-db-bench.sh: the flags name no --benchmarks" >&2; exit 2; }
for f in "$@"; do
  case "$f" in --db=*) echo "pair-db-bench.sh: $f: the script sets --db itself" >&2; exit 2 ;; esac
done
[ -n "$dbbench" ] || dbbench=$(command -v db_bench || true)
[ -n "$dbbench" ] && [ -x "$dbbench" ] || {
  echo "pair-db-bench.sh: no db_bench (give --db-bench PATH, set DB_BENCH, or install rocksdb-tools)" >&2
  exit 2
}
if [ ! -x "$lsmlab" ]; then
  [ "$lsmlab" = target/release/lsmlab ] || { echo "pair-db-bench.sh: --lsmlab $lsmlab is not executable" >&2; exit 2; }
  cargo build --release -q -p lsmlab-cli
fi
if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi

# ops/sec of benchmark $2's summary line (`readrandom : 1.234 micros/op 810372 ops/sec; ...`)
ops() { awk -v b="$2" '$1==b && $2==":" {for(i=1;i<=NF;i++) if($i=="ops/sec") v=$(i-1)} END{print v}' "$1"; }
# the median of the numbers in file $1, one a line; nothing when there are none
median() {
  [ -s "$1" ] || return 0
  sort -g "$1" | awk '{v[NR]=$1} END{if(NR%2) print v[(NR+1)/2]; else printf "%.1f\n", (v[NR/2]+v[NR/2+1])/2}'
}

for rep in $(seq "$reps"); do
  for tool in db_bench lsmlab; do
    out=$work/$tool.$rep.txt
    rm -rf "$work/db"
    if [ $tool = db_bench ]; then cmd=("$dbbench"); else cmd=("$lsmlab" bench); fi
    if ! "${cmd[@]}" "$@" --db="$work/db" >"$out" 2>&1; then
      echo "pair-db-bench.sh: $tool failed in run $rep; the end of its output:" >&2
      tail -5 "$out" >&2
      exit 1
    fi
    for b in $benches; do
      v=$(ops "$out" "$b")
      if [ -n "$v" ]; then echo "$v" >>"$work/$tool.$b.ops"; v="$v ops/sec"; else v="no summary line"; fi
      printf '%-8s run %d  %-22s %s\n' "$tool" "$rep" "$b" "$v"
    done
  done
done
rm -rf "$work/db"

echo
printf '%-22s %14s %14s %8s   (medians of %d runs each; db_bench: %s)\n' \
  benchmark db_bench lsmlab ratio "$reps" "$dbbench"
for b in $benches; do
  r=$(median "$work/db_bench.$b.ops")
  l=$(median "$work/lsmlab.$b.ops")
  awk -v b="$b" -v r="$r" -v l="$l" 'BEGIN{
    ratio = (r > 0 && l != "") ? sprintf("%.3f", l / r) : "n/a"
    printf "%-22s %14s %14s %8s\n", b, (r == "" ? "n/a" : r), (l == "" ? "n/a" : l), ratio }'
done

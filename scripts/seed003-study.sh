#!/usr/bin/env bash
# Seed 003 (FSLSM-Tree vs WiscKey vs LevelDB on the 15 YCSB mixes) through `lsmlab ycsb`.
# For each mix and preset: a fresh database, `ycsb load` of --records records, then `ycsb run` of
# --ops operations (zipfian, as the mix files say), every read verified by the engine's own
# checksums. Prints one Markdown row per (mix, preset) from the run phase's --json.
#
#   scripts/seed003-study.sh [--mixes "0 3 5 11"] [--presets "leveldb wisckey fslsm"]
#                            [--records 50000] [--ops 300000] [--reps 1] [--out DIR] [--props "-p k=v ..."]
#                            [--study-shape]
#
# --study-shape runs the study's own tree instead (`lsmlab.shape=fslsm-study`, docs/fslsm.md),
# with the load settled before the run and scans as point gets, as the plan's paper scale.
#
# The tree is shaped as the seed's (docs/fslsm.md, "Tree shape"): 4 MiB memtables, tables of
# 64 KiB, level 1 of 10 tables (640 KiB) and x10 per level, level-0 trigger 4; records of
# 10 fields x 120 bytes (about 1.2 KB values), YCSB's hashed "user…" keys.
# With --reps N each (mix, preset) runs N times, presets alternated within each repetition, and
# the table shows medians.
set -euo pipefail
cd "$(dirname "$0")/.."
mixes="0 3 5 11 12"
presets="leveldb wisckey fslsm"
records=50000
ops=300000
reps=1
out=target/seed003
extra=""
study_shape=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mixes) mixes=$2; shift 2 ;;
    --presets) presets=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --props) extra=$2; shift 2 ;;
    --study-shape) study_shape=1; shift ;;
    *) echo "seed003-study.sh: unknown argument $1 (allowed: --mixes \"LIST\", --presets \"LIST\", --records N, --ops N, --reps N, --out DIR, --props \"-p k=v ...\", --study-shape)" >&2; exit 2 ;;
  esac
done
cargo build --release -q -p lsmlab-cli
bin=target/release/lsmlab
mkdir -p "$out"
shape="-p fieldcount=10 -p fieldlength=120 -p lsmlab.write_buffer_size=4194304
  -p lsmlab.target_file_size_base=65536 -p lsmlab.max_bytes_for_level_base=655360
  -p lsmlab.level0_file_num_compaction_trigger=4"
if [ "$study_shape" = 1 ]; then
  shape="-p fieldcount=10 -p fieldlength=120 -p lsmlab.shape=fslsm-study -p lsmlab.settle=true
  -p scanmethod=gets"
fi
for rep in $(seq 1 "$reps"); do
  for mix in $mixes; do
    # Alternate the order of the presets between repetitions, so that drift does not favour one.
    order=$presets
    if [ $((rep % 2)) -eq 0 ]; then order=$(echo "$presets" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    for preset in $order; do
      db="$out/db-$mix-$preset"
      rm -rf "$db"
      # shellcheck disable=SC2086
      "$bin" ycsb load -P "fslsm-workload$mix" -p recordcount="$records" -p layout="$preset" \
        $shape $extra --db="$db" > "$out/load-$mix-$preset-$rep.txt"
      # shellcheck disable=SC2086
      "$bin" ycsb run -P "fslsm-workload$mix" -p recordcount="$records" -p operationcount="$ops" \
        -p layout="$preset" $shape $extra --db="$db" --json="$out/run-$mix-$preset-$rep.json" \
        > "$out/run-$mix-$preset-$rep.txt"
      rm -rf "$db"
    done
  done
done
python3 - "$out" "$mixes" "$presets" "$reps" <<'PY'
import json, statistics, sys
out, mixes, presets, reps = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4])
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
def f(x, fmt):
    return "n/a" if x is None else format(x, fmt)
print("| mix | preset | ops/s | P99 µs (read / write) | files/lookup | read amp | write amp | compaction MB (major) | flush MB (minor) | float-ups | read ratio | L0 trigger | device time s | wall s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for mix in mixes:
    for p in presets:
        runs = []
        for r in range(1, reps + 1):
            try:
                runs.append(json.load(open(f"{out}/run-{mix}-{p}-{r}.json")))
            except FileNotFoundError:
                pass
        if not runs:
            continue
        def per(op):
            v = [run["per_operation"][op]["latency_us"]["p99_us"] for run in runs if op in run["per_operation"]]
            return med(v)
        rd = per("READ") or per("SCAN")
        wr = med([per(o) for o in ("UPDATE", "INSERT", "READ-MODIFY-WRITE")])
        L = lambda k: med([run["lsmlab"][k] for run in runs])
        print(f"| {mix} | {p} | {f(med([r['throughput_ops_per_sec'] for r in runs]), '.0f')} | {f(rd, '.0f')} / {f(wr, '.0f')} "
              f"| {f(L('files_checked_per_get'), '.2f')} | {f(L('read_amp'), '.2f')} | {f(L('write_amp'), '.2f')} "
              f"| {f(L('compaction_read_bytes') / 2**20, '.1f')} | {f(L('flush_bytes') / 2**20, '.1f')} | {f(L('float_ups'), '.0f')} "
              f"| {f(L('read_ratio'), '.2f')} | {f(med([run['lsmlab']['level0_triggers'][0] for run in runs]), '.0f')} "
              f"| {f(L('device_time_s'), '.2f')} | {f(L('wall_s'), '.2f')} |")
PY

#!/usr/bin/env bash
# The study runner under a real scheduler: a one-node Slurm cluster (scripts/slurm-local.sh)
# runs experiments/slurm/smoke.toml split into 2 and into 3 shards by experiments/slurm/submit.sh
# (a job array, then a merge job with --dependency=afterok), and the merged results are checked
# against an unsharded run of the same plan: the same run ids, the same rows of runs.csv (but for
# `order` and the measured values), the same figure sections, every shard's environment kept.
# Then a shard is cancelled with scancel part way, the study submitted again, and the runs it had
# finished must be kept, not redone. Last, the Slurm executor (`lsmlab run --executor slurm`):
# a sequential study's rounds as job arrays, with the verdicts of a local run; a controller
# killed with -9 and resumed; a task cancelled and resubmitted.
#
#   scripts/slurm-test.sh            # LSMLAB=path/to/lsmlab, default target/debug/lsmlab
#
# Exits 0 with a "skipped:" line when Slurm is not installed and cannot be (not root, no apt-get);
# CI (.ci/run) installs it. Prints the sbatch job ids, the array tasks' states and report paths.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export LSMLAB=${LSMLAB:-$root/target/debug/lsmlab}
[ -x "$LSMLAB" ] || { echo "slurm-test: $LSMLAB is not built (cargo build -p lsmlab-cli)" >&2; exit 1; }
case "$LSMLAB" in /*) ;; *) LSMLAB=$root/$LSMLAB ;; esac

if ! command -v sbatch >/dev/null || ! [ -x /usr/sbin/slurmctld ] || ! [ -x /usr/sbin/munged ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    { apt-get install -y -q slurmctld slurmd slurm-client munge \
        || { apt-get update -q && apt-get install -y -q slurmctld slurmd slurm-client munge; }; } \
      >/dev/null 2>&1 || true
  fi
  if ! command -v sbatch >/dev/null || ! [ -x /usr/sbin/slurmctld ]; then
    echo "slurm-test: skipped: Slurm (slurmctld, slurmd, slurm-client, munge) is not installed and could not be"
    exit 0
  fi
fi

tmp=$(mktemp -d /tmp/lsmlab-slurm-test.XXXXXX)
export LSMLAB_SLURM_DIR=$tmp/cluster
# A port of its own, so a cluster a user started is left alone.
export LSMLAB_SLURM_PORT=${LSMLAB_SLURM_PORT:-6917}
cleanup() {
  scripts/slurm-local.sh stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
scripts/slurm-local.sh start
export SLURM_CONF=$LSMLAB_SLURM_DIR/slurm.conf

passed=0 failed=0
check() { # check DESCRIPTION CMD...
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok: $what"; else failed=$((failed + 1)); echo "FAILED: $what"; fi
}

# Waits for jobs to leave the queue (at most $2 s), printing each state change of their tasks.
wait_jobs() {
  local jobs=$1 deadline=$(( $(date +%s) + $2 )) last="" now
  while :; do
    now=$(squeue -h -r -j "$jobs" -o '%i %T %R' 2>/dev/null | sort || true)
    if [ "$now" != "$last" ] && [ -n "$now" ]; then echo "$now" | sed 's/^/  queue: /'; fi
    last=$now
    [ -z "$now" ] && return 0
    [ "$(date +%s)" -lt "$deadline" ] || { echo "slurm-test: jobs $jobs still queued after $2 s"; return 1; }
    sleep 1
  done
}

# Final state of each task of an array job (the controller keeps ended jobs for MinJobAge).
task_states() {
  scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobId=\([0-9]*\).*ArrayTaskId=\([0-9]*\).*JobState=\([A-Z_]*\).*/\2 \3/p' | sort -n
}

runs_of() { ls "$1/runs" | grep -v '\.partial$' | sort; }
# runs.csv rows without `order` (column 6), the outside load (7 and 8) and the value (last
# column): what a split must keep.
rows_of() { awk -F, 'NR > 1 { $6 = ""; $7 = ""; $8 = ""; $NF = ""; print }' "$1/runs.csv" | sort; }
sections_of() { grep -E '^#{1,3} ' "$1/report.md" | grep -v -i -E 'shard|machine' || true; }

plan=experiments/slurm/smoke.toml
"$LSMLAB" run "$plan" --out "$tmp/whole" >/dev/null 2>"$tmp/whole.log" || { cat "$tmp/whole.log"; exit 1; }
echo "unsharded: $tmp/whole/report.html ($(runs_of "$tmp/whole" | wc -l) runs)"

for n in 2 3; do
  out=$tmp/split$n
  line=$(experiments/slurm/submit.sh "$plan" "$n" "$out")
  echo "$line"
  array=$(echo "$line" | sed -n 's/^array job \([0-9]*\).*/\1/p')
  merge=$(echo "$line" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
  wait_jobs "$array,$merge" 300
  states=$(task_states "$array")
  echo "$states" | sed "s/^/  array $array task /"
  check "$n shards: every array task COMPLETED" \
    test "$(echo "$states" | grep -c ' COMPLETED$')" = "$n"
  check "$n shards: the merge job wrote the report" test -f "$out/merged/report.html"
  echo "  merged report: $out/merged/report.html"
  check "$n shards: the same run ids as the unsharded run" \
    diff <(runs_of "$tmp/whole") <(runs_of "$out/merged")
  check "$n shards: the same rows of runs.csv" diff <(rows_of "$tmp/whole") <(rows_of "$out/merged")
  check "$n shards: the same report sections" \
    diff <(sections_of "$tmp/whole") <(sections_of "$out/merged")
  check "$n shards: every shard's environment kept" \
    test "$(grep -c '"hostname"' "$out/merged/environments.json")" = "$n"
  check "$n shards: merge.json says $n shards and nothing missing" \
    grep -q "\"shards\": $n" "$out/merged/merge.json"
  check "$n shards: no run missing" grep -q '"missing": \[\]' "$out/merged/merge.json"
done

# A shard cancelled part way, then the study submitted again.
out=$tmp/cancelled
line=$(experiments/slurm/submit.sh "$plan" 3 "$out" --scale long)
echo "$line"
array=$(echo "$line" | sed -n 's/^array job \([0-9]*\).*/\1/p')
merge=$(echo "$line" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
deadline=$(( $(date +%s) + 300 ))
until [ "$(ls "$out/shard-0/runs" 2>/dev/null | grep -vc '\.partial$')" -ge 1 ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "slurm-test: shard 0 finished no run in 300 s"; exit 1; }
  sleep 0.5
done
scancel "$array" "$merge"
wait_jobs "$array,$merge" 120 || true
echo "  cancelled array $array and merge $merge: $(task_states "$array" | tr '\n' ' ')"
before=$(for r in $(runs_of "$out/shard-0"); do echo "$r $(stat -c '%i %Y' "$out/shard-0/runs/$r/result.json")"; done)
kept=$(echo "$before" | grep -c . || true)
total=$(runs_of "$tmp/whole" | wc -l)
echo "  shard 0 had finished $kept runs when cancelled; the study has $total"
check "cancelled: the study was not complete" test "$kept" -lt "$total"
line=$(experiments/slurm/submit.sh "$plan" 3 "$out" --scale long)
echo "$line (resubmitted)"
array=$(echo "$line" | sed -n 's/^array job \([0-9]*\).*/\1/p')
merge=$(echo "$line" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
wait_jobs "$array,$merge" 600
task_states "$array" | sed "s/^/  array $array task /"
after=$(for r in $(echo "$before" | cut -d' ' -f1); do echo "$r $(stat -c '%i %Y' "$out/shard-0/runs/$r/result.json" 2>/dev/null)"; done)
check "resumed: the runs finished before the cancel were not redone" test "$before" = "$after"
check "resumed: the merged study has every run" \
  test "$(runs_of "$out/merged" | wc -l)" = "$total"
check "resumed: no run missing" grep -q '"missing": \[\]' "$out/merged/merge.json"
grep -h "resum" "$out"/slurm-"$array"_0.out | head -2 | sed 's/^/  shard 0: /' || true
echo "  merged report: $out/merged/report.html"

# The Slurm executor: a sequential study whose every run, its rounds' included, runs as Slurm
# job arrays (one task at a time on this one node, --cpus-per-task=2, so that its timings are
# those of a local run), against the same study run locally. One repetition to start with: no
# claim is decided from a single run a side, so at least one round follows the plan's runs
# (with the plan's two, a quiet machine decides both claims at once and no round runs).
opts=--cpus-per-task=2
job_ids() { grep -o '"id": "[0-9]*"' "$1/slurm/jobs.json" | grep -o '[0-9]*' | paste -sd, -; }
verdicts_of() { grep -E '^\| [0-9]+\. ' "$1/report.md" | awk -F'|' '{print $2 "->" $(NF-1)}' | sed 's/ —.*->/ ->/'; }
ok_runs() { grep -l '"status": "ok"' "$1"/runs/*/result.json 2>/dev/null | wc -l; }
"$LSMLAB" run "$plan" --until-decided --budget 2m --repetitions 1 --out "$tmp/seq-local" >/dev/null 2>"$tmp/seq-local.log" \
  || { cat "$tmp/seq-local.log"; exit 1; }
rc=0
"$LSMLAB" run "$plan" --until-decided --budget 2m --repetitions 1 --executor slurm --slurm-opts "$opts" \
  --out "$tmp/seq-slurm" \
  >/dev/null 2>"$tmp/seq-slurm.log" || rc=$?
check "executor: the sequential study ran" test "$rc" = 0
[ "$rc" = 0 ] || tail -5 "$tmp/seq-slurm.log"
grep -E '^(until decided|slurm: job [0-9]+ \()' "$tmp/seq-slurm.log" | sed 's/^/  /' || true
jobs=$(job_ids "$tmp/seq-slurm")
echo "  jobs: $jobs; sacct --completion:"
sacct --completion -n -P -j "$jobs" -o JobID,JobName,State 2>/dev/null | sed 's/^/    /'
check "executor: the plan's runs and each round ran as a Slurm job" \
  test "$(echo "$jobs" | tr ',' '\n' | wc -l)" -ge 2
check "executor: sacct shows every job" \
  test "$(sacct --completion -n -P -j "$jobs" -o JobID,State 2>/dev/null | grep -c COMPLETED)" -ge "$(echo "$jobs" | tr ',' '\n' | wc -l)"
verdicts_of "$tmp/seq-slurm" | sed 's/^/  slurm: /'
check "executor: the same verdicts as a local run" diff <(verdicts_of "$tmp/seq-local") <(verdicts_of "$tmp/seq-slurm")

# The controller killed with -9 while its job runs; `--resume` waits for the job, then submits
# only what has no record: every run once.
out=$tmp/killed
"$LSMLAB" run "$plan" --executor slurm --slurm-opts "$opts" --out "$out" >/dev/null 2>"$tmp/killed.log" &
ctl=$!
deadline=$(( $(date +%s) + 300 ))
until [ -f "$out/slurm/jobs.json" ] && [ "$(ls "$out/runs" 2>/dev/null | grep -vc '\.partial$')" -ge 1 ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "slurm-test: no run finished in 300 s"; cat "$tmp/killed.log"; exit 1; }
  sleep 0.5
done
kill -9 "$ctl"; wait "$ctl" 2>/dev/null || true
echo "  controller killed with $(ls "$out/runs" | grep -vc '\.partial$') runs recorded; job $(job_ids "$out") goes on"
rc=0
"$LSMLAB" run --resume "$out" >/dev/null 2>"$tmp/resumed.log" || rc=$?
check "killed controller: --resume finishes the study" test "$rc" = 0
grep -E '^slurm: ' "$tmp/resumed.log" | head -4 | sed 's/^/  /' || true
check "killed controller: --resume waited for the job still in the queue" grep -q "still in the queue: waiting" "$tmp/resumed.log"
check "killed controller: every run recorded ok" test "$(ok_runs "$out")" = 12
check "killed controller: no run ran twice" \
  test "$(cat "$out"/slurm/*.out | grep -oE 'c[0-9]+-lsmlab-r[0-9]+ ok' | sort | uniq -d | wc -l)" = 0

# A task cancelled with scancel: its runs without a record are submitted again. The tasks run one
# at a time here, so the last task is still pending when the job is first seen: cancelling it
# needs no race with a run.
out=$tmp/task-cancelled
"$LSMLAB" run "$plan" --executor slurm --slurm-opts "$opts" --out "$out" >/dev/null 2>"$tmp/tc.log" &
ctl=$!
deadline=$(( $(date +%s) + 300 ))
until [ -f "$out/slurm/jobs.json" ] && [ -f "$out/slurm/batch000.tasks" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "slurm-test: no job in 300 s"; cat "$tmp/tc.log"; exit 1; }
  sleep 0.2
done
last=$(( $(wc -l < "$out/slurm/batch000.tasks") - 1 ))
echo "  task $last of job $(job_ids "$out"): $(squeue -h -r -j "$(job_ids "$out")_$last" -o '%T' 2>/dev/null)"
scancel "$(job_ids "$out")_$last"
echo "  cancelled task $last of job $(job_ids "$out")"
check "cancelled task: the study finished" wait "$ctl"
grep -E '^slurm: job [0-9]+ (\(|[^:]*: [0-9]+ runs have)' "$tmp/tc.log" | sed 's/^/  /' || true
check "cancelled task: its runs were submitted again" grep -q "submitting them again" "$tmp/tc.log"
check "cancelled task: every run recorded ok" test "$(ok_runs "$out")" = 12

scripts/slurm-local.sh stop
if pgrep -f "$LSMLAB_SLURM_DIR" >/dev/null; then
  failed=$((failed + 1)); echo "FAILED: stop left processes running"
else
  passed=$((passed + 1)); echo "ok: stop left nothing running"
fi
echo "slurm: $passed passed, $failed failed"
[ "$failed" = 0 ]

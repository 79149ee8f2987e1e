#!/usr/bin/env bash
# Runs a study on a Slurm cluster: a job array of N shards, then a merge job that waits for all
# of them (--dependency=afterok) and writes OUT/merged/report.html.
#
#   experiments/slurm/submit.sh PLAN.toml N OUT [lsmlab run flags, e.g. --scale paper]
#
# OUT must be on a file system every node sees. The nodes run `lsmlab` from PATH, or $LSMLAB
# (exported to the jobs, as is the rest of the environment). Extra sbatch options (partition,
# account, time limit) go in $SBATCH_OPTS. Submitting again with the same OUT resumes: each task
# picks up its shard's finished runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 3 ]; then
  echo "usage: $0 PLAN.toml N OUT [lsmlab run flags...]" >&2
  exit 2
fi
plan=$1 count=$2 out=$3
shift 3
[ -f "$plan" ] || { echo "submit: $plan: no such plan" >&2; exit 2; }
[[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "submit: N: $count is not a whole number from 1" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "submit: sbatch not found: this needs a Slurm cluster (scripts/slurm-local.sh start makes one here)" >&2; exit 2; }
plan=$(cd "$(dirname "$plan")" && pwd)/$(basename "$plan")
mkdir -p "$out"
out=$(cd "$out" && pwd)
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_OPTS:-} --array="0-$((count - 1))" \
  --output="$out/slurm-%A_%a.out" "$here/study.sbatch" "$plan" "$count" "$out" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --dependency="afterok:$array" \
  --output="$out/slurm-merge-%j.out" "$here/merge.sbatch" "$count" "$out")
merge=${merge%%;*}
echo "array job $array ($count shards), merge job $merge; report: $out/merged/report.html"

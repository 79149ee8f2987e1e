#!/usr/bin/env bash
# Runs the five seed studies at `standard` scale and writes their claims tables, as the tool
# decided them, into docs/seeds-standard.md (the command, the commit, the machine and each
# study's setup beside them).
#
#   scripts/seeds-standard.sh [--budget SEED=DURATION]... [--repetitions SEED=N]... [SEED...]
#                           # default seeds: 000 001 002 003 004
#   scripts/seeds-standard.sh --existing [--budget ..] [--repetitions ..] [SEED...]
#                           # no runs: each seed's latest results/seedNNN-standard-* directory
#                           # (the flags then only name the command each section shows)
#
# `--budget 000=25m` runs that seed as a sequential study (`lsmlab run --until-decided --budget
# 25m`): after its repetitions, rounds of one more repetition of the cells its open claims read,
# until every claim is decided or the budget (its own repetitions included) is spent.
# `--repetitions 000=3` starts that seed from 3 repetitions instead of its scale's.
#
# Engines are found as `lsmlab run` finds them (PATH, LSMLAB_ROCKSDB_BINARY,
# LSMLAB_LEVELDB_BINARY); a missing optional engine is skipped and the table says so. Run it on
# a quiet machine: the report warns when processes outside the study took CPU, and this page
# repeats that warning. Seeds not named keep their section from the page as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
existing=false
declare -A budget=() reps=()
seeds=()
while [ $# -gt 0 ]; do
    case "$1" in
    --existing) existing=true ;;
    --budget | --repetitions)
        [ $# -ge 2 ] && [[ "$2" == *=* ]] || { echo "$1: expected SEED=VALUE" >&2; exit 2; }
        if [ "$1" = --budget ]; then budget[${2%%=*}]=${2#*=}; else reps[${2%%=*}]=${2#*=}; fi
        shift ;;
    -*) echo "unknown option $1; allowed --existing, --budget SEED=DURATION, --repetitions SEED=N" >&2; exit 2 ;;
    *) seeds+=("$1") ;;
    esac
    shift
done
[ ${#seeds[@]} -gt 0 ] || seeds=(000 001 002 003 004)
out=docs/seeds-standard.md

bin=target/release/lsmlab
$existing || cargo build --release -p lsmlab-cli >&2
# Each section names the build that ran it (its report's lsmlab row); the page names the
# commit that wrote it.
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain --untracked-files=no -- . ':!docs/seeds-standard.md' | grep -q . && echo " (with uncommitted changes)" || true)
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
cores=$(nproc)
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)

# section SEED: the markdown section of one seed's run, from its report.md.
section() {
    local seed=$1 dir=$2 start=$3 end=$4 args=${5:-}
    local md="$dir/report.md"
    echo "## Seed $seed"
    echo
    echo "\`lsmlab run experiments/seed$seed.toml --scale standard$args\` — $start to $end UTC, results in \`$(basename "$dir")\`."
    echo
    # The setup rows a reader needs to weigh the verdicts.
    # (Binaries' paths are this machine's; their versions are what a reader needs.)
    grep -E '^\| (repetitions|until decided|runs|missing runs|engines|flags|properties|matrix|load average|outside load|lsmlab) \|' "$md" |
        sed -E -e 's/^\| ([^|]+) \| (.*) \|$/- \1: \2/' -e 's/ \(\/[^)]*\)//g' || true
    echo
    # The table and its notes; the forest plot stays in the report (its image is the report's).
    awk '/^## Claims of the seed/ {on = 1; next} on && /^## / {exit} on' "$md" |
        grep -vE '^(!\[|One row per ratio claim)' >"$tmp/$seed.claims"
    echo "Verdicts: $(counts <"$tmp/$seed.claims")."
    echo
    cat "$tmp/$seed.claims"
    echo
    # How noisy each timing metric was, and which decides a timing claim soonest.
    python3 scripts/timing-cv.py "$dir"
}

# counts: "N reproduced, M inconclusive, …" from the verdict column of claims tables on stdin.
counts() {
    grep -E '^\| ' | grep -vE '^\|( claim \||---)' | awk -F'|' '{v = $(NF - 1); gsub(/^ +| +$/, "", v); print v}' |
        sort | uniq -c | sort -rn | awk '{n = $1; $1 = ""; sub(/^ /, ""); printf "%s%d %s", (NR > 1 ? ", " : ""), n, $0}'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for seed in "${seeds[@]}"; do
    plan=experiments/seed$seed.toml
    [ -f "$plan" ] || { echo "no plan $plan" >&2; exit 1; }
    args=""
    [ -z "${reps[$seed]:-}" ] || args+=" --repetitions ${reps[$seed]}"
    [ -z "${budget[$seed]:-}" ] || args+=" --until-decided --budget ${budget[$seed]}"
    if $existing; then
        dir=$(ls -d results/seed"$seed"-standard-* 2>/dev/null | tail -n 1)
        [ -n "$dir" ] || { echo "no results/seed$seed-standard-* directory" >&2; exit 1; }
        # The first and last run's times, as the report states them.
        times=$(grep -E '^\| time \(UTC\) \|' "$dir/report.md" | grep -oE '[0-9]{8}T[0-9]{6}Z' | sed -E 's/(....)(..)(..)T(..)(..)(..)Z/\1-\2-\3T\4:\5:\6/')
        start=$(echo "$times" | head -n 1)
        end=$(echo "$times" | tail -n 1 | cut -dT -f2)
    else
        start=$(date -u +%FT%T)
        echo "== seed $seed ($start)" >&2
        # The run's last line on stdout is its report's path; a failed run leaves the study
        # non-zero, which stops this script with the report still written.
        # shellcheck disable=SC2086 # $args is a list of flags
        report=$("$bin" run "$plan" --scale standard $args | tail -n 1)
        end=$(date -u +%T)
        dir=$(dirname "$report")
    fi
    section "$seed" "$dir" "$start" "$end" "${args:-}" >"$tmp/$seed.md"
done

# The page a kept section comes from: its generating commit and date.
previous=$( [ -f "$out" ] && grep -oE -m1 'at commit `[0-9a-f]+`[^,]*, [0-9-]+' "$out" | sed 's/^at //' || true)
previous="the page generated at ${previous:-an earlier commit}"
for seed in 000 001 002 003 004; do
    if [ -f "$tmp/$seed.md" ]; then
        cat "$tmp/$seed.md"
    elif [ -f "$out" ]; then
        # Keep the section of a seed not run this time, saying which page it comes from: its
        # verdicts are those of that page's commit, which may have decided by other rules.
        awk -v h="## Seed $seed" -v from="$previous" '
            $0 == h {on = 1; n = 0; next}
            on && /^## / {exit}
            on {line[++n] = $0; if ($0 ~ /^\*Kept from /) kept = 1}
            END {
                if (!on) exit
                print h
                if (!kept) {print ""; print "*Kept from " from ", not run again: its verdicts are those of that commit'"'"'s rules.*"}
                for (i = 1; i <= n; i++) print line[i]
            }' "$out"
    fi
    echo
done >"$tmp/body.md"
{
    echo "# The seeds at standard scale: claims as the tool decided them"
    echo
    echo "Generated by \`scripts/seeds-standard.sh\` at commit \`$commit\`$dirty, $(date -u +%F), on a"
    echo "$cores-core $cpu with $mem. Each verdict is the claims table of the study's report,"
    echo "unedited, decided from the anytime-valid 95 % interval by the rules of"
    echo "[verdicts.md](verdicts.md): *reproduced* (the seed's direction beyond the smallest effect"
    echo "that matters and, where the seed gives a size, that size within the band), *same direction,"
    echo "smaller* or *larger* (the seed's size excluded; both figures named), *no effect*, *reversed*,"
    echo "*not reproduced* (a bound or an about band missed), *inconclusive*, *runs failed*, *n/a*."
    echo "The *seed* column is the seed's own figure, beside the measured one."
    echo
    echo "The seeds run for this page ($(ls "$tmp"/*.claims | xargs -n1 basename | sed 's/\.claims$//' | paste -sd, - | sed 's/,/, /g')): $(cat "$tmp"/*.claims | counts)."
    echo
    echo "What each standard scale is and why is in"
    echo "[how-to/reproduce-a-seed.md](how-to/reproduce-a-seed.md#the-scales); what the verdicts mean for each seed is in"
    echo "[results-seeds.md](results-seeds.md#what-the-verdicts-say)."
    echo
    echo "A seed whose command has \`--until-decided --budget D\` ran as a sequential study"
    echo "([statistics.md](statistics.md#sequential-studies---until-decided)): after its repetitions, rounds"
    echo "of one more repetition of the cells its open claims read, within D of run time in all; its"
    echo "setup's *until decided* row says why it stopped, and each claim still open carries what"
    echo "deciding it would cost. Each section ends with the spread of its timing metrics"
    echo "(\`scripts/timing-cv.py\`). The runs were made by the build each section's *lsmlab* row"
    echo "names; the verdicts are those of \`lsmlab report\` at the commit above."
    echo
    cat "$tmp/body.md"
} | cat -s >"$tmp/page.md"
mv "$tmp/page.md" "$out"
echo "$out"

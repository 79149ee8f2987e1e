#!/usr/bin/env bash
# Coverage-guided fuzzing of every decoder and of the two text inputs a user writes
# (docs/reliability.md): seeds each target's corpus with real files written by `lsmlab bench`
# (tables, blob files, WALs, MANIFEST), the study plans of experiments/ and the YCSB workloads
# of workloads/, then runs each target for the given seconds with libFuzzer. Needs
# `cargo install cargo-fuzz`; runs on stable Rust without a sanitizer (`-s none`): a panic, an
# abort or a hang (> 10 s) is a finding.
#
#   [LSMLAB=path/to/lsmlab] scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
# LSMLAB=PATH runs a prebuilt binary instead of building one (resolved before the cd below).
if [ -n "${LSMLAB:-}" ]; then
  LSMLAB=$(realpath -e "$LSMLAB" 2>/dev/null) && [ -x "$LSMLAB" ] ||
    { echo "fuzz.sh: LSMLAB must name an executable lsmlab binary" >&2; exit 2; }
fi
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(table log blob_file block small_decoders plan ycsb_workload)
command -v cargo-fuzz >/dev/null || { echo "fuzz.sh: install cargo-fuzz first: cargo install cargo-fuzz" >&2; exit 2; }
bin=${LSMLAB:-}
[ -n "$bin" ] || { cargo build --release -q -p lsmlab-cli; bin=target/release/lsmlab; }
seed=$(mktemp -d /tmp/lsmlab-fuzz-seed.XXXXXX)
trap 'rm -rf "$seed"' EXIT
"$bin" bench --db="$seed/db" --num=3000 --value_size=120 --write_buffer_size=65536 \
  --target_file_size_base=65536 --enable_blob_files=true --min_blob_size=100 --blob_file_size=65536 \
  --bloom_bits=10 --compression_type=none --benchmarks=fillrandom,overwrite >/dev/null
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  case $t in
    table|block|small_decoders) for f in "$seed"/db/*.sst; do head -c 65536 "$f" > "fuzz/corpus/$t/$(basename "$f")"; done ;;
    log) cp "$seed"/db/*.log "$seed"/db/MANIFEST-* "fuzz/corpus/$t/" ;;
    blob_file) for f in "$seed"/db/*.blob; do head -c 65536 "$f" > "fuzz/corpus/$t/$(basename "$f")"; done ;;
    plan) cp experiments/*.toml "fuzz/corpus/$t/" ;;
    ycsb_workload) cp workloads/workload* "fuzz/corpus/$t/" ;;
  esac
done
for t in "${targets[@]}"; do
  echo "== $t: $secs s"
  (cd fuzz && cargo fuzz run -s none -O "$t" -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 2>&1 |
    grep -E '^#[0-9]+[[:space:]]+DONE|^Done|SUMMARY|panicked|ERROR|crash-|timeout-' || true)
done

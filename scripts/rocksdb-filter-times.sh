#!/usr/bin/env bash
# RocksDB's own Bloom (FastLocalBloom) and Standard128Ribbon filters, timed as
# `cargo bench -p lsmlab --bench filter_times` times lsmlab's: build and query ns per key on the
# same key counts, best of 7 rounds. Compiled from the RocksDB source that lsmlab-cli's
# `rocksdb` feature builds (the librocksdb-sys crate; `cargo fetch` brings it), with the same
# optimisation as a release build (-O3 -march=native, NDEBUG).
#
#   scripts/rocksdb-filter-times.sh [BPK,BPK..] [CALLS_PER_ROUND] [KEYS]   # default 5,10 20 100000
#
# Needs a C++17 compiler (g++); docs/filters.md holds the figures beside lsmlab's.
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(cargo metadata --format-version 1 --all-features 2>/dev/null |
    python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "librocksdb-sys"))')
src=$(dirname "$manifest")/rocksdb
[ -f "$src/util/ribbon_impl.h" ] || { echo "no RocksDB source at $src (run cargo fetch)" >&2; exit 1; }
out=target/rocksdb-filter-times
mkdir -p "$out"
bin=$out/filter_times
if [ ! -x "$bin" ] || [ scripts/rocksdb-filter-times/filter_times.cc -nt "$bin" ]; then
    g++ -std=c++17 -O3 -march=native -DNDEBUG -DROCKSDB_PLATFORM_POSIX -DOS_LINUX \
        -I"$src" -I"$src/include" \
        scripts/rocksdb-filter-times/filter_times.cc "$src/util/ribbon_config.cc" -o "$bin"
fi
echo "RocksDB $(grep -E '^#define ROCKSDB_(MAJOR|MINOR|PATCH)' "$src/include/rocksdb/version.h" | awk '{print $3}' | paste -sd.)" >&2
"$bin" "$@"

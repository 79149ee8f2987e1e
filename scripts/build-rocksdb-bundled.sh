#!/usr/bin/env bash
# Builds `lsmlab` with `--features rocksdb-bundled` (plus any features given) the way RocksDB's
# own build compiles RocksDB by default (PORTABLE=0): for this machine's CPU. Without it the
# librocksdb-sys crate compiles RocksDB for the baseline x86-64 target, which has no SSE4.2, and
# RocksDB's CRC32C (every WAL record, every block written and read) falls back to software.
#
#   scripts/build-rocksdb-bundled.sh [--features fjall,leveldb]
#
# The build goes to $CARGO_TARGET_DIR (default ~/.cache/lsmlab-bundled-target), outside the
# clone, so the ~25 minutes of compiling RocksDB on 2 cores happen once per machine. The last
# line printed is the binary's path. The binary runs on CPUs like this one, not on any x86-64.
set -euo pipefail
cd "$(dirname "$0")/.."
features=rocksdb-bundled
if [ "${1:-}" = "--features" ]; then
    [ -n "${2:-}" ] || { echo "--features: give a comma-separated list, e.g. fjall,leveldb" >&2; exit 1; }
    features="$features,$2"
    shift 2
fi
[ $# -eq 0 ] || { echo "unknown argument $1; allowed: --features LIST" >&2; exit 1; }
if ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 && ! ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1; then
    echo "bindgen needs libclang: apt-get install -y libclang-dev" >&2
    exit 1
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lsmlab-bundled-target}"
export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native"
cargo build --release -p lsmlab-cli --features "$features" >&2
echo "$CARGO_TARGET_DIR/release/lsmlab"

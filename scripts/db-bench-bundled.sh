#!/usr/bin/env bash
# Builds RocksDB's own `db_bench` from the sources the `rocksdb-bundled` build compiled, linked
# against the very `librocksdb.a` that build made: the yardstick for the driver's own cost
# (`lsmlab bench --engine=rocksdb` against `db_bench` of the same RocksDB, same compiler flags).
#
#   scripts/build-rocksdb-bundled.sh      # first: builds librocksdb.a
#   scripts/db-bench-bundled.sh           # then: prints the db_bench binary's path
#
# Needs g++ and gflags (Debian: apt-get install -y g++ libgflags-dev), besides what the bundled
# build needs. Compiles 5 C++ files (about 3 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$HOME/.cache/lsmlab-bundled-target}"
lib=$(ls -t "$target"/release/build/librocksdb-sys-*/out/librocksdb.a 2>/dev/null | head -n 1 || true)
[ -n "$lib" ] || { echo "no librocksdb.a under $target: run scripts/build-rocksdb-bundled.sh first" >&2; exit 1; }
out=$(dirname "$lib")
version=$(awk '/^name = "librocksdb-sys"/ {getline; gsub(/version = "|"/, ""); print; exit}' Cargo.lock)
src=$(ls -d "$HOME"/.cargo/registry/src/*/librocksdb-sys-"$version"/rocksdb 2>/dev/null | head -n 1 || true)
[ -n "$src" ] || { echo "no source of librocksdb-sys $version under ~/.cargo/registry: run scripts/build-rocksdb-bundled.sh first" >&2; exit 1; }
[ -f /usr/include/gflags/gflags.h ] || { echo "db_bench needs gflags: apt-get install -y libgflags-dev" >&2; exit 1; }
command -v g++ >/dev/null || { echo "needs g++: apt-get install -y g++" >&2; exit 1; }

# The defines and code generation of librocksdb-sys's build.rs on Linux x86-64, with the CPU
# flags that scripts/build-rocksdb-bundled.sh gave it (-march=native).
flags=(-O3 -std=c++20 -march=native -fno-omit-frame-pointer -DNDEBUG=1 -DHAVE_ALIGNED_NEW
    -DHAVE_UINT128_EXTENSION -DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX
    -DROCKSDB_SCHED_GETCPU_PRESENT -DROCKSDB_AUXV_GETAUXVAL_PRESENT -DROCKSDB_FALLOCATE_PRESENT
    -DROCKSDB_RANGESYNC_PRESENT -D_FILE_OFFSET_BITS=64 -DSNAPPY=1 -DLZ4=1 -DZSTD=1 -DGFLAGS=1
    -I"$src" -I"$src/include" -I"$src/third-party/gtest-1.8.1/fused-src")
build="$out/db_bench-build"
mkdir -p "$build"
objs=()
for f in tools/db_bench.cc tools/db_bench_tool.cc tools/tool_hooks.cc \
    tools/simulated_hybrid_file_system.cc test_util/testutil.cc; do
    o="$build/$(echo "$f" | tr / _).o"
    if [ ! -f "$o" ] || [ "$src/$f" -nt "$o" ]; then
        echo "compiling $f" >&2
        g++ "${flags[@]}" -c "$src/$f" -o "$o"
    fi
    objs+=("$o")
done
bin="$out/db_bench"
libs=()
for l in libsnappy.a liblz4.a libzstd.a; do
    [ -f "$out/$l" ] && libs+=("$out/$l")
done
# librocksdb-sys's build_version.cc defines RocksDbIOUringEnable, as db_bench_tool.cc does (to
# read its --io_uring_enabled flag): db_bench's, linked first, is kept, as in RocksDB's own build.
g++ -o "$bin" "${objs[@]}" "$lib" "${libs[@]}" -Wl,--allow-multiple-definition \
    -lgflags -llz4 -lzstd -lsnappy -lpthread -ldl
echo "$bin"

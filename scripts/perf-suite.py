#!/usr/bin/env python3
"""lsmlab against release RocksDB, fjall and LevelDB 1.23 (where each runs the cell), side by side.

    scripts/perf-suite.py [--reps 3] [--only REGEX] [--out FILE.md] [--dry-run]

Each configuration runs every engine `--reps` times, alternating the engines (the order rotates
each repetition) on a fresh database, one process per run with all of its benchmarks, as
db_bench runs them. Prints, per configuration and benchmark, the median ops/sec of each engine,
the ratio of the medians, the median P99 (µs, from `--histogram=1`), the median peak RSS
(MiB, from GNU time) and the median size on disk of the database when the run ends (MiB, every
file in it). Run it on a quiet machine after `cargo build --release`: nothing else may
build or run meanwhile (2 cores here). Binaries: $LSMLAB (default target/release/lsmlab), $DBBENCH
(a release build of RocksDB's db_bench; required) and $LEVELDB (LevelDB 1.23's db_bench; without
it the LevelDB cells run lsmlab and RocksDB only). fjall runs through `lsmlab bench --engine=fjall`
of the same $LSMLAB, so that binary must be built with `--features fjall`; without it the fjall
column is n/a. fjall runs every cell whose flags it can honour: not the Ribbon cell (it has Bloom
filters only) nor the LevelDB cells (they read through memory maps, which fjall does not).

Every engine runs with Bloom filters of 10 bits/key and, unless the configuration names a
codec, without compression (on values that do not compress); otherwise each engine keeps
db_bench 11's defaults (64 MiB write buffers and tables, 32 MiB block cache, 4 KiB blocks, one
thread) unless the configuration says. The compressed configurations write values that compress
to half (`--compression_ratio=0.5`, db_bench's generator) with Snappy, LZ4 or ZSTD; fjall runs
the LZ4 ones only (it has no other codec). `--dry-run` prints every command without running any.

Between runs the suite waits for a quiet device, as `lsmlab run` does (docs/run.md "A quiet
device"): the last run's database is deleted, the file system synced (its journal commits, so
the deleted files' blocks are discarded on a disk mounted with `discard`, and dirty pages are
written back), then /proc/diskstats must show no write, no discard and no request in flight on
the device for 1 s, at most `--quiet-wait` seconds (default 30). Each run's wait is printed with
it, and the table's heading gives their median and longest. The fastest writer is the one a run
that starts during another engine's writeback penalises most.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

BENCHES = "fillrandom,overwrite,readrandom,readwhilewriting,seekrandom,readmissing"
COMMON = ["--key_size=16", "--bloom_bits=10", "--histogram=1"]
# Cells that name no codec run uncompressed.
NO_COMPRESSION = ["--compression_type=none"]
SEED000 = ["--write_buffer_size=8388608", "--target_file_size_base=8388608", "--threads=2"]
BLOB = ["--enable_blob_files=true", "--min_blob_size=0"]
# The engines of every cell whose flags fjall can honour.
THREE = ["lsmlab", "rocksdb", "fjall"]


def sized(value_size, num, reads):
    return [f"--value_size={value_size}", f"--num={num}", f"--reads={reads}", "--seek_nexts=10"]


# The compressed cells: each codec on 1 KB and 16 KB values that compress to half, in the
# defaults and seed-000 shapes; fjall runs the codec it has (LZ4).
COMPRESSED_BENCHES = "fillrandom,overwrite,readrandom,seekrandom"


def compressed_cells():
    cells = []
    for shape, shape_flags in (("defaults", []), ("seed000", SEED000)):
        for size, (num, reads) in ((1024, (200_000, 100_000)), (16384, (36_000, 36_000))):
            for codec in ("snappy", "lz4", "zstd"):
                flags = (sized(size, num, reads) + shape_flags
                         + [f"--compression_type={codec}", "--compression_ratio=0.5"])
                engines = THREE if codec == "lz4" else ["lsmlab", "rocksdb"]
                label = f"{shape} {size // 1024} KB {codec} 0.5"
                cells.append((label, flags, COMPRESSED_BENCHES, engines))
    return cells



# (name, flags, benchmarks, engines). Sizes hold about 100-200 MB of user data per fill; the 16 KB
# cells hold 590 MB, because with 12,000 keys their benchmarks lasted 0.06-0.4 s and the medians
# of 3 runs moved by up to 2x between suite runs (background work after the fill dominated).
CONFIGS = [
    ("defaults 100 B", sized(100, 1_000_000, 200_000), BENCHES, THREE),
    ("defaults 1 KB", sized(1024, 200_000, 100_000), BENCHES, THREE),
    ("defaults 16 KB", sized(16384, 36_000, 36_000), BENCHES, THREE),
    ("defaults 16 KB blob", sized(16384, 36_000, 36_000) + BLOB, BENCHES, THREE),
    ("seed000 100 B", sized(100, 1_000_000, 200_000) + SEED000, BENCHES, THREE),
    ("seed000 1 KB", sized(1024, 200_000, 100_000) + SEED000, BENCHES, THREE),
    ("seed000 16 KB", sized(16384, 36_000, 36_000) + SEED000, BENCHES, THREE),
    ("seed000 16 KB blob", sized(16384, 36_000, 36_000) + SEED000 + BLOB, BENCHES, THREE),
    # Ribbon against Bloom at the same bits/key: compare with the "seed000 1 KB" rows.
    ("seed000 1 KB ribbon", sized(1024, 200_000, 100_000) + SEED000 + ["--use_ribbon_filter=true"],
     "fillrandom,readrandom", ["lsmlab", "rocksdb"]),
    ("sync, 4 threads", ["--value_size=100", "--num=4000", "--sync=1", "--threads=4"],
     "fillrandom", THREE),
    # LevelDB's cells: what its db_bench can run at equal settings (its 64 MiB buffers and tables
    # set to RocksDB's defaults; its keys are 16 bytes; it reads tables through memory maps, so
    # the others do too).
    ("leveldb 100 B",
     sized(100, 1_000_000, 200_000)[:3] + ["--write_buffer_size=67108864", "--mmap_read=1"],
     "fillseq,fillrandom,overwrite,readrandom", ["lsmlab", "rocksdb", "leveldb"]),
    ("leveldb 1 KB",
     sized(1024, 200_000, 100_000)[:3] + ["--write_buffer_size=67108864", "--mmap_read=1"],
     "fillseq,fillrandom,overwrite,readrandom", ["lsmlab", "rocksdb", "leveldb"]),
] + compressed_cells()

# fjall and lsmlab at equal memory, both ways, on the seed-000 16 KB LZ4 writes (the cell where
# fjall's memory makes its writes faster). At lsmlab's: every engine gets a database-wide
# write-buffer budget of lsmlab's two 8 MiB write buffers, which holds fjall's journal (which
# seals and flushes its memtables) at its smallest, 64 MiB. At fjall's: lsmlab and RocksDB may
# hold up to fjall's default journal of 512 MiB in memtables.
SEED000_16K_LZ4 = (sized(16384, 36_000, 36_000) + SEED000
                   + ["--compression_type=lz4", "--compression_ratio=0.5"])
CONFIGS += [
    ("seed000 16 KB lz4 0.5, at lsmlab's memory",
     SEED000_16K_LZ4 + ["--db_write_buffer_size=16777216"], COMPRESSED_BENCHES, THREE),
    ("seed000 16 KB lz4 0.5, at fjall's memory", SEED000_16K_LZ4, COMPRESSED_BENCHES, THREE),
]
# Flags of one engine in one configuration, after the configuration's own.
ENGINE_FLAGS = {
    "seed000 16 KB lz4 0.5, at fjall's memory": {
        e: ["--max_write_buffer_number=64", "--db_write_buffer_size=536870912"]
        for e in ("lsmlab", "rocksdb")
    },
}


def engine_flags(name, engine, flags):
    """The configuration's flags for `engine`, with any of its own."""
    return flags + ENGINE_FLAGS.get(name, {}).get(engine, [])


def leveldb_flags(flags):
    """LevelDB 1.23's db_bench spelling of the cell's flags (it has no key_size, histogram is
    without percentiles, compression is 0/1, table size is max_file_size)."""
    out = ["--compression=0", "--max_file_size=67108864", "--bloom_bits=10"]
    for f in flags:
        name = f.split("=")[0]
        if name in ("--value_size", "--num", "--reads", "--write_buffer_size", "--threads"):
            out.append(f)
    return out


def lsmlab_path():
    return os.environ.get("LSMLAB", os.path.join(ROOT, "target", "release", "lsmlab"))


def binary(engine):
    if engine == "lsmlab":
        return [lsmlab_path(), "bench"]
    if engine == "fjall":
        return [lsmlab_path(), "bench", "--engine=fjall"]
    if engine == "rocksdb":
        return [os.environ.get("DBBENCH", "$DBBENCH")]
    return [os.environ.get("LEVELDB", "$LEVELDB")]


SUMMARY = re.compile(r"^(\w+)\s+:\s+([\d.]+) micros/op(?: (\d+) ops/sec)?")
MINMAX = re.compile(r"^Min: ([\d.]+)\s+Median: [\d.]+\s+Max: ([\d.]+)")
BUCKET = re.compile(r"^[\[(]\s*([\d.]+),\s*([\d.]+)\s*[\])]\s+(\d+)\s")


def p99_of(buckets, lo_hi):
    """P99 interpolated inside the bucket that holds it, clamped to the printed min and max: how
    RocksDB's db_bench computes the P99 it prints. Computed so for every engine, because lsmlab
    prints its exact HDR-histogram percentile, a different statistic from RocksDB's."""
    total = sum(n for _, _, n in buckets)
    if total == 0:
        return None
    threshold, cum = total * 0.99, 0
    for lo, hi, n in buckets:
        if n and cum + n >= threshold:
            v = lo + (hi - lo) * (threshold - cum) / n
            return min(max(v, lo_hi[0]), lo_hi[1]) if lo_hi else v
        cum += n
    return buckets[-1][1]


def parse(text, threads):
    """{benchmark: (ops/sec, P99 µs or None)} from db_bench output; the P99 is that of the first
    histogram after the benchmark's summary line."""
    out, last, buckets, lo_hi = {}, None, [], None

    def close():
        if last and buckets and out[last][1] is None:
            out[last][1] = p99_of(buckets, lo_hi)

    for line in text.splitlines():
        m = SUMMARY.match(line)
        if m:
            close()
            name, micros, ops = m.group(1), float(m.group(2)), m.group(3)
            ops = float(ops) if ops else threads * 1e6 / micros
            out[name] = [ops, None]
            last, buckets, lo_hi = name, [], None
            continue
        m = MINMAX.match(line)
        if m:
            close()
            buckets, lo_hi = [], (float(m.group(1)), float(m.group(2)))
            continue
        m = BUCKET.match(line)
        if m:
            buckets.append((float(m.group(1)), float(m.group(2)), int(m.group(3))))
    close()
    return out


def command(engine, flags, benches, db):
    """The command line of one run."""
    if engine == "leveldb":
        args = leveldb_flags(flags)
    else:
        named = any(f.startswith("--compression_type=") for f in flags)
        args = COMMON + ([] if named else NO_COMPRESSION) + flags
    return binary(engine) + [f"--benchmarks={benches}", f"--db={db}"] + args, args


def disk_mib(path):
    """MiB of every file under `path`."""
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(d, f))
            except OSError:
                pass
    return total / 1048576


def device_counters(dev):
    """(sectors written, sectors discarded, requests in flight) of device `dev` (st_dev)."""
    major, minor = os.major(dev), os.minor(dev)
    with open("/proc/diskstats") as f:
        for line in f:
            x = line.split()
            if len(x) >= 12 and int(x[0]) == major and int(x[1]) == minor:
                return int(x[9]), int(x[16]) if len(x) > 16 else 0, int(x[11])
    return None


def quiet_wait(path, bound):
    """Syncs and waits until the device of `path` has been idle for 1 s, at most `bound`
    seconds; returns (seconds waited, whether it went quiet), or None without a block device."""
    dev = os.stat(path).st_dev
    if bound <= 0 or os.major(dev) == 0 or device_counters(dev) is None:
        return None
    start = time.monotonic()
    os.sync()
    last, since = device_counters(dev), time.monotonic()
    while True:
        if last[2] == 0 and time.monotonic() - since >= 1.0:
            return time.monotonic() - start, True
        if time.monotonic() - start >= bound:
            return time.monotonic() - start, False
        time.sleep(0.1)
        now = device_counters(dev)
        if now[:2] != last[:2] or now[2] != 0:
            since = time.monotonic()
        last = now


def run(engine, flags, benches, work):
    db = os.path.join(work, "db")
    cmd, args = command(engine, flags, benches, db)
    rss = os.path.join(work, "rss")
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss] + cmd,
                       capture_output=True, text=True)
    threads = next((int(f.split("=")[1]) for f in args if f.startswith("--threads=")), 1)
    res = parse(p.stdout + p.stderr, threads)
    if p.returncode != 0 or not res:
        sys.exit(f"{engine} failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    with open(rss) as f:
        rss_mib = int(f.read().split()[-1]) / 1024
    disk = disk_mib(db)
    shutil.rmtree(db, ignore_errors=True)
    return res, rss_mib, disk


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, digits=0):
    if x is None:
        return "n/a"
    return f"{x:,.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="run the configurations whose name matches")
    ap.add_argument("--out", help="also write the table to this markdown file")
    ap.add_argument("--quiet-wait", type=float, default=30.0,
                    help="most seconds to wait for a quiet device before each run (0: none)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print each configuration's commands, run nothing")
    a = ap.parse_args()
    if a.reps < 1:
        sys.exit("--reps: at least 1")
    if a.dry_run:
        for name, flags, benches, engines in CONFIGS:
            if re.search(a.only, name):
                print(f"[{name}]")
                for e in engines:
                    print("  " + " ".join(command(e, engine_flags(name, e, flags), benches,
                                                  "DB")[0]))
        return
    if not os.access(os.environ.get("DBBENCH", ""), os.X_OK):
        sys.exit("DBBENCH: set it to a release build of RocksDB's db_bench (an executable file)")
    has_leveldb = os.access(os.environ.get("LEVELDB", ""), os.X_OK)
    if not has_leveldb:
        print("LEVELDB not set to an executable: the LevelDB cells run lsmlab and RocksDB only",
              file=sys.stderr)
    work = tempfile.mkdtemp(prefix="perf-suite-")
    probe = subprocess.run(binary("fjall") + ["--benchmarks=fillseq", "--num=1",
                                              f"--db={os.path.join(work, 'probe')}"],
                           capture_output=True, text=True)
    has_fjall = probe.returncode == 0
    if not has_fjall:
        print(f"{lsmlab_path()} cannot run fjall, its column is n/a: {probe.stderr.strip()}",
              file=sys.stderr)
    rows = []
    waits = []
    try:
        for name, flags, benches, engines in CONFIGS:
            if not re.search(a.only, name):
                continue
            engines = [e for e in engines if (e != "leveldb" or has_leveldb)
                       and (e != "fjall" or has_fjall)]
            got = {e: [] for e in engines}
            for rep in range(a.reps):
                order = engines[rep % len(engines):] + engines[:rep % len(engines)]
                for e in order:
                    w = quiet_wait(work, a.quiet_wait)
                    if w:
                        waits.append(w)
                    res, rss, disk = run(e, engine_flags(name, e, flags), benches, work)
                    got[e].append((res, rss, disk))
                    line = "  ".join(f"{b} {fmt(v[0])}" for b, v in res.items())
                    waited = f"waited {w[0]:.1f} s{'' if w[1] else ' (bound)'}" if w else "no wait"
                    print(f"[{name}] rep {rep + 1} {e:8} {waited}  rss {rss:6.0f} MiB "
                          f"disk {disk:7.1f} MiB  {line}", file=sys.stderr, flush=True)
            for b in benches.split(","):
                med = {}
                for e in engines:
                    ops = [r[0][b][0] for r in got[e] if b in r[0]]
                    p99 = [r[0][b][1] for r in got[e] if b in r[0]]
                    med[e] = (median(ops), median(p99), median([r[1] for r in got[e]]),
                              median([r[2] for r in got[e]]))
                rows.append((name, b, med))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    head = ("| configuration | benchmark | lsmlab ops/s | RocksDB ops/s | fjall ops/s "
            "| LevelDB ops/s | lsmlab / RocksDB | lsmlab / fjall | lsmlab / LevelDB "
            "| P99 µs lsmlab · RocksDB · fjall "
            "| peak RSS MiB lsmlab · RocksDB · fjall · LevelDB "
            "| size on disk MiB lsmlab · RocksDB · fjall · LevelDB |")
    lines = [head, "|" + "---|" * 12]
    for name, b, med in rows:
        l, r, j, v = (med.get(e, (None, None, None, None))
                      for e in ("lsmlab", "rocksdb", "fjall", "leveldb"))
        ratio = lambda x, y: f"**{x / y:.2f}**" if x and y else "n/a"
        lines.append(
            f"| {name} | {b} | {fmt(l[0])} | {fmt(r[0])} | {fmt(j[0])} | {fmt(v[0])} "
            f"| {ratio(l[0], r[0])} | {ratio(l[0], j[0])} | {ratio(l[0], v[0])} "
            f"| {fmt(l[1], 1)} · {fmt(r[1], 1)} · {fmt(j[1], 1)} "
            f"| {fmt(l[2])} · {fmt(r[2])} · {fmt(j[2])} · {fmt(v[2])} "
            f"| {fmt(l[3], 1)} · {fmt(r[3], 1)} · {fmt(j[3], 1)} · {fmt(v[3], 1)} |")
    table = "\n".join(lines)
    if waits:
        ws = sorted(w for w, _ in waits)
        wait_line = (f"before each of {len(ws)} runs, a wait for a quiet device: median "
                     f"{ws[len(ws) // 2]:.1f} s, longest {ws[-1]:.1f} s, "
                     f"{sum(1 for _, q in waits if not q)} at the {a.quiet_wait:g} s bound")
    else:
        wait_line = "no wait for a quiet device between runs"
    print(f"medians of {a.reps} alternated runs each; {wait_line}\n\n{table}")
    if a.out:
        with open(a.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()

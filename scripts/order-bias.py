#!/usr/bin/env python3
"""The order bias of a study's pairs: for each repetition's two runs of two cells on one engine,
the first run's figure over the second's, per throughput metric. On a plan whose two cells are
one setting (experiments/null-key-seed.toml), a mean away from 1 is what running first or
second does to a run, and the spread is the noise a claim's ratio carries.

  scripts/order-bias.py DIR [METRIC_SUFFIX]     (default suffix: .ops_per_sec)

Prints, per engine and metric: pairs, first/second (geometric mean), its 95 % interval, the SD
of log(first/second) and of log(c001/c000), and the runs' waits for a quiet device."""
import csv, glob, json, math, os, statistics, sys
from collections import defaultdict


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d, suffix = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else ".ops_per_sec")
    rows = list(csv.DictReader(open(os.path.join(d, "runs.csv"))))
    runs = defaultdict(dict)  # (engine, rep, metric) -> cell -> (order, value)
    for r in rows:
        if r["metric"].endswith(suffix):
            runs[(r["engine"], r["rep"], r["metric"])][r["cell"]] = (int(r["order"]), float(r["value"]))
    by = defaultdict(lambda: ([], []))
    for (engine, _rep, metric), cells in runs.items():
        if len(cells) != 2:
            continue
        (c0, (o0, v0)), (c1, (o1, v1)) = sorted(cells.items())
        if v0 <= 0 or v1 <= 0:
            continue
        first, second = (v0, v1) if o0 < o1 else (v1, v0)
        by[(engine, metric)][0].append(math.log(first / second))
        by[(engine, metric)][1].append(math.log(v1 / v0))
    print(f"{'engine':8} {'metric':28} {'pairs':>5} {'first/second':>12} {'95% interval':>17} {'SD order':>8} {'SD c1/c0':>8}")
    for (engine, metric), (order, cell) in sorted(by.items()):
        n = len(order)
        m = statistics.fmean(order)
        sd = statistics.stdev(order) if n > 1 else float("nan")
        half = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
        print(f"{engine:8} {metric:28} {n:5} {math.exp(m):12.3f} [{math.exp(m - half):6.3f}, {math.exp(m + half):6.3f}] "
              f"{sd:8.3f} {statistics.stdev(cell) if n > 1 else float('nan'):8.3f}")
    waits = []
    for f in glob.glob(os.path.join(d, "runs", "*", "result.json")):
        w = json.load(open(f)).get("quiet_wait")
        if w:
            waits.append((w["waited_s"], w["quiet"]))
    if waits:
        s = sorted(w for w, _ in waits)
        print(f"quiet-device waits: {len(s)} runs, median {s[len(s) // 2]:.1f} s, longest {s[-1]:.1f} s, "
              f"{sum(1 for _, q in waits if not q)} at the bound")
    else:
        print("quiet-device waits: none recorded (no wait)")


main()

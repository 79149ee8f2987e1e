#!/usr/bin/env python3
"""The spread of a study's timing metrics, and which metric decides a timing claim soonest.

    scripts/timing-cv.py RESULTS_DIR...   # markdown on stdout, one section per directory

For each results directory (a finished `lsmlab run`):

1. **CV per metric**: each timing metric's coefficient of variation over the repetitions of a
   (cell, engine), as the median over the cells (and the range), per engine. Counted figures
   (write amplification, false positive rate, sizes, modelled device time) are left out: their
   spread is not the machine's.
2. **Per timing claim**: the spread of the paired log-ratio the claim reads (the standard
   deviation of log(a/b) over its pairs, each about its own cell's mean), for the claim's metric and for the
   other timing metrics of the same step. At an equal effect, the repetitions a decision needs
   grow with the square of that spread, so the metric with the smallest spread decides soonest.
   The other metrics measure other things (CPU per operation is not throughput), so the
   table says which is quicker to decide, not that it answers the same question.
"""

import csv
import math
import re
import statistics
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

# The last part of a metric name that makes it a time the machine measures.
TIMING = re.compile(
    r"(ops_per_sec|micros_per_op|mb_per_sec|cpu_us_per_op|cpu_s|p50_us|p99_us|wall_s|"
    r"cpu_mean_pct|compaction_time_s|compaction_cpu_s)$"
)
# Modelled or counted although named like a time: simulated latency, modelled device time.
COUNTED = re.compile(r"\.(sim|lsmlab)\.")
# The step-level alternatives a timing claim could read instead of its own metric.
ALTERNATIVES = ("ops_per_sec", "cpu_us_per_op", "p50_us", "p99_us")


def is_timing(metric):
    return bool(TIMING.search(metric)) and not COUNTED.search(metric)


def load(results):
    """Runs as {(cell, engine, rep): {metric: value}}, and each cell's axis values."""
    runs = defaultdict(dict)
    axes = {}
    with open(results / "runs.csv", newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        i_order, i_metric = header.index("order"), header.index("metric")
        # Between `order` and `metric`: the run's outside load (runs.csv schema 2), then the axes.
        not_axes = {"outside_cpu_pct", "steal_pct"}
        axis_cols = [i for i in range(i_order + 1, i_metric) if header[i] not in not_axes]
        for row in rows:
            cell, engine, rep = row[header.index("cell")], row[header.index("engine")], row[header.index("rep")]
            try:
                value = float(row[i_metric + 1])
            except ValueError:
                continue
            if math.isfinite(value):
                runs[(cell, engine, int(rep))][row[i_metric]] = value
            axes[cell] = {header[i]: row[i] for i in axis_cols}
    return runs, axes


def text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def matches(values, where):
    for k, v in (where or {}).items():
        allowed = [text(x) for x in v] if isinstance(v, list) else [text(v)]
        if values.get(k) not in allowed:
            return False
    return True


def pct(x):
    return "–" if x is None else f"{100 * x:.1f}"


def cv_table(runs, axes):
    """{metric: {engine: [cv of each cell]}} over cells with ≥ 3 repetitions."""
    by = defaultdict(list)
    for (cell, engine, _), ms in runs.items():
        for m, v in ms.items():
            if is_timing(m):
                by[(m, engine, cell)].append(v)
    out = defaultdict(lambda: defaultdict(list))
    for (m, engine, cell), vs in by.items():
        if len(vs) >= 3 and statistics.fmean(vs) > 0:
            out[m][engine].append(statistics.stdev(vs) / statistics.fmean(vs))
    return out


def pairs(claim, runs, axes, engine, metric):
    """log(a/b) of the claim's pairs for `metric` on `engine`, grouped by the pair's cell."""
    ratio = claim.get("ratio")
    if not ratio:
        return {}
    axis, a, b = ratio["axis"], text(ratio["a"]), text(ratio["b"])
    cells = [c for c, v in axes.items() if matches(v, claim.get("where"))]
    out = defaultdict(list)
    reps = {r for (_, _, r) in runs}
    for rep in reps:
        for c in cells:
            if axis == "engine":
                x, y = runs.get((c, a, rep), {}).get(metric), runs.get((c, b, rep), {}).get(metric)
            else:
                if axes[c].get(axis) != a:
                    continue
                want = dict(axes[c], **{axis: b})
                partner = next((p for p, v in axes.items() if v == want), None)
                x = runs.get((c, engine, rep), {}).get(metric)
                y = runs.get((partner, engine, rep), {}).get(metric) if partner else None
            if x and y and x > 0 and y > 0:
                out[c].append(math.log(x / y))
    return out


def within_sd(groups):
    """The spread of log-ratios about their own cell's mean (pooled over cells), and the pair
    count: a claim over several cells whose effect differs from cell to cell is not noisier
    for it."""
    n = sum(len(g) for g in groups.values())
    dof = n - sum(1 for g in groups.values() if g)
    if dof < 2:
        return None, n
    ss = sum((x - statistics.fmean(g)) ** 2 for g in groups.values() if g for x in g)
    return math.sqrt(ss / dof), n


def section(results):
    runs, axes = load(results)
    plan = tomllib.loads((results / "plan.toml").read_text())
    engines = sorted({e for (_, e, _) in runs})
    print(f"### Timing spread: {plan.get('title', results.name)}")
    print()
    print(f"`{results.name}`: {len({r for (_, _, r) in runs})} repetitions at most.")
    print()
    table = cv_table(runs, axes)
    claim_metrics = {c["metric"] for c in plan.get("claim", [])}
    # A claim's metrics, each step's own (not per operation kind: `S.read.p99_us` repeats
    # `S.p99_us` for a read step), and the process's.
    shown = sorted(m for m in table if m in claim_metrics or m in ("process.wall_s", "process.cpu_mean_pct")
                   or (m.count(".") == 1 and m.split(".")[-1] in ALTERNATIVES))
    if shown:
        print("| metric | " + " | ".join(f"{e}: CV % median (range)" for e in engines) + " |")
        print("|---|" + "---|" * len(engines))
        for m in shown:
            cells = []
            for e in engines:
                cvs = table[m].get(e)
                cells.append(
                    f"{pct(statistics.median(cvs))} ({pct(min(cvs))}–{pct(max(cvs))})" if cvs else "–"
                )
            mark = " (a claim's)" if m in claim_metrics else ""
            print(f"| `{m}`{mark} | " + " | ".join(cells) + " |")
        print()
    rows = []
    for i, c in enumerate(plan.get("claim", []), 1):
        m = c["metric"]
        if not is_timing(m) or not c.get("ratio"):
            continue
        step = m.rsplit(".", 1)[0] if "." in m else ""
        present = {k for ms in runs.values() for k in ms}
        candidates = [m] + [f"{step}.{a}" for a in ALTERNATIVES if f"{step}.{a}" != m and f"{step}.{a}" in present]
        # A benchmark of a step of several (`fillrandom` in `fillrandom+readrandom`): the CPU
        # time per operation is the step's.
        candidates += sorted(
            k for k in present
            if k.endswith(".cpu_us_per_op") and k not in candidates and step in k.rsplit(".", 1)[0].split("+")
        )
        sides = [c["ratio"]["a"], c["ratio"]["b"]] if c["ratio"]["axis"] == "engine" else None
        for e in ([f"{text(sides[0])} / {text(sides[1])}"] if sides else engines):
            spreads = []
            for cand in candidates:
                sd, n_pairs = within_sd(pairs(c, runs, axes, e, cand))
                if sd is not None:
                    spreads.append((sd, cand, n_pairs))
            if not spreads:
                continue
            own = next((s for s in spreads if s[1] == m), None)
            best = min(spreads)
            def name(cand):
                if cand.rsplit(".", 1)[0] == step:
                    return cand.split(".")[-1]
                return f"{cand.split('.')[-1]} (whole step)"
            cells = "; ".join(f"`{name(cand)}` {pct(s)} (n={n})" for s, cand, n in spreads)
            quicker = (
                "its own"
                if own and best[1] == m
                else f"`{name(best[1])}` (×{(own[0] / best[0]) ** 2:.1f} fewer repetitions)"
                if own and best[0] > 0
                else f"`{name(best[1])}`"
            )
            rows.append(f"| {i} | `{m}` | {e} | {cells} | {quicker} |")
    if rows:
        print("| claim | metric | engine | paired log-ratio SD % (pairs) per metric of the step | decides soonest |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))
        print()


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: scripts/timing-cv.py RESULTS_DIR...")
    for d in sys.argv[1:]:
        p = Path(d)
        if not (p / "runs.csv").is_file() or not (p / "plan.toml").is_file():
            sys.exit(f"{d}: not a results directory (no runs.csv or plan.toml)")
        section(p)


if __name__ == "__main__":
    main()

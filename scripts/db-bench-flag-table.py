#!/usr/bin/env python3
"""Prints the table of docs/bench.md: every flag of db_bench 7.8 and 11.x and what `lsmlab bench`
does with it, from lsmlab's own flag lists (crates/lsmlab-drivers/src/flags/table.rs, compat.rs) and
the flag names each db_bench prints with --help.

    scripts/db-bench-flag-table.py FLAGS_7_8.txt FLAGS_11_X.txt > table.md

where each FLAGS file holds one flag name per line, e.g. from
    db_bench --help 2>&1 | grep -oE '^\\s+-[a-z0-9_]+ ' | tr -d ' -' | sort -u
"""
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
flags_rs = (root / "crates/lsmlab-drivers/src/flags/table.rs").read_text()
compat_rs = (root / "crates/lsmlab-drivers/src/flags/compat.rs").read_text()

macro = flags_rs[flags_rs.index("flags! {"):flags_rs.index("/// db_bench flags lsmlab knows but does not implement yet")]
supported = re.findall(r"^    ([a-z0-9_]+): [^=]+ = ", macro, re.M)
refused_block = flags_rs[flags_rs.index("pub const REFUSED: &[&str] = &["):]
refused_block = refused_block[:refused_block.index("];")]
refused = re.findall(r'"([a-z0-9_]+)"', refused_block)
no_effect = {}
for m in re.finditer(r'name: "([a-z0-9_]+)",\s*accepted: (None|Some\(&\[(.*?)\]\)),\s*why: "(.*?)",', compat_rs, re.S):
    name, accepted, values, why = m.group(1), m.group(2), m.group(3), m.group(4)
    vals = None if accepted == "None" else [v.strip().strip('"').replace('\\"', '"') for v in values.split(",")]
    no_effect[name] = (vals, why)

v78 = set(Path(sys.argv[1]).read_text().split())
v11 = set(Path(sys.argv[2]).read_text().split())
gflags = {"flagfile", "undefok"}
names = sorted(v78 | v11 | set(supported) | set(refused) | set(no_effect) | gflags)

# What an implemented flag takes, where db_bench takes more.
VALUES = {
    "compression_type": "none, snappy (the default, as db_bench's), lz4, zstd; zlib, bzip2, xpress refused",
    "blob_compression_type": "none, snappy, lz4, zstd",
}


def what(n):
    if n in gflags:
        return "implemented (gflags)"
    if n in supported:
        values = f": {VALUES[n]}" if n in VALUES else ""
        return "implemented" + ("" if n in v78 | v11 else " (lsmlab only)") + values
    if n in no_effect:
        vals, why = no_effect[n]
        if vals is None:
            return f"accepted, no effect: {why}"
        shown = ", ".join(f"`{v}`" if v else '`""`' for v in vals)
        return f"accepted as {shown}, no effect ({why}); other values refused"
    if n in refused:
        return "refused by name (not implemented yet)"
    return "unknown to lsmlab: refused (name it in `--undefok` to skip it)"

print("| flag | 7.8 | 11.x | `lsmlab bench` |")
print("|---|---|---|---|")
for n in names:
    print(f"| `{n}` | {'✓' if n in v78 else ''} | {'✓' if n in v11 else ''} | {what(n)} |")

#!/usr/bin/env python3
"""Prints the table of a db_bench's flag defaults, one flag a line (`name<TAB>type<TAB>default`),
from what `db_bench --help` prints (gflags: `-name (help) type: T default: V`, wrapped over
lines). crates/lsmlab-drivers/tests/defaults.rs compares `lsmlab bench`'s defaults against the table
checked in as crates/lsmlab-drivers/tests/data/db_bench-<version>-defaults.tsv:

    db_bench --help 2>&1 | scripts/db-bench-defaults.py "db_bench RocksDB 11.9.0 (release)" \
        > crates/lsmlab-drivers/tests/data/db_bench-11.9.0-defaults.tsv

The first argument names the binary and version; it is written as a `#` comment line.
"""
import re
import sys

text = sys.stdin.read()
# Each flag's entry runs from its `-name (` line to the next one; gflags wraps it freely.
entries = re.split(r"\n    -(?=[A-Za-z0-9_]+ )", "\n" + text)
rows = []
for e in entries[1:]:
    name = e.split(" ", 1)[0]
    flat = " ".join(line.strip() for line in e.splitlines())
    m = re.search(r"type: (\w+) default: (.*)$", flat)
    if not m:
        continue
    typ, default = m.group(1), m.group(2).strip()
    # The default ends the entry; a string default is quoted and may hold spaces.
    if typ == "string":
        q = re.match(r'"(.*?)"(?:\s|$)', default)
        default = q.group(1) if q else default.split(" ")[0]
    else:
        default = default.split(" ")[0]
    rows.append((name, typ, default))
print(f"# {sys.argv[1] if len(sys.argv) > 1 else 'db_bench'}: name, type, default from --help")
for name, typ, default in sorted(set(rows)):
    print(f"{name}\t{typ}\t{default}")

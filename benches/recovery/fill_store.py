#!/usr/bin/env python3
"""Fill a toolcap store by running the recovery benchmark's reader ("toolcap + store")
over its tasks, and keep the store: a record of real recovery calls for `toolcap stats`.

    python3 benches/recovery/fill_store.py --toolcap PATH --dir DIR [--task ID-PART]

Each task's result goes through `toolcap process --id call_N --store DIR/store.db`, and the
reader asks it back with `toolcap search / continue / query` exactly as run.py does (the
same class), so the store's record holds what that reader asked. Prints the store's path
and, per task, the calls made. tests/stats.rs runs it and recounts `toolcap stats` from
the raw record.
"""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as bench  # noqa: E402
import tasks as taskmod  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--toolcap", required=True, help="the toolcap binary")
    ap.add_argument("--dir", required=True, help="an existing directory: the store goes to DIR/store.db")
    ap.add_argument("--task", help="only the tasks whose id contains this")
    a = ap.parse_args()
    work = Path(a.dir)
    if not work.is_dir():
        print(f"--dir {a.dir}: not a directory; pass an existing one", file=sys.stderr)
        return 2
    tc = bench.Toolcap(a.toolcap, str(work))
    done = []
    for t in taskmod.all_tasks(str(work)):
        if a.task and a.task not in t["id"]:
            continue
        r = bench.run_system(tc, bench.Material(t))
        done.append({"task": t["id"], "tool": t["tool"], "id": tc.id, "calls": r["calls"], "ok": r["ok"]})
    print(json.dumps({"store": str(work / "store.db"), "tasks": done}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

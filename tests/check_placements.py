#!/usr/bin/env python3
"""plan_graph --placements, checked from outside, on every graph given:
every value has a record; every view's root is an owner or a value the
executor supplies; the offsets of owners live at the same time never share
bytes (checked here, not trusted); with --outputs external no graph output
is in the arena; with --unknown dynamic no dynamic value is; with
--scratch every node asked for has a scratch record whose bytes no owner
live at that node shares; with --space each view is in its root's space at
its offset, and in each space no two owners (or an owner and a scratch)
live together share bytes, nor end past the space's capacity.

  check_placements.py PLAN_GRAPH WORK_DIR FILE.graph...
"""
import json
import os
import subprocess
import sys

OUTSIDE = {"graph_input", "initializer", "graph_output", "dynamic"}


def check(plan_graph, work, path, flags):
    out = os.path.join(work, os.path.basename(path) + ".json")
    run = subprocess.run([plan_graph, *flags, "--placements", out, path], capture_output=True, text=True)
    if run.returncode != 0 and "--unknown" not in flags and "no placements of a deferred plan" in run.stderr:
        return None  # sizes unknown and deferred, as asked: nothing to place
    if run.returncode != 0:
        return f"plan_graph {' '.join(flags)} {path} exited {run.returncode}: {run.stderr.strip()}"
    table = json.load(open(out))
    values = table["values"]
    names = [line.split()[1] for line in open(path) if line.startswith(("value ", "input ", "weight ", "output "))]
    by_name = {v["name"]: v for v in values}
    if len(by_name) != len(values) or not set(names) <= set(by_name):
        return f"{path}: not every value has one record"
    owners = []
    for v in values:
        root = by_name[v["root"]]
        if v["kind"] == "view" and root["kind"] not in {"owner"} | OUTSIDE:
            return f"{path}: view {v['name']} has root {root['name']} of kind {root['kind']}"
        placed = v["offset"] is not None
        if placed != (root["kind"] == "owner"):
            return f"{path}: {v['name']} ({v['kind']}) is placed {placed}, its root is {root['kind']}"
        if v["kind"] == "owner":
            owners.append((v["offset"], v["offset"] + v["bytes"], v["first"], v["last"], v["name"]))
    if "--outputs" in flags:
        outputs = [line.split()[1] for line in open(path) if line.startswith("output ")]
        if any(by_name[o]["offset"] is not None for o in outputs):
            return f"{path}: a graph output is in the arena with --outputs external"
    if "--scratch" in flags:
        asked = {int(k): int(b) for k, b in (item.split("=") for item in flags[flags.index("--scratch") + 1].split(","))}
        records = {r["node"]: r for r in table["scratch"]}
        if set(records) != set(asked) or any(records[n]["bytes"] != b for n, b in asked.items()):
            return f"{path}: scratch records {sorted(records)} differ from what was asked, {sorted(asked)}"
        for n, r in records.items():
            if r["slot"] is None or r["offset"] is None:
                return f"{path}: the scratch of node {n} has no slot or offset"
            lo, hi = r["offset"], r["offset"] + r["bytes"]
            for olo, ohi, first, last, name in owners:
                if first <= n <= last and olo < hi and lo < ohi and ohi > olo:
                    return f"{path}: the scratch of node {n} shares bytes with {name}, live there"
    if problem := overlap(path, owners):
        return problem
    if "--space" in flags:
        capacity = {}
        for k, flag in enumerate(flags):
            if flag == "--space":
                name, _, size = flags[k + 1].partition("@")[0].partition("=")
                capacity[name] = int(size[:-1]) << {"K": 10, "M": 20, "G": 30}[size[-1]] if size else None
        by_space = {name: [] for name in capacity}
        for v in values:
            root = by_name[v["root"]]
            if (v["space"], v["space_offset"]) != (root["space"], root["space_offset"]) and root["kind"] == "owner":
                return f"{path}: {v['name']} is not in its root {root['name']}'s space at its offset"
            if v["kind"] == "owner":
                by_space[v["space"]].append((v["space_offset"], v["space_offset"] + v["bytes"], v["first"], v["last"], v["name"]))
        for r in table["scratch"]:
            by_space[r["space"]].append((r["space_offset"], r["space_offset"] + r["bytes"], r["node"], r["node"],
                                         f"the scratch of node {r['node']}"))
        for name, placed in by_space.items():
            if capacity[name] is not None and any(hi > capacity[name] for _, hi, _, _, _ in placed):
                return f"{path}: space {name} is used past its capacity {capacity[name]}"
            if problem := overlap(path, placed):
                return problem
    return None


def overlap(path, placed):
    """Any two of (lo, hi, first, last, name) live together share no bytes."""
    placed = sorted(placed)
    for i, (lo, hi, first, last, name) in enumerate(placed):
        for lo2, hi2, first2, last2, name2 in placed[i + 1:]:
            if lo2 >= hi:
                break
            if hi2 > lo2 and hi > lo and first <= last2 and first2 <= last:
                return f"{path}: {name} and {name2} are live together and share bytes"
    return None


def main():
    plan_graph, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    failures = 0
    runs = 0
    for path in files:
        for flags in ([], ["--outputs", "external"], ["--unknown", "dynamic"],
                      ["--outputs", "external", "--unknown", "dynamic", "--align", "1"],
                      ["--scratch", "SCRATCH"], ["--space", "device=1M@256", "--space", "host", "--scratch", "SCRATCH"]):
            if "SCRATCH" in flags:  # nodes 0, 2, 5 and 40 where the graph has them
                nodes = sum(1 for line in open(path) if line.startswith("node "))
                asked = [f"{n}={b}" for n, b in ((0, 1000), (2, 77), (5, 300000), (40, 64)) if n < nodes]
                flags = flags[:-1] + [",".join(asked)]
            runs += 1
            if problem := check(plan_graph, work, path, flags):
                print(problem)
                failures += 1
    print(f"{runs - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

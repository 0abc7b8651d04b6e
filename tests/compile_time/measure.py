#!/usr/bin/env python3
"""Compile time of translation units that plan, beside the standard headers
they include (issue: header-only without the wait).

For each translation unit in this folder it prints seconds and peak memory
at -O0 and -O2, median of --runs compilations, next to a baseline: a file
that includes exactly the standard headers the unit reaches (its own and
those of every library header it pulls in) and defines an empty main. The
ratio is what the library's own code costs on top of the standard library.

  tests/compile_time/measure.py [--compiler g++] [--runs 3] [--check]

--check exits 1 unless every goal holds: the slot unit at most 2x its
baseline, the arena unit at most 3x, each under 150 MB, the types unit at
most 1.5x.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.normpath(os.path.join(HERE, "..", "..", "include"))
UNITS = [  # (file, what it does, ratio goal)
    ("types_tu.cpp", "names the plan types only", 1.5),
    ("slot_tu.cpp", "plans slots and validates", 2.0),
    ("arena_tu.cpp", "plans slots and an arena (every strategy) and validates both", 3.0),
]
MEMORY_GOAL_MB = 150


def std_headers(path, seen=None):
    """The <...> headers reached from `path` through quoted and library includes."""
    seen = set() if seen is None else seen
    found = []
    if path in seen:
        return found
    seen.add(path)
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            name = m.group(2)
            if m.group(1) == '"':
                found += std_headers(os.path.normpath(os.path.join(os.path.dirname(path), name)), seen)
            elif name.startswith("onnx_runtime_memory/"):
                found += std_headers(os.path.join(INCLUDE, name), seen)
            elif "/" not in name:
                found.append(name)
    return found


def compile_once(compiler, source, level):
    cmd = ["/usr/bin/time", "-f", "%e %M", compiler, "-std=c++20", level, "-I" + INCLUDE, "-c", source, "-o", os.devnull]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"compiling {source} failed:\n{out.stderr}")
    seconds, kb = out.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kb) / 1024.0


def measure(compiler, source, level, runs):
    results = [compile_once(compiler, source, level) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compiler", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"compiler: {args.compiler}; median of {args.runs} runs; load average at start {load}")
    print(f"{'translation unit':<16} {'level':<5} {'baseline s':>10} {'unit s':>8} {'ratio':>6} {'goal':>5} {'unit MB':>8}")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, what, goal in UNITS:
            source = os.path.join(HERE, name)
            headers = sorted(set(std_headers(source)))
            baseline = os.path.join(tmp, "baseline_" + name)
            with open(baseline, "w") as f:
                f.writelines(f"#include <{h}>\n" for h in headers)
                f.write("int main() {}\n")
            for level in ("-O0", "-O2"):
                base_s, _ = measure(args.compiler, baseline, level, args.runs)
                unit_s, unit_mb = measure(args.compiler, source, level, args.runs)
                ratio = unit_s / base_s
                ok = ratio <= goal and unit_mb <= MEMORY_GOAL_MB
                if not ok:
                    failed.append(f"{name} {level}")
                print(f"{name:<16} {level:<5} {base_s:>10.2f} {unit_s:>8.2f} {ratio:>6.2f} {goal:>5.1f} {unit_mb:>8.0f}"
                      f"{'' if ok else '  over the goal'}")
            print(f"  {name}: {what}; {len(headers)} standard headers: {' '.join(headers)}")
    if failed:
        print("over the goals: " + ", ".join(failed))
        return 1 if args.check else 0
    print("every goal holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compile time of translation units that plan, beside the standard headers
they include (issue: compile time, decided).

For each translation unit in this folder it prints seconds and peak memory
at -O0 and -O2, median of --runs compilations, next to a baseline: a file
that includes exactly the standard headers the unit reaches in that mode
(its own and those of every library header it pulls in) and defines an
empty main. The
ratio is what the library's own code costs on top of the standard library.
Both modes: header-only (the default) and compiled (the units built with
ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION, which leaves only declarations of
the compiled core; its own unit, src.hpp, is timed too).

  tests/compile_time/measure.py [--compiler g++] [--runs 3] [--mode both|header-only|compiled] [--check]

--check exits 1 unless every goal holds: header-only, the types unit at
most 1.5x its baseline and the slot unit 3x; compiled, the slot unit 2x
and the arena and executor units 2.5x, the core under 30 s; every unit under 150 MB.
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
UNITS = [  # (file, what it does, ratio goal header-only, ratio goal compiled; None: no goal)
    ("types_tu.cpp", "names the plan types only", 1.5, 1.5),
    ("slot_tu.cpp", "plans slots and validates", 3.0, 2.0),
    ("arena_tu.cpp", "plans slots and an arena (every strategy) and validates both", None, 2.5),
    ("executor_tu.cpp", "the umbrella header: a memory-aware order, a PlannedModel per request, validated", None, 2.5),
]
SEPARATE = "-DONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION"
CORE_GOAL_S = 30.0
MEMORY_GOAL_MB = 150


def std_headers(path, compiled=False, seen=None):
    """The <...> headers reached from `path` through quoted and library
    includes; with `compiled`, not those a header includes only when the core
    is not compiled apart (its definers, behind
    #if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION))."""
    seen = set() if seen is None else seen
    found = []
    if path in seen:
        return found
    seen.add(path)
    depth = 0  # how deep inside a skipped #if block, 0 outside
    with open(path, encoding="utf-8") as f:
        for line in f:
            directive = re.match(r"\s*#\s*(\w+)(.*)", line)
            if directive and depth > 0:
                if directive.group(1).startswith("if"):
                    depth += 1
                elif directive.group(1) == "endif":
                    depth -= 1
                elif directive.group(1) in ("else", "elif") and depth == 1:
                    depth = 0  # the compiled core's branch
                continue
            if depth > 0:
                continue
            if compiled and directive and directive.group(1) == "if" and \
                    re.fullmatch(r"\s*!\s*defined\s*\(?\s*ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION\s*\)?\s*",
                                 directive.group(2).split("//")[0]):
                depth = 1
                continue
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            name = m.group(2)
            if m.group(1) == '"':
                found += std_headers(os.path.normpath(os.path.join(os.path.dirname(path), name)), compiled, seen)
            elif name.startswith("onnx_runtime_memory/"):
                found += std_headers(os.path.join(INCLUDE, name), compiled, seen)
            elif "/" not in name:
                found.append(name)
    return found


def compile_once(compiler, source, level, extra=()):
    cmd = ["/usr/bin/time", "-f", "%e %M", compiler, "-std=c++20", level, *extra, "-I" + INCLUDE, "-c", source,
           "-o", os.devnull]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"compiling {source} failed:\n{out.stderr}")
    seconds, kb = out.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kb) / 1024.0


def measure(compiler, source, level, runs, extra=()):
    results = [compile_once(compiler, source, level, extra) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compiler", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mode", choices=("both", "header-only", "compiled"), default="both")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    modes = ("header-only", "compiled") if args.mode == "both" else (args.mode,)
    print(f"compiler: {args.compiler}; median of {args.runs} runs; load average at start {load}")
    print(f"{'mode':<11} {'translation unit':<16} {'level':<5} {'baseline s':>10} {'unit s':>8} {'ratio':>6} "
          f"{'goal':>5} {'unit MB':>8}")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, what, *goals in UNITS:
            source = os.path.join(HERE, name)
            headers, baselines = {}, {}  # by mode: a unit built with the core apart reaches fewer headers
            for mode in modes:
                headers[mode] = sorted(set(std_headers(source, mode == "compiled")))
                baselines[mode] = os.path.join(tmp, f"baseline_{mode}_{name}")
                with open(baselines[mode], "w") as f:
                    f.writelines(f"#include <{h}>\n" for h in headers[mode])
                    f.write("int main() {}\n")
            for level in ("-O0", "-O2"):
                for mode in modes:
                    base_s, _ = measure(args.compiler, baselines[mode], level, args.runs)
                    goal = goals[0] if mode == "header-only" else goals[1]
                    extra = (SEPARATE,) if mode == "compiled" else ()
                    unit_s, unit_mb = measure(args.compiler, source, level, args.runs, extra)
                    ratio = unit_s / base_s
                    ok = (goal is None or ratio <= goal) and unit_mb <= MEMORY_GOAL_MB
                    if not ok:
                        failed.append(f"{mode} {name} {level}")
                    print(f"{mode:<11} {name:<16} {level:<5} {base_s:>10.2f} {unit_s:>8.2f} {ratio:>6.2f} "
                          f"{'-' if goal is None else f'{goal:.1f}':>5} {unit_mb:>8.0f}{'' if ok else '  over the goal'}")
            for mode in modes:
                print(f"  {name} ({mode}): {what}; {len(headers[mode])} standard headers: {' '.join(headers[mode])}")
        if "compiled" in modes:
            core = os.path.join(tmp, "core.cpp")
            with open(core, "w") as f:
                f.write("#include <onnx_runtime_memory/src.hpp>\n")
            for level in ("-O0", "-O2"):
                core_s, core_mb = measure(args.compiler, core, level, args.runs, (SEPARATE,))
                ok = core_s <= CORE_GOAL_S
                if not ok:
                    failed.append(f"the compiled core {level}")
                print(f"{'compiled':<11} {'core (src.hpp)':<16} {level:<5} {'':>10} {core_s:>8.2f} {'':>6} "
                      f"{'':>5} {core_mb:>8.0f}{'' if ok else f'  over {CORE_GOAL_S:.0f} s'}")
    if failed:
        print("over the goals: " + ", ".join(failed))
        return 1 if args.check else 0
    print("every goal holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

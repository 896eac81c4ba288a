#!/usr/bin/env python3
"""Benchmark results: `--collect DIR NAME…` gathers one run's figures into DIR/results.json (each with
its command and the machine's core count); `A.json B.json` prints two runs side by side."""
import json
import os
import pathlib
import sys


def collect(folder, names):
    folder = pathlib.Path(folder)
    results = {"cores": os.cpu_count(), "runs": {}}
    for name in names:
        results["runs"][name] = {
            "command": (folder / f"{name}.command").read_text().strip(),
            "figures": json.loads((folder / f"{name}.json").read_text()),
        }
    (folder / "results.json").write_text(json.dumps(results, indent=2, sort_keys=True))


def headline(run):
    """The figures worth comparing, by name."""
    figures = run["figures"]
    if isinstance(figures, list):  # micro benchmarks
        return {f["name"]: (f["perSecond"], "/s") for f in figures}
    if "latencyMs" in figures:  # a load run
        out = {"per second": (figures["perSecond"], "/s"), "p99": (figures["latencyMs"]["p99"], "ms"),
               "errors": (sum(figures["errors"].values()), "")}
        if figures.get("server"):
            out["server RSS"] = (figures["server"]["rssMiB"], "MiB")
            out["server CPU"] = (figures["server"]["cpuPercent"], "%")
        return out
    return {k: (v, "") for k, v in figures.items()}


def compare(a_path, b_path):
    a, b = json.loads(pathlib.Path(a_path).read_text()), json.loads(pathlib.Path(b_path).read_text())
    print(f"cores: {a.get('cores')} vs {b.get('cores')}")
    for run in sorted(set(a["runs"]) | set(b["runs"])):
        print(f"\n{run}")
        left = headline(a["runs"][run]) if run in a["runs"] else {}
        right = headline(b["runs"][run]) if run in b["runs"] else {}
        for key in sorted(set(left) | set(right)):
            x, y = left.get(key, (None, "")), right.get(key, (None, ""))
            change = f"{(y[0] - x[0]) / x[0] * 100:+.1f} %" if x[0] and y[0] is not None else ""
            fmt = lambda v: "—" if v[0] is None else f"{v[0]:,.1f} {v[1]}"
            print(f"  {key:<56} {fmt(x):>18} {fmt(y):>18} {change:>9}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--collect":
        collect(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3:
        compare(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)

#!/usr/bin/env python3
"""Benchmark results: `--collect DIR NAME…` gathers one run's figures into DIR/results.json (each with
its command and the machine's core count), adds the targets below as measured / target / met, and
prints them; `--targets RESULTS.json [--markdown]` prints the targets of a collected run again (as a
Markdown table for docs/performance.md); `A.json B.json` prints two runs side by side."""
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
    results["targets"] = measure_targets(results)
    (folder / "results.json").write_text(json.dumps(results, indent=2, sort_keys=True))
    print_targets(results["targets"])
    print_sharing(results)


# The same load on SQLite and on one and two instances sharing a PostgreSQL: no target (two
# instances on two cores cannot be faster than one), the cost of sharing written down.
SHARING = ["logins-1000-at-200", "logins-1000-at-200-postgres-1", "logins-1000-at-200-postgres-2"]


def print_sharing(results):
    runs = [(name, results["runs"][name]["figures"]) for name in SHARING if name in results["runs"]]
    if not runs:
        return
    print(f"\n{'1,000 phones at 200 logins/s':<34} {'logins/s':>9} {'p99 ms':>8} {'servers ms CPU':>15} {'PostgreSQL ms CPU':>18}"
          f" {'transactions':>13} {'statements':>11} {'lost races':>11}")
    for name, f in runs:
        cpu = f["cpuMsPerLogin"]
        postgres = f"{cpu['postgres']:.2f}" if cpu.get("postgres") is not None else "—"
        server = f"{cpu['server']:.2f}" if cpu.get("server") is not None else "—"
        # a login's share of what the servers' stores asked of PostgreSQL (their /metrics)
        work = f.get("databasePerLogin")
        counts = [f"{work[key]:.1f}" if work else "—" for key in ("transactions", "statements")]
        races = f"{work['lostRaces']:.3f}" if work else "—"
        print(f"{name:<34} {f['perSecond']:>9.1f} {f['latencyMs']['p99']:>8.1f} {server:>15} {postgres:>18}"
              f" {counts[0]:>13} {counts[1]:>11} {races:>11}")


# The performance targets, each number once: (name, run, how its figure is read from that run, unit,
# "<=" or ">=", target). A figure that returns None, or a run that is missing, is "not measured".
def micro(prefix):
    return lambda figures: next((f["perSecond"] for f in figures if f["name"].startswith(prefix)), None)


# A run that did not set up what its targets assume: its figures are shown, but not judged.
CONDITIONS = {
    "sockets-10000": lambda f: (f"{sum(f['setupFailures'].values()):,} of {f['phones']:,} phones not set up"
                                if f["setupFailures"] else None),
    "start": lambda f: f"only {f['phones']:,} phones in the database" if f["phones"] < 10_000 else None,
}


TARGETS = [
    ("server CPU per out-of-band login, 1,000 phones as fast as possible", "logins-1000-max",
     lambda f: f["cpuMsPerLogin"]["server"], "ms", "<=", 1.5),
    ("logins/s, 1,000 phones at a fixed 1,000/s", "logins-1000-at-1000", lambda f: f["perSecond"], "/s", ">=", 1000),
    ("login p99, 1,000 phones at a fixed 1,000/s", "logins-1000-at-1000", lambda f: f["latencyMs"]["p99"], "ms", "<=", 50),
    ("errors, 1,000 phones at a fixed 1,000/s", "logins-1000-at-1000",
     lambda f: sum(f["errors"].values()) + sum(f["setupFailures"].values()), "", "<=", 0),
    ("logins/s, server pinned to one core, 1,000 phones at a fixed 500/s", "logins-1000-at-500-one-core",
     lambda f: f["perSecond"], "/s", ">=", 500),
    ("otpLogin at the backend, SQLite file, 64 at once", "micro", micro("otpLogin at the backend (SQLite file, sync FULL, 64 at once"),
     "/s", ">=", 5000),
    ("decode QR text", "micro", micro("decode QR text"), "/s", ">=", 50_000),
    ("decode deep link", "micro", micro("decode deep link"), "/s", ">=", 50_000),
    ("decode FCM push JSON", "micro", micro("decode FCM push JSON"), "/s", ">=", 50_000),
    ("server RSS with 10,000 open phone WebSockets", "sockets-10000", lambda f: f["server"]["rssMiB"], "MiB", "<=", 512),
    ("FlowUpdate delivery p99 with 10,000 open", "sockets-10000", lambda f: f["latencyMs"]["p99"], "ms", "<=", 20),
    ("start to ready with 10,000 phones in the database", "start", lambda f: f["milliseconds"], "ms", "<=", 1000),
]

# Beside a target, the figures that say who the bottleneck was.
NOTES = {
    "logins-1000-max": lambda f: f"load generator {f['cpuMsPerLogin']['generator']:.2f} ms CPU/login",
    "logins-1000-at-1000": lambda f: (f"server {f['cpuMsPerLogin']['server'] or 0:.2f} ms, "
                                      f"load generator {f['cpuMsPerLogin']['generator'] or 0:.2f} ms CPU/login"),
    "logins-1000-at-500-one-core": lambda f: (f"p99 {f['latencyMs']['p99']:,.0f} ms, server {f['cpuMsPerLogin']['server'] or 0:.2f} ms, "
                                              f"load generator {f['cpuMsPerLogin']['generator'] or 0:.2f} ms CPU/login"),
    "micro": lambda f: f"one at a time {micro('otpLogin at the backend (SQLite file, sync FULL, one at a time')(f):,.0f}/s (a sync each)",
    "start": lambda f: f"{f['phones']:,} phones in the database" if f["phones"] >= 10_000 else None,
}


def measure_targets(results):
    targets = []
    noted = set()
    for name, run, read, unit, op, target in TARGETS:
        figures = results["runs"].get(run, {}).get("figures")
        try:
            value = read(figures) if figures is not None else None
        except (KeyError, TypeError):
            value = None
        try:
            note = NOTES[run](figures) if figures is not None and run in NOTES and run not in noted else ""
        except (KeyError, TypeError):
            note = ""
        noted.add(run)
        unmet = CONDITIONS[run](figures) if figures is not None and run in CONDITIONS else None
        met = None if value is None or unmet else (value <= target if op == "<=" else value >= target)
        targets.append({"name": name, "run": run, "measured": value, "unit": unit, "target": f"{op} {target:,} {unit}".strip(),
                        "met": met, "note": "; ".join(n for n in (unmet, note) if n)})
    return targets


def print_targets(targets, markdown=False):
    def shown(t):
        if t["measured"] is None:
            return "—", "not measured"
        value = t["measured"]
        text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}".rstrip("0").rstrip(".")
        return f"{text} {t['unit']}".strip(), "not measured" if t["met"] is None else "met" if t["met"] else "NOT MET"

    if markdown:
        print("| target | measured | target value | met | beside it |\n|---|---|---|---|---|")
        for t in targets:
            value, met = shown(t)
            print(f"| {t['name']} | {value} | {t['target'].replace('<=', '≤').replace('>=', '≥')} | {met} | {t['note']} |")
        return
    print(f"{'target':<68} {'measured':>14} {'target':>14}  met")
    for t in targets:
        value, met = shown(t)
        print(f"{t['name']:<68} {value:>14} {t['target'].replace('<=', '≤').replace('>=', '≥'):>14}  {met}"
              + (f"  ({t['note']})" if t["note"] else ""))


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
        for side, ms in (figures.get("cpuMsPerLogin") or {}).items():
            if ms is not None:
                out[f"{side} CPU per login"] = (ms, "ms")
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
    elif len(sys.argv) >= 3 and sys.argv[1] == "--targets":
        results = json.loads(pathlib.Path(sys.argv[2]).read_text())
        print_targets(measure_targets(results), markdown="--markdown" in sys.argv[3:])
    elif len(sys.argv) == 3:
        compare(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)

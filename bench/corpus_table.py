#!/usr/bin/env python3
"""Prints the corpus table of scripts/bench-corpus.sh (issue 17) from the
JSON rows of bench/corpus_row.py: one row per trace with every figure, then
issue 17's targets, met or missed, per trace.

    corpus_table.py ROWS.jsonl [--check NAME,NAME,...]

--check: exit status 1, naming the trace and the column, when a row is
missing, failed, or lacks a figure (the quick ctest bench_corpus_quick uses
it so the recipes cannot rot unnoticed).
"""
import json
import sys

MB = 1e6  # file sizes in MB (10^6); RSS in MiB as the kernel reports it ("MB" in the docs, as elsewhere)

# (column, function of row and reference query ms -> text); a KeyError or
# TypeError means the figure is missing.
COLUMNS = [
    ("trace", lambda r, ref: r["name"]),
    ("steps", lambda r, ref: "%.1f M" % (r["steps"] / 1e6) if r["steps"] >= 1e5 else "%d" % r["steps"]),
    ("trace MB", lambda r, ref: "%.1f" % (r["trace_bytes"] / MB)),
    ("build 1 core M steps/s (CPU s)",
     lambda r, ref: "%.1f (%.1f)" % (r["build_1cpu"]["msteps_per_s"], r["build_1cpu"]["cpu_s"])),
    ("build 2 cores M steps/s (CPU s)",
     lambda r, ref: "%.1f (%.1f)" % (r["build_2cpu"]["msteps_per_s"], r["build_2cpu"]["cpu_s"])),
    ("2 / 1 core", lambda r, ref: "%.2f" % (r["build_2cpu"]["msteps_per_s"] / r["build_1cpu"]["msteps_per_s"])),
    ("build peak RSS MB (1 / 2 cores)",
     lambda r, ref: "%.0f / %.0f" % (r["build_1cpu"]["peak_rss_mb"], r["build_2cpu"]["peak_rss_mb"])),
    ("index MB (× trace)", lambda r, ref: "%.1f (%.2f)" % (r["index_bytes"] / MB, r["index_bytes"] / r["trace_bytes"])),
    ("query ms (range; CPU)", lambda r, ref: "%.0f (%.0f–%.0f; %.0f)" % (
        r["query"]["ms"]["median"], r["query"]["ms"]["min"], r["query"]["ms"]["max"], r["query"]["cpu_ms"])),
    ("query RSS MB", lambda r, ref: "%.0f" % r["query"]["peak_rss_mb"]),
    ("query ÷ 1k-step", lambda r, ref: "%.1f" % (r["query"]["ms"]["median"] / ref)),
    ("serve ready ms (range; CPU)", lambda r, ref: "%.0f (%.0f–%.0f; %.0f)" % (
        r["serve"]["ms"]["median"], r["serve"]["ms"]["min"], r["serve"]["ms"]["max"], r["serve"]["cpu_ms"])),
    ("seek p50 / p99 µs (CPU)", lambda r, ref: "%.0f / %.0f (%.0f)" % (
        r["probe"]["seek_p50_us"], r["probe"]["seek_p99_us"], r["probe"]["seek_cpu_us"])),
    ("seek RSS MB", lambda r, ref: "%.0f" % r["probe"]["seek_peak_rss_mb"]),
    ("rev-cont ms (CPU; steps back)", lambda r, ref: "%.2f (%.2f; %s)" % (
        r["probe"]["rc_ms_median"], r["probe"]["rc_cpu_ms"], steps_text(r["probe"]["rc_steps_back"]))),
]

# Issue 17's targets: (name, met? by the wall clock, met? by CPU time or
# None). On a shared machine the wall clock counts waiting for a core; the
# CPU figure says whether the work itself fits (for seeks: the mean CPU per
# seek against the p50 target, an approximation).
TARGETS = [
    ("query ≤ 20 ms", lambda r, ref: r["query"]["ms"]["median"] <= 20, lambda r, ref: r["query"]["cpu_ms"] <= 20),
    ("query ≤ 3 × 1k-step", lambda r, ref: r["query"]["ms"]["median"] <= 3 * ref, None),
    ("serve ≤ 100 ms", lambda r, ref: r["serve"]["ms"]["median"] <= 100, lambda r, ref: r["serve"]["cpu_ms"] <= 100),
    ("seek p50 ≤ 100 µs", lambda r, ref: r["probe"]["seek_p50_us"] <= 100,
     lambda r, ref: r["probe"]["seek_cpu_us"] <= 100),
    ("seek p99 ≤ 1 ms", lambda r, ref: r["probe"]["seek_p99_us"] <= 1000, None),
    ("rev-cont ≤ 10 ms", lambda r, ref: r["probe"]["rc_ms_median"] <= 10, lambda r, ref: r["probe"]["rc_cpu_ms"] <= 10),
    ("seek RSS ≤ 256 MB", lambda r, ref: r["probe"]["seek_peak_rss_mb"] <= 256, None),
    ("index ≤ 1.0 × trace", lambda r, ref: r["index_bytes"] <= r["trace_bytes"], None),
    ("build ≥ 20 M/s 1 core", lambda r, ref: r["build_1cpu"]["msteps_per_s"] >= 20,
     lambda r, ref: r["build_1cpu"]["msteps_per_cpu_s"] >= 20),
    ("2 cores ≥ 1.7 ×", lambda r, ref: r["build_2cpu"]["msteps_per_s"] >= 1.7 * r["build_1cpu"]["msteps_per_s"], None),
    ("build RSS ≤ 1 GB",
     lambda r, ref: max(r["build_1cpu"]["peak_rss_mb"], r["build_2cpu"]["peak_rss_mb"]) <= 1024, None),
]


def steps_text(n):
    return "%.1f M" % (n / 1e6) if n >= 1e5 else "%d" % n


def cell(fn, row, ref):
    """The column's text, or None when the figure is missing."""
    if "error" in row:
        return None
    try:
        return fn(row, ref)
    except (KeyError, TypeError, ZeroDivisionError):
        return None


def print_speeds(speeds):
    """bench/cpu_speeds.py's rows: each CPU's speed and the two-core ceiling."""
    for r in speeds:
        h = r.get("handoff") or {}
        handoff = ("; hand-off between CPUs %.2f x one thread" % h["handoff_ratio"]) if "handoff_ratio" in h else ""
        print("CPU speeds %s (fastest = 1.00): %s; two-core ceiling %.2f x%s" % (
            r.get("when", ""), ", ".join("cpu%s %.2f" % kv for kv in sorted(r["cpu_speeds"].items())),
            r["ceiling_2cpu"], handoff))


def print_tables(rows, ref_ms, ref_row):
    if ref_row:
        print("reference: `ttd query --at %d --json` on a %d-step trace: %.1f ms (%.1f–%.1f), CPU %.1f ms, RSS %.0f MB"
              % (ref_row["query"]["at"], ref_row["steps"], ref_ms, ref_row["query"]["ms"]["min"],
                 ref_row["query"]["ms"]["max"], ref_row["query"]["cpu_ms"], ref_row["query"]["peak_rss_mb"]))
        if "startup" in ref_row:
            s = ref_row["startup"]
            print("start-up floor: `ttd --version`: %.1f ms (%.1f–%.1f), CPU %.1f ms"
                  % (s["ms"]["median"], s["ms"]["min"], s["ms"]["max"], s["cpu_ms"]))
    print()
    print("| " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        if "error" in r:
            print("| %s | **failed**: %s |" % (r["name"], r["error"].replace("|", "/").replace("\n", " ")))
            continue
        print("| " + " | ".join(cell(fn, r, ref_ms) or "—" for _, fn in COLUMNS) + " |")
    print()
    print("| target | " + " | ".join(r["name"] for r in rows) + " |")
    print("|" + "---|" * (len(rows) + 1))
    for name, fn, by_cpu in TARGETS:
        marks = []
        for r in rows:
            met = cell(fn, r, ref_ms)
            cpu_met = cell(by_cpu, r, ref_ms) if by_cpu and met is False else None
            marks.append("—" if met is None else "met" if met else
                         "**missed** (met by CPU)" if cpu_met else "**missed**")
        print("| %s | %s |" % (name, " | ".join(marks)))


def check(rows, ref_row, ref_ms, expected, speeds):
    problems = []
    if len(speeds) != 2 or any(not r.get("cpu_speeds") for r in speeds):
        problems.append("CPU speeds: want a row before and one after the traces, got %d" % len(speeds))
    names = [r["name"] for r in rows]
    for name in expected:
        if name not in names:
            problems.append("%s: no row" % name)
    if ref_row is None or ref_ms is None:
        problems.append("the 1,000-step reference query: no row")
    for r in rows:
        if "error" in r:
            problems.append("%s: failed: %s" % (r["name"], r["error"]))
            continue
        for column, fn in COLUMNS:
            if cell(fn, r, ref_ms) is None:
                problems.append("%s: column '%s' is empty" % (r["name"], column))
        if r.get("probe", {}).get("rc_steps_back", 0) <= 0:
            problems.append("%s: reverse-continue travelled no steps" % r["name"])
    for p in problems:
        print("corpus_table: " + p, file=sys.stderr)
    return not problems


def main():
    args = sys.argv[1:]
    expected = []
    if len(args) == 3 and args[1] == "--check":
        expected = [n for n in args[2].split(",") if n]
    elif len(args) != 1:
        sys.exit(__doc__)
    with open(args[0]) as f:
        all_rows = [json.loads(line) for line in f if line.strip()]
    speeds = [r for r in all_rows if "cpu_speeds" in r]
    all_rows = [r for r in all_rows if "cpu_speeds" not in r]
    ref_row = next((r for r in all_rows if r.get("reference") and "error" not in r), None)
    rows = [r for r in all_rows if not r.get("reference")]
    ref_ms = ref_row["query"]["ms"]["median"] if ref_row else None
    print_speeds(speeds)
    print_tables(rows, ref_ms, ref_row)
    if len(args) == 3 and not check(rows, ref_row, ref_ms, expected, speeds):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

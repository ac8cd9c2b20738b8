#!/usr/bin/env python3
"""doctable.py - docs/performance.md's rows of the real recordings (issue 35),
written from what tests/bench/bench.py measured, never by hand.

    tests/bench/doctable.py [--stdout] [RESULTS]
    tests/bench/doctable.py --check [--doc FILE]

Reads RESULTS (default tests/bench/results.jsonl, which bench.py appends
to), takes for each recording (make -j2 -g, make -j2 dwarf, git log -p,
go build) the latest full run of bench.py's real section, and replaces
the lines between "<!-- bench real: begin -->" and "<!-- bench real:
end -->" of docs/performance.md with: the table of medians (wall and CPU
seconds, peak RSS) and spreads, the run each recording's rows come from
(commit, date, rounds, load average), and issue 35's targets as these
rows meet them.  --stdout prints the block instead.

The records the block is written from are kept in tests/bench/real.jsonl
(committed, as the table is): --check writes the block again from them
and exits 1 when docs/performance.md's (or FILE's) differs, so that the
table stays what the recorded runs measured (make test runs it).
"""
import json
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "performance.md")
BEGIN, END = "<!-- bench real: begin -->", "<!-- bench real: end -->"
COMMANDS = [("top", "perf report --stdio --no-children"),
            ("top --children", "perf report --stdio --children"),
            ("folded", "perf script report stackcollapse"),
            ("script", "perf script")]
KEPT = os.path.join(ROOT, "tests", "bench", "real.jsonl")
ORDER = ["make -j2 -g", "make -j2 dwarf", "git log -p x8 -g", "go build -a -g"]


def recording(workload):
    """The recording's name without its sample count ("make -j2 -g 68k")."""
    return re.sub(r" \d+k$", "", workload)


def latest_runs(records):
    """{recording: (workload, {measure: record}, end record)}: per recording,
    the records of its latest run (the hour before its closing "load
    average" record)."""
    ends = {}
    for r in records:
        if r.get("measure") == "load average before, after" and not r.get("quick"):
            name = recording(r["workload"])
            if name not in ends or r["time"] > ends[name]["time"]:
                ends[name] = r
    runs = {}
    for name, end in ends.items():
        got = {}
        for r in records:
            if r.get("workload") == end["workload"] and end["time"] - 3600 < r["time"] <= end["time"]:
                if r["measure"] not in got or r["time"] > got[r["measure"]]["time"]:
                    got[r["measure"]] = r
        runs[name] = (end["workload"], got, end)
    return runs


def find(got, what, suffix):
    for m, r in got.items():
        if m.startswith(what + " vs perf ") and m.endswith(suffix):
            return r
    return None


def rows_of(got):
    """[(command, perf command, wall, cpu, rss, runs record)] present in got."""
    out = []
    for what, theirs in COMMANDS:
        wall, cpu = find(got, what, "(wall s)"), find(got, what, "(CPU s)")
        rss, runs = got.get(what + " peak RSS vs perf"), got.get(what + " wall runs")
        if wall and cpu and rss and runs:
            out.append((what, theirs, wall, cpu, rss, runs))
    return out


def mib(kib):
    return "%.0f" % (kib / 1024)


def block(runs):
    lines = ["| recording | command | luaprof wall (CPU) | perf wall (CPU) | ratio wall (CPU) "
             "| spread of wall times luaprof / perf | peak RSS luaprof / perf |",
             "|---|---|---|---|---|---|---|"]
    notes = []
    names = [n for n in ORDER if n in runs]     # recordings of older benches left out
    for name in names:
        workload, got, end = runs[name]
        rows = rows_of(got)
        if not rows:
            continue
        reps = len(rows[0][5]["luaprof"])
        for what, theirs, wall, cpu, rss, r in rows:
            spread = ("+%.0f%% / +%.0f%%" % (100 * r["spread_luaprof"], 100 * r["spread_perf"])
                      if reps > 1 else "- (1 run)")
            lines.append("| %s | `%s` vs `%s` | %.3f s (%.3f) | %.3f s (%.3f) | %.1fx (%.1fx) | %s | %s / %s MiB (1/%.1f) |"
                         % (workload, what, theirs, wall["luaprof"], cpu["luaprof"], wall["perf"],
                            cpu["perf"], wall["perf"] / wall["luaprof"], cpu["perf"] / max(cpu["luaprof"], 1e-9),
                            spread, mib(rss["luaprof"]), mib(rss["perf"]), rss["perf"] / rss["luaprof"]))
        notes.append("- %s: commit %s, %s, %s, load average %.1f before its rows and %.1f after"
                     % (workload, end.get("commit", "not recorded"),
                        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(end["time"])),
                        "%d rounds (the pair's order random each round)" % reps if reps > 1 else "1 round",
                        end["luaprof"], end["perf"]))
    out = lines + ["", "The runs these rows come from:", ""] + notes
    out += ["", "Issue 35's targets on the `make -j2 -g` recording (wall and CPU ratios; memory "
            "against perf report's peak on the same recording):", "",
            "| target | measured | met |", "|---|---|---|"]
    if "make -j2 -g" in runs:
        got = runs["make -j2 -g"][1]
        rows = {what: (wall, cpu, rss) for what, _, wall, cpu, rss, _ in rows_of(got)}

        def speed(what, goal, against):
            if what not in rows:
                return
            wall, cpu, _ = rows[what]
            rw, rc = wall["perf"] / wall["luaprof"], cpu["perf"] / max(cpu["luaprof"], 1e-9)
            out.append("| `%s` at least %dx faster than `%s` | %.1fx wall, %.1fx CPU | %s |"
                       % (what, goal, against, rw, rc,
                          "yes" if min(rw, rc) >= goal else "in CPU only" if rc >= goal else
                          "in wall time only" if rw >= goal else "no"))
        speed("top", 5, "perf report --no-children")
        speed("top --children", 5, "perf report --children")
        speed("folded", 20, "perf script report stackcollapse")
        for what, against in (("top", "top"), ("top --children", "top --children"),
                              ("folded", "top"), ("script", "top")):
            if what in rows and against in rows:
                ours, perf = rows[what][2]["luaprof"], rows[against][2]["perf"]
                out.append("| `%s`'s peak memory at most a fifth of `%s`'s | %s / %s MiB (1/%.1f) | %s |"
                           % (what, dict(COMMANDS)[against], mib(ours), mib(perf), perf / ours,
                              "yes" if ours * 5 <= perf else "no"))
    return "\n".join(out)


def read_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def split_doc(doc_path):
    """(text before the block, the block, text after it) of doc_path."""
    with open(doc_path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit("doctable.py: %s has no %s ... %s lines to put the rows between" % (doc_path, BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    inside, tail = rest.split(END, 1)
    return head, inside, tail


def kept_records(runs):
    """The records the block is written from, in a stable order."""
    out = []
    for name in sorted(runs):
        _workload, got, end = runs[name]
        out += [got[m] for m in sorted(got)]
        if end not in out:
            out.append(end)
    return out


def main():
    argv = sys.argv[1:]
    doc_path = DOC
    if "--doc" in argv:
        doc_path = argv[argv.index("--doc") + 1]
        del argv[argv.index("--doc"):argv.index("--doc") + 2]
    if "--check" in argv:
        text = block(latest_runs(read_records(KEPT)))
        _head, inside, _tail = split_doc(doc_path)
        if inside.strip("\n") != text:
            sys.exit("doctable.py: the table in %s is not what %s measured: "
                     "run tests/bench/doctable.py after bench.py --only real" % (doc_path, KEPT))
        return
    args = [a for a in argv if not a.startswith("--")]
    path = args[0] if args else os.path.join(ROOT, "tests", "bench", "results.jsonl")
    runs = latest_runs(read_records(path))
    text = block(runs)
    if "--stdout" in argv:
        print(text)
        return
    head, _inside, tail = split_doc(doc_path)
    with open(KEPT + ".tmp", "w") as f:
        for r in kept_records(runs):
            f.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(KEPT + ".tmp", KEPT)
    with open(doc_path, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


if __name__ == "__main__":
    main()

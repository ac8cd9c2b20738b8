#!/usr/bin/env python3
"""doctable.py - docs/performance.md's tables of bench results, written
from what tests/bench/bench.py measured, never by hand.

    tests/bench/doctable.py [--stdout] [RESULTS]
    tests/bench/doctable.py --check [--doc FILE]

Two blocks of docs/performance.md, each between its marker lines, are
written from RESULTS (default tests/bench/results.jsonl, which bench.py
appends to) and the records kept from the last time:

  summary  "<!-- bench summary: begin -->" ... "end -->": the table under
           "## make bench", one row per line of SUMMARY below (which bench
           records each row shows: workload and measure), each from the
           latest full (not --quick) record of its measures, and under it
           the runs they come from (section, commit, date, load average).
  real     "<!-- bench real: begin -->" ... "end -->" (issue 35): for each
           recording (make -j2 -g, make -j2 dwarf, git log -p, go build)
           the latest full run of bench.py's real section: the table of
           medians (wall and CPU seconds, peak RSS) and spreads, the run
           each recording's rows come from (commit, date, rounds, load
           average), and issue 35's targets as these rows meet them.

--stdout prints the blocks instead.  The records each block is written
from are kept in tests/bench/summary.jsonl and tests/bench/real.jsonl
(committed, as the tables are): --check writes the blocks again from
them alone and exits 1 when docs/performance.md's (or FILE's) differ, so
that the tables stay what the recorded runs measured (make test runs it).
"""
import json
import os
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "performance.md")
COMMANDS = [("top", "perf report --stdio --no-children"),
            ("top --children", "perf report --stdio --children"),
            ("folded", "perf script report stackcollapse"),
            ("folded (FlameGraph)", "perf script | stackcollapse-perf.pl"),
            ("script", "perf script")]
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


def shown(what):
    """The command of a row: "folded (FlameGraph)" is folded against
    another perf command."""
    return what.split(" (")[0]


def cell(command):
    """command as a table cell's code: a pipe escaped (GitHub's tables split
    cells at a "|" even inside backticks)."""
    return command.replace("|", "\\|")


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
                         % (workload, shown(what), cell(theirs), wall["luaprof"], cpu["luaprof"], wall["perf"],
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
                       % (shown(what), goal, cell(against), rw, rc,
                          "yes" if min(rw, rc) >= goal else "in CPU only" if rc >= goal else
                          "in wall time only" if rw >= goal else "no"))
        speed("top", 5, "perf report --no-children")
        speed("top --children", 5, "perf report --children")
        speed("folded", 20, "perf script report stackcollapse")
        speed("folded (FlameGraph)", 20, "perf script | stackcollapse-perf.pl")
        for what, against in (("top", "top"), ("top --children", "top --children"),
                              ("folded", "top"), ("script", "top")):
            if what in rows and against in rows:
                ours, perf = rows[what][2]["luaprof"], rows[against][2]["perf"]
                out.append("| `%s`'s peak memory at most a fifth of `%s`'s | %s / %s MiB (1/%.1f) | %s |"
                           % (what, dict(COMMANDS)[against], mib(ours), mib(perf), perf / ours,
                              "yes" if ours * 5 <= perf else "no"))
    out += every_recording(runs)
    return "\n".join(out)


def every_recording(runs):
    """The memory targets on every recording of the table, each against
    perf report's peak on the same recording, as the issue asks."""
    out = ["", "The memory targets on every recording (each command's peak against "
           "`perf report --stdio`'s on the same recording, `--children` for `top --children`):", "",
           "| command | " + " | ".join(n for n in ORDER if n in runs) + " | met |",
           "|---|" + "---|" * (sum(n in runs for n in ORDER) + 1)]
    against = {"top": "top", "top --children": "top --children", "folded": "top", "script": "top"}
    for what, vs in against.items():
        cells, ok = [], True
        for name in (n for n in ORDER if n in runs):
            rows = {w: rss for w, _, _, _, rss, _ in rows_of(runs[name][1])}
            if what not in rows or vs not in rows:
                cells.append("-")
                continue
            ours, perf = rows[what]["luaprof"], rows[vs]["perf"]
            cells.append("1/%.1f" % (perf / ours))
            ok = ok and ours * 5 <= perf
        out.append("| `%s` | %s | %s |" % (what, " | ".join(cells), "yes" if ok else "no"))
    return out


# ---- the summary table under "## make bench" ------------------------------

DEEP = r"deep16 [\d.]+M fp"             # replay's file: "deep16 1.8M fp"


def per_s(x):
    """A rate of samples per second: 4.6 M/s, 0.58 M/s, 64 k/s."""
    return "%.1f M/s" % (x / 1e6) if x >= 1e6 else "%.2f M/s" % (x / 1e6) if x >= 1e5 else "%.0f k/s" % (x / 1e3)


def secs(x):
    """Seconds as 1.1 s, 175 ms, 8.1 ms."""
    return "%.1f s" % x if x >= 1 else "%.0f ms" % (x * 1e3) if x >= 0.01 else "%.1f ms" % (x * 1e3)


def times(x):
    """A ratio: 72x, 7.0x."""
    return "%.0fx" % x if x >= 10 else "%.1fx" % x


def size_of(workload):
    """The sample count in replay's file's name: "1.8" of "deep16 1.8M fp"."""
    return re.search(r"([\d.]+)M", workload).group(1)


def row_deep(r):
    return (["deep16: %s M samples, 2 threads, 16-deep stacks, `-g` (frame pointers)" % size_of(r["py"]["workload"]),
             "replay, script counting `s.sym` vs `perf script -s` with the same count in Python (samples per CPU-second)",
             per_s(r["py"]["luaprof"]), per_s(r["py"]["perf"]), times(r["py"]["ratio"])])


def row_scaling(r):
    sc = r["scaling"]
    sizes = re.findall(r"([\d.]+)M", sc["workload"])
    return (["deep16 at %s and %s M samples" % (", ".join(sizes[:-1]), sizes[-1]),
             "`s.sym` replay: peak RSS; CPU per sample (total, and without the first 20000 samples' start-up)",
             "%.1f MiB (spread %.1f%%); %s ns total, %s ns steady (spread %.1f%%)"
             % (statistics.median(sc["rss_kib"]) / 1024, 100 * sc["rss_spread"],
                "/".join("%.0f" % x for x in sc["ns_per_sample_total"]),
                "/".join("%.0f" % x for x in sc["ns_per_sample_steady"]), 100 * sc["steady_spread"]), "", ""])


# Each row of the summary: {name: (workload pattern, measure)}, the bench
# records it shows (the latest full one of each), the section of bench.py
# that measures them, and its cells from them: [workload, measure,
# luaprof, perf, ratio].
SUMMARY = [
    ({"py": (DEEP, "s.sym vs perf script -s Python (samp/CPU-s)")}, "replay", row_deep),
    ({"r": (DEEP, "s.sym vs perf report --no-children (samp/CPU-s)")}, "replay",
     lambda r: ["same file", "`s.sym` script vs `perf report --stdio --no-children`",
                per_s(r["r"]["luaprof"]), per_s(r["r"]["perf"]), times(r["r"]["ratio"])]),
    ({"r": (DEEP, "s.folded vs perf stackcollapse (samp/CPU-s)")}, "replay",
     lambda r: ["same file", "`s.folded` script vs `perf script report stackcollapse`",
                per_s(r["r"]["luaprof"]), per_s(r["r"]["perf"]), times(r["r"]["ratio"])]),
    ({"sym": (DEEP, "s.sym peak RSS vs perf report"), "folded": (DEEP, "s.folded peak RSS vs perf report")},
     "replay",
     lambda r: ["same file", "peak RSS, `s.sym` / `s.folded` script vs perf report",
                "%s / %s MiB" % (mib(r["sym"]["luaprof"]), mib(r["folded"]["luaprof"])),
                "%s MiB" % mib(r["sym"]["perf"]),
                "%s / %s" % (times(r["sym"]["ratio"]), times(r["folded"]["ratio"]))]),
    ({"scaling": (r"deep16 [\d.]+M(/[\d.]+M)+", "s.sym scaling")}, "replay", row_scaling),
    ({"r": (r"twothreads -F999 -g", "slowdown vs alone (wall)")}, "live",
     lambda r: ["twothreads, `-F 999 -g`",
                "wall-time slowdown of the workload: `luaprof run count.lua` vs `perf record`",
                "%.2fx" % r["r"]["luaprof"], "%.2fx" % r["r"]["perf"], "%.2fx" % r["r"]["ratio"]]),
    ({"run": (r"deep16 -F\d+ -g", "lost samples: luaprof run vs perf record (sum)"),
      "rec": (r"deep16 -F\d+ -g", "lost samples: luaprof record vs perf record (sum)")}, "keepup",
     lambda r: ["deep16, `-F %s -g`, 5 runs of 3 s" % re.search(r"-F(\d+)", r["run"]["workload"]).group(1),
                "samples lost: `luaprof run count.lua` and `luaprof record` vs `perf record`",
                "%d and %d" % (r["run"]["luaprof"], r["rec"]["luaprof"]),
                "%d" % r["run"]["perf"], ""]),      # the same perf record runs for both
    ({"r": (r"2x spin -F20000 -g -p", "samples per CPU-second (counting script)")}, "live",
     lambda r: ["2 busy processes, `-F 20000 -g -p`", "samples per CPU-second into a counting script vs `perf record`",
                per_s(r["r"]["luaprof"]), per_s(r["r"]["perf"]), times(r["r"]["ratio"])]),
    ({"r": (r"true", "start-up to exit (wall s)")}, "startup",
     lambda r: ["`true`", "start-up to exit: `luaprof run count.lua -- true` vs `perf record -o /dev/null -- true` (wall)",
                secs(r["r"]["luaprof"]), secs(r["r"]["perf"]), times(r["r"]["ratio"])]),
    ({"cached": (r"syscalls 20k samples", "replay start-up, cached kallsyms (wall s)"),
      "proc": (r"syscalls 20k samples", "replay start-up, /proc/kallsyms (wall s)")}, "startup",
     lambda r: ["syscalls: a `luaprof record` of 20,000+ samples, kernel ones among them",
                "replay start-up: a script reading `s.sym` that stops at the 20,000th sample vs `perf report` of "
                "the file (wall): kallsyms from the copy in perf's cache / from /proc/kallsyms",
                "%s / %s" % (secs(r["cached"]["luaprof"]), secs(r["proc"]["luaprof"])),
                secs(r["cached"]["perf"]), "%s / %s" % (times(r["cached"]["ratio"]), times(r["proc"]["ratio"]))]),
    ({k: (r"syscalls 200 -F999", "record, build-id cache %s (CPU s)" % k) for k in ("off", "warm", "cold")},
     "startup",
     lambda r: ["syscalls 200, `-F 999`", "`luaprof record` vs `perf record`, CPU time, build-id cache off / warm / cold",
                " / ".join("%.0f" % (r[k]["luaprof"] * 1e3) for k in ("off", "warm", "cold")) + " ms",
                " / ".join("%.0f" % (r[k]["perf"] * 1e3) for k in ("off", "warm", "cold")) + " ms",
                " / ".join(times(r[k]["ratio"]) for k in ("off", "warm", "cold"))]),
    ({"r": (r"200k functions", "first sample named vs perf report (wall s)")}, "symbols",
     lambda r: ["a program of 200,000 functions", "first sample named (replay) vs `perf report` loading the same "
                "symbols (wall)", secs(r["r"]["luaprof"]), secs(r["r"]["perf"]), times(r["r"]["ratio"])]),
]


def latest(records, workload, measure):
    """The latest full (not --quick) record of measure whose workload is
    all of the pattern workload, or None."""
    best = None
    for r in records:
        if (r.get("measure") == measure and not r.get("quick") and re.fullmatch(workload, r.get("workload", ""))
                and (best is None or r["time"] > best["time"])):
            best = r
    return best


def summary_rows(records):
    """[(cells, {name: record}, section)] of SUMMARY's rows, from records;
    exits naming the first measure of a row that records lack, and the
    section of bench.py that measures it."""
    out = []
    for want, section, cells in SUMMARY:
        got = {k: latest(records, w, m) for k, (w, m) in want.items()}
        missing = [m for k, (w, m) in want.items() if got[k] is None]
        if missing:
            sys.exit("doctable.py: no full record of %r for the summary table: run tests/bench/bench.py --only %s"
                     % (missing[0], section))
        out.append((cells(got), got, section))
    return out


def when(t):
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


def summary_block(rows):
    lines = ["| workload | measure | luaprof | perf | ratio |", "|---|---|---|---|---|"]
    runs = {}            # a run of a section: its rows, its records' commit, time, load
    for i, (cells, got, section) in enumerate(rows, 1):
        lines.append("|" + "|".join(" %s " % c if c else " " for c in cells) + "|")
        for r in got.values():
            key = (r.get("section", section), r.get("commit"), tuple(r.get("load") or ()))
            run = runs.setdefault(key, {"rows": set(), "time": r["time"]})
            run["rows"].add(i)
            run["time"] = max(run["time"], r["time"])
    notes = []
    for (section, commit, load), run in sorted(runs.items(), key=lambda kv: min(kv[1]["rows"])):
        rows_ = sorted(run["rows"])
        spans, start = [], rows_[0]
        for a, b in zip(rows_, rows_[1:] + [None]):
            if b != a + 1:
                spans.append("%d" % start if start == a else "%d-%d" % (start, a))
                start = b
        notes.append("- row%s %s: `tests/bench/bench.py --only %s`, commit %s, %s, load average %s"
                     % ("s" if len(rows_) > 1 else "", ", ".join(spans), section, commit or "not recorded",
                        when(run["time"]), "%.1f before the section and %.1f after" % load if load
                        else "not recorded"))
    return "\n".join(lines + ["", "The runs these rows come from, each ratio of the two tools alternating "
                              "in one run (the load average is of 1 minute; the machine has 2 vCPUs, "
                              "and the bench keeps one or two of them busy, so a load well above 2 "
                              "means others' builds and tests ran beside it):", ""] + notes)


def summary_kept(rows):
    """The records the summary is written from, in a stable order."""
    out = []
    for _cells, got, _section in rows:
        out += [r for _k, r in sorted(got.items()) if r not in out]
    return out


# ---- the two blocks and the page ------------------------------------------

BENCH = os.path.join(ROOT, "tests", "bench")
# name: (begin, end, kept records, [records] -> (block text, records it used))
BLOCKS = [
    ("summary", "<!-- bench summary: begin -->", "<!-- bench summary: end -->", os.path.join(BENCH, "summary.jsonl"),
     lambda recs: (lambda rows: (summary_block(rows), summary_kept(rows)))(summary_rows(recs))),
    ("real", "<!-- bench real: begin -->", "<!-- bench real: end -->", os.path.join(BENCH, "real.jsonl"),
     lambda recs: (lambda runs: (block(runs), kept_records(runs)))(latest_runs(recs))),
]


def read_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def split_doc(doc, doc_path, begin, end):
    """(text before the block, the block, text after it) of doc."""
    if begin not in doc or end not in doc:
        sys.exit("doctable.py: %s has no %s ... %s lines to put the rows between" % (doc_path, begin, end))
    head, rest = doc.split(begin, 1)
    inside, tail = rest.split(end, 1)
    return head, inside, tail


def kept_records(runs):
    """The records the real block is written from, in a stable order."""
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
    with open(doc_path) as f:
        doc = f.read()
    if "--check" in argv:
        bad = []
        for name, begin, end, kept, make in BLOCKS:
            text, _used = make(read_records(kept))
            if split_doc(doc, doc_path, begin, end)[1].strip("\n") != text:
                bad.append("doctable.py: the %s table in %s is not what %s measured"
                           % (name, doc_path, os.path.relpath(kept, ROOT)))
        if bad:
            sys.exit("\n".join(bad) + "\nrun tests/bench/doctable.py after tests/bench/bench.py")
        return
    args = [a for a in argv if not a.startswith("--")]
    path = args[0] if args else os.path.join(BENCH, "results.jsonl")
    # RESULTS, and the records kept from the last time: a block whose
    # measures RESULTS lacks (its sections not run again) stays as it was
    records, seen = [], set()
    for r in [r for _n, _b, _e, kept, _m in BLOCKS if os.path.exists(kept) for r in read_records(kept)] + \
            read_records(path):
        key = json.dumps(r, sort_keys=True)
        if key not in seen:
            seen.add(key)
            records.append(r)
    made = [(begin, end, kept) + make(records) for _n, begin, end, kept, make in BLOCKS]
    if "--stdout" in argv:
        print("\n\n".join(text for _b, _e, _k, text, _u in made))
        return
    for begin, end, kept, text, used in made:
        head, _inside, tail = split_doc(doc, doc_path, begin, end)
        doc = head + begin + "\n" + text + "\n" + end + tail
        with open(kept + ".tmp", "w") as f:
            for r in used:
                f.write(json.dumps(r, sort_keys=True) + "\n")
        os.replace(kept + ".tmp", kept)
    with open(doc_path, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main()

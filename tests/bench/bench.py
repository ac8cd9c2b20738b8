#!/usr/bin/env python3
"""bench.py - luaprof against perf, measured side by side in one run.

Every figure is a ratio of the two tools measured in the same run (they
alternate, median of several runs), or a count that does not depend on speed.
Writes a table to stdout and JSON lines to tests/bench/results.jsonl.

    tests/bench/bench.py [--quick]
"""
import json, os, resource, statistics, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
LUAPROF = os.path.join(ROOT, "luaprof")
PROGS = os.path.join(BUILD, "progs")
QUICK = "--quick" in sys.argv
REPS = 3 if QUICK else 5
TMP = tempfile.mkdtemp(prefix="luaprof-bench.")
RESULTS = []
RUNSTAT = os.path.join(TMP, "runstat")
subprocess.run(["cc", "-O2", "-o", RUNSTAT, os.path.join(ROOT, "tests", "bench", "runstat.c")], check=True)


def run(argv, stdin=None):
    """Runs argv; returns (wall s, cpu s of it and its waited children, its
    peak RSS in KiB, stdout).  Measured by runstat, a tiny C parent: Linux
    carries a process's peak RSS across execve, so a child of this (large)
    Python process would report Python's peak as its own."""
    out_path, stat_path = os.path.join(TMP, "stdout"), os.path.join(TMP, "stat")
    t0 = time.perf_counter()
    with open(out_path, "wb") as out, open(os.path.join(TMP, "stderr"), "wb") as err:
        subprocess.run([RUNSTAT, stat_path] + argv, stdout=out, stderr=err, stdin=stdin, check=True)
    wall = time.perf_counter() - t0
    code, cpu, rss = open(stat_path).read().split()
    if code != "0":
        sys.exit("bench: %s failed (%s): %s" % (" ".join(argv), code,
                                                 open(os.path.join(TMP, "stderr")).read()[-500:]))
    with open(out_path, errors="replace") as f:
        head = f.read(4096)     # the scripts print their counts first; never load perf's text
    return wall, float(cpu), int(rss), head


def report(workload, what, ours, theirs, unit, better="lower"):
    ratio = (theirs / ours if better == "lower" else ours / theirs) if ours and theirs else float("nan")
    RESULTS.append(dict(workload=workload, measure=what, luaprof=ours, perf=theirs, unit=unit,
                        ratio=ratio, better=better, time=time.time()))
    print("%-22s %-44s %12.4g %12.4g %-8s %6.2fx" % (workload, what, ours, theirs, unit, ratio))


def script(name, body):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(body)
    return path


COUNT = script("count.lua", "local n = 0\nfunction on_sample(s) n = n + 1 end\n"
                            "function on_end(i) print('samples ' .. i.samples .. ' lost ' .. i.lost) end\n")


def perf_samples(path):
    """SAMPLE records in a perf.data, from perf report --stats."""
    out = subprocess.run(["perf", "report", "-i", path, "--stats"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode()
    for line in out.splitlines():
        if line.strip().startswith("SAMPLE events:"):
            return int(line.split(":")[1].split()[0])
    sys.exit("bench: no SAMPLE count in perf report --stats of " + path)


def live_overhead():
    """Wall time of a CPU-bound two-thread workload alone, under perf record
    and under luaprof run count.lua, same frequency and -g."""
    wl = [os.path.join(PROGS, "twothreads"), "601"]
    alone, perf, ours = [], [], []
    for _ in range(REPS):
        alone.append(run(wl)[0])
        perf.append(run(["perf", "record", "-q", "-F", "999", "-g", "-o", os.path.join(TMP, "p.data"), "--"] + wl)[0])
        ours.append(run([LUAPROF, "run", COUNT, "-F", "999", "-g", "--"] + wl)[0])
    a, p, o = statistics.median(alone), statistics.median(perf), statistics.median(ours)
    report("twothreads -F999 -g", "slowdown vs alone (wall)", o / a, p / a, "x")


def live_throughput():
    """CPU luaprof spends per sample when attached (-p) at a high rate, so its
    rusage holds only its own work; compared with perf record's, same setup."""
    wl = subprocess.Popen([os.path.join(PROGS, "spin"), "100000"])
    wl2 = subprocess.Popen([os.path.join(PROGS, "spin"), "100000"])
    try:
        time.sleep(0.2)
        pids = "%d,%d" % (wl.pid, wl2.pid)
        dur = "2" if QUICK else "4"
        ours_rate, perf_rate = [], []
        for _ in range(REPS):
            _, cpu, _, out = run([LUAPROF, "run", COUNT, "-F", "20000", "-g", "-p", pids, "--duration", dur])
            n = int(out.split()[1])
            ours_rate.append(n / max(cpu, 1e-6))
            _, pcpu, _, _ = run(["perf", "record", "-q", "-F", "20000", "-g", "-p", pids,
                                 "-o", os.path.join(TMP, "t.data"), "--", "sleep", dur])
            pn = perf_samples(os.path.join(TMP, "t.data"))
            perf_rate.append(pn / max(pcpu, 1e-6))
        report("2x spin -F20000 -g -p", "samples per CPU-second (counting script)",
               statistics.median(ours_rate), statistics.median(perf_rate), "samp/s", better="higher")
    finally:
        wl.kill(); wl2.kill(); wl.wait(); wl2.wait()


SYM = script("sym.lua", "local c = {}\nfunction on_sample(s) local k = s.sym or '?' c[k] = (c[k] or 0) + 1 end\n"
                        "function on_end(i) print('samples ' .. i.samples) end\n")
FOLDED = script("folded.lua", "local c = {}\nfunction on_sample(s) local k = s.folded c[k] = (c[k] or 0) + 1 end\n"
                              "function on_end(i) print('samples ' .. i.samples) end\n")


def symbolized_throughput():
    """Scripts reading s.sym / s.folded of every sample, attached (-p) to two
    busy processes at a high rate, so luaprof's rusage is its own work alone;
    against perf report / perf script over a perf record of the same
    processes: samples per CPU-second, and peak RSS."""
    procs = [subprocess.Popen([os.path.join(PROGS, "leafs"), "100000"]) for _ in range(2)]
    try:
        time.sleep(0.2)
        pids = ",".join(str(p.pid) for p in procs)
        dur = "2" if QUICK else "4"
        data = os.path.join(TMP, "sym.data")
        run(["perf", "record", "-q", "-F", "20000", "-g", "-p", pids, "-o", data, "--", "sleep", dur])
        n = perf_samples(data)
        rows = [("s.sym counted", SYM, ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym"]),
                ("s.folded counted", FOLDED, ["perf", "script", "-i", data])]
        for what, lua, perf_cmd in rows:
            ours, theirs, rss, prss = [], [], [], []
            for _ in range(REPS):
                _, cpu, mem, out = run([LUAPROF, "run", lua, "-F", "20000", "-g", "-p", pids, "--duration", dur])
                ours.append(int(out.split()[1]) / max(cpu, 1e-6))
                rss.append(mem)
                _, pcpu, pmem, _ = run(perf_cmd)
                theirs.append(n / max(pcpu, 1e-6))
                prss.append(pmem)
            report("2x leafs -F20000 -g -p", what + " vs perf " + perf_cmd[1] + " (samp/CPU-s)",
                   statistics.median(ours), statistics.median(theirs), "samp/s", better="higher")
            report("2x leafs -F20000 -g -p", what + ": peak RSS vs perf " + perf_cmd[1],
                   statistics.median(rss), statistics.median(prss), "KiB")
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main():
    subprocess.run(["make", "-s", "-C", ROOT, "luaprof", "progs"], check=True)
    print("%-22s %-44s %12s %12s %-8s %7s" % ("workload", "measure", "luaprof", "perf", "unit", "ratio"))
    live_overhead()
    live_throughput()
    symbolized_throughput()
    with open(os.path.join(ROOT, "tests", "bench", "results.jsonl"), "a") as f:
        for r in RESULTS:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()

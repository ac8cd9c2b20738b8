#!/usr/bin/env python3
"""bench.py - luaprof against perf, measured side by side in one run.

Every figure is a ratio of the two tools measured in the same run (they
alternate, median of several runs), or a count that does not depend on speed.
Writes a table to stdout and JSON lines to tests/bench/results.jsonl, from
which tests/bench/doctable.py writes docs/performance.md's tables.

    tests/bench/bench.py [--quick] [--no-dwarf] [--only NAME[,NAME...]]

NAME is one of: live, replay, replaywall (replay's first row alone), keepup, startup, symbols, tracepoints, dwarf, flame, map,
guards, probes, stat, offcpu, script, switches, drain, oneliners, real, strings.
"""
import atexit, json, os, random, resource, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
LUAPROF = os.environ.get("LUAPROF", os.path.join(ROOT, "luaprof"))
PROGS = os.path.join(BUILD, "progs")
QUICK = "--quick" in sys.argv
NO_DWARF = "--no-dwarf" in sys.argv    # real: without the DWARF make (perf reports: 10 min each)
ONLY = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
REPS = 3 if QUICK else 5
TMP = tempfile.mkdtemp(prefix="luaprof-bench.")
atexit.register(shutil.rmtree, TMP, True)
RESULTS = []
RUNSTAT = os.path.join(TMP, "runstat")
subprocess.run(["cc", "-O2", "-o", RUNSTAT, os.path.join(ROOT, "tests", "bench", "runstat.c")], check=True)


def run(argv, stdin=None, home=None, out_path=None):
    """Runs argv (with HOME=home when given); returns (wall s, cpu s of it
    and its waited children, its peak RSS in KiB, stdout).  Measured by
    runstat, a tiny C parent: Linux carries a process's peak RSS across
    execve, so a child of this (large) Python process would report Python's
    peak as its own.  out_path: where stdout goes (default a file whose
    head is returned)."""
    out_path, stat_path = out_path or os.path.join(TMP, "stdout"), os.path.join(TMP, "stat")
    env = dict(os.environ, HOME=home) if home else None
    t0 = time.perf_counter()
    with open(out_path, "wb") as out, open(os.path.join(TMP, "stderr"), "wb") as err:
        subprocess.run([RUNSTAT, stat_path] + argv, stdout=out, stderr=err, stdin=stdin, check=True,
                       env=env)
    wall = time.perf_counter() - t0
    code, cpu, rss = open(stat_path).read().split()
    if code != "0":
        sys.exit("bench: %s failed (%s): %s" % (" ".join(argv), code,
                                                 open(os.path.join(TMP, "stderr")).read()[-500:]))
    with open(out_path, errors="replace") as f:
        head = f.read(4096)     # the scripts print their counts first; never load perf's text
    return wall, float(cpu), int(rss), head


def report(workload, what, ours, theirs, unit, better="lower"):
    ratio = (theirs / ours if better == "lower" else ours / theirs) if ours and theirs else None
    RESULTS.append(dict(workload=workload, measure=what, luaprof=ours, perf=theirs, unit=unit,
                        ratio=ratio, better=better, time=time.time()))
    print("%-22s %-44s %12.4g %12.4g %-8s %7s" % (workload, what, ours, theirs, unit,
                                                   "%6.2fx" % ratio if ratio else "-"))


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
    wl = [os.path.join(PROGS, "twothreads"), "201" if QUICK else "601"]
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
        dur = "1" if QUICK else "4"
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
        dur = "1" if QUICK else "4"
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


# ---- replay: the same recordings read by luaprof and by perf -------------

DEEP = os.path.join(PROGS, "deep16")
SYM_PY = script("sym.py", "counts = {}\n"
                          "def process_event(param_dict):\n"
                          "    k = param_dict.get('symbol', '?')\n"
                          "    counts[k] = counts.get(k, 0) + 1\n"
                          "def trace_end():\n"
                          "    print('samples %d' % sum(counts.values()))\n")
# The same s.sym count, stopping after arg[1] samples: its CPU time is the
# run's fixed cost (start-up, symbol tables, kallsyms), which the steady
# per-sample time leaves out.
SYM_FIRST = script("symfirst.lua", "local luaprof = require('luaprof')\nlocal c, n, lim = {}, 0, tonumber(arg[1])\n"
                                   "function on_sample(s) local k = s.sym or '?' c[k] = (c[k] or 0) + 1\n"
                                   "  n = n + 1 if n >= lim then luaprof.exit() end end\n")


def record_deep(target):
    """A perf record -F 20000 -g (frame pointers, cpu-clock) of deep16's two
    busy threads, run long enough for about target samples; the VM's timer
    decides the real rate, so a short run calibrates it first.  Returns
    (path, samples)."""
    cal = os.path.join(TMP, "cal.data")
    subprocess.run(["perf", "record", "-q", "-F", "20000", "-g", "-o", cal, "--", DEEP, "400"],
                   check=True, stderr=subprocess.DEVNULL)
    per_ms = perf_samples(cal) / 800.0                  # two threads x 400 ms
    ms = int(target / per_ms / 2) + 1
    path = os.path.join(TMP, "deep-%d.data" % target)
    subprocess.run(["perf", "record", "-q", "-F", "20000", "-g", "-o", path, "--", DEEP, str(ms)],
                   check=True, stderr=subprocess.DEVNULL)
    return path, perf_samples(path)


def rate(argv, n):
    """(samples per CPU-second, peak RSS KiB) of one run over n samples."""
    _, cpu, rss, _ = run(argv)
    return n / max(cpu, 1e-6), rss


def side_by_side(label, n, ours_argv, perf_argv, reps):
    """Alternates the two tools reps times; reports throughput and memory."""
    ours, theirs, rss, prss = [], [], [], []
    for _ in range(reps):
        r, m = rate(ours_argv, n)
        ours.append(r); rss.append(m)
        r, m = rate(perf_argv, n)
        theirs.append(r); prss.append(m)
    return statistics.median(ours), statistics.median(theirs), statistics.median(rss), statistics.median(prss)


def replay_throughput(data, n, wl):
    """Rows 1-3 of the issue: s.sym against perf script -s (Python) and perf
    report; s.folded against perf script report stackcollapse; peak RSS of
    both against perf report's."""
    slow_reps = 1 if QUICK else 3                      # perf's Python runs: ~40 s each at 2 M
    o, p, r, pr_py = side_by_side("sym", n, [LUAPROF, "run", SYM, "-i", data],
                                  ["perf", "script", "-i", data, "-s", SYM_PY], slow_reps)
    report(wl, "s.sym vs perf script -s Python (samp/CPU-s)", o, p, "samp/s", better="higher")
    o, p, r, prep = side_by_side("sym", n, [LUAPROF, "run", SYM, "-i", data],
                                 ["perf", "report", "-i", data, "--stdio", "--no-children"], REPS)
    report(wl, "s.sym vs perf report --no-children (samp/CPU-s)", o, p, "samp/s", better="higher")
    report(wl, "s.sym peak RSS vs perf report", r, prep, "KiB")
    o, p, rf, _ = side_by_side("folded", n, [LUAPROF, "run", FOLDED, "-i", data],
                               ["perf", "script", "report", "stackcollapse", "-i", data], slow_reps)
    report(wl, "s.folded vs perf stackcollapse (samp/CPU-s)", o, p, "samp/s", better="higher")
    report(wl, "s.folded peak RSS vs perf report", rf, prep, "KiB")


def spread(values):
    return max(values) / min(values) - 1.0


def replay_scaling(files):
    """Row 3's second half: the s.sym script over recordings of 1, 2 and 4
    units (a million samples; QUICK: 50 thousand): peak RSS and per-sample
    CPU time should stay within 10%.  Per-sample time is given twice: total
    CPU / samples, and steady (the CPU of the first 20000 samples, the run's
    fixed cost, taken away)."""
    rss, total, steady = [], [], []
    for data, n in files:
        cpus, mems, fixed = [], [], []
        for _ in range(REPS):
            _, cpu, mem, _ = run([LUAPROF, "run", SYM, "-i", data])
            cpus.append(cpu); mems.append(mem)
            fixed.append(run([LUAPROF, "run", SYM_FIRST, "-i", data, "-A", "20000"])[1])
        cpu, f = statistics.median(cpus), statistics.median(fixed)
        rss.append(statistics.median(mems))
        total.append(cpu / n * 1e9)
        steady.append((cpu - f) / (n - 20000) * 1e9)
        print("%-22s %-44s %12d KiB %8.1f ns/samp total %8.1f ns/samp steady" %
              ("deep16 %.1fM" % (n / 1e6), "s.sym replay", rss[-1], total[-1], steady[-1]))
    sizes = "/".join("%.1fM" % (n / 1e6) for _, n in files)
    report("deep16 " + sizes, "s.sym peak RSS: largest / smallest", max(rss), min(rss), "KiB")
    RESULTS.append(dict(workload="deep16 " + sizes, measure="s.sym scaling", rss_kib=rss,
                        ns_per_sample_total=total, ns_per_sample_steady=steady,
                        rss_spread=spread(rss), total_spread=spread(total),
                        steady_spread=spread(steady), time=time.time()))
    print("%-22s %-44s rss %+.1f%%  per-sample total %+.1f%%  steady %+.1f%% (target: within 10%%)" %
          ("deep16 " + sizes, "spread across sizes", 100 * spread(rss), 100 * spread(total),
           100 * spread(steady)))


def replay_wall():
    """The issue's wall-time row: counting s.sym over a 540k-sample -g
    (frame pointer) recording of deep16 (QUICK: 100k), start-up included,
    against perf report --stdio --no-children --sort sym (the same count by
    symbol, perf's quickest report of a -g file), alternating, 5 runs each:
    median wall seconds, and the CPU seconds of the same runs.  The reader
    thread (core/perfdata/pdahead.c) puts reading, decoding and ordering on
    the second core.  The same count as the one-liner `count(sym)`,
    evaluated in C on one core, in the same rounds; the three commands in
    a random order each round (the first of a fixed order ran slower).
    Then the issue's own command once, plain perf report --stdio, which
    builds the call graph of the -g file."""
    data, n = record_deep(100000 if QUICK else 540000)
    cmds = {"script": [LUAPROF, "run", SYM, "-i", data],
            "oneliner": [LUAPROF, "-x", "cpu-clock { count(sym) }", "-i", data],
            "perf": ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym"]}
    wall = {k: [] for k in cmds}
    cpu = {k: [] for k in cmds}
    for _ in range(3 if QUICK else 9):
        for k in random.sample(sorted(cmds), len(cmds)):
            w, c, _, _ = run(cmds[k], out_path="/dev/null" if k == "perf" else None)
            wall[k].append(w); cpu[k].append(c)
    wl = "deep16 %dk fp" % (n // 1000)
    med = {k: statistics.median(v) for k, v in wall.items()}
    report(wl, "s.sym vs perf report --sort sym (wall s)", med["script"], med["perf"], "s")
    report(wl, "s.sym vs perf report --sort sym (CPU s)", statistics.median(cpu["script"]),
           statistics.median(cpu["perf"]), "s")
    report(wl, "-x count(sym) (C) vs perf report (wall s)", med["oneliner"], med["perf"], "s")
    report(wl, "-x count(sym) (C) vs perf report (CPU s)", statistics.median(cpu["oneliner"]),
           statistics.median(cpu["perf"]), "s")
    for k in sorted(cmds):
        print("%-22s %s wall %s" % ("", k, ["%.3f" % x for x in wall[k]]))
    # the issue's own command once: plain perf report --stdio of a -g file
    # builds the call graph (children), about 6x its --no-children time
    full = run(["perf", "report", "-i", data, "--stdio"], out_path="/dev/null")[0]
    report(wl, "s.sym vs perf report --stdio, call graph (wall s, 1 run)", med["script"], full, "s")


def replay():
    replay_wall()
    unit = 50000 if QUICK else 1000000
    files = [record_deep(k * unit) for k in (1, 2, 4)]
    data, n = files[1]
    replay_throughput(data, n, "deep16 %.1fM fp" % (n / 1e6))
    replay_scaling(files)


# ---- keeping up, start-up, symbol loading --------------------------------

def lost_in(path):
    """Samples a perf.data says were lost: perf report's Total Lost Samples."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--sort", "pid"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode()
    for line in out.splitlines():
        if "Total Lost Samples:" in line:
            return int(line.split(":")[1])
    return 0


def keepup():
    """At 20 kHz (or the kernel's limit) on deep16's two busy threads: lost
    samples of a counting luaprof run and of luaprof record, against perf
    record's, same settings.  Counts, not speed."""
    freq = min(20000, int(open("/proc/sys/kernel/perf_event_max_sample_rate").read()))
    ms = "500" if QUICK else "3000"
    ours, rec, theirs = [], [], []
    for _ in range(REPS):
        out = run([LUAPROF, "run", COUNT, "-F", str(freq), "-g", "--", DEEP, ms])[3]
        ours.append(int(out.split()[3]))
        lp = os.path.join(TMP, "keep-lp.data")
        run([LUAPROF, "record", "-F", str(freq), "-g", "-o", lp, "--", DEEP, ms])
        rec.append(lost_in(lp))
        pd = os.path.join(TMP, "keep.data")
        run(["perf", "record", "-q", "-F", str(freq), "-g", "-o", pd, "--", DEEP, ms])
        theirs.append(lost_in(pd))
    wl = "deep16 -F%d -g" % freq
    report(wl, "lost samples: luaprof run vs perf record (sum)", sum(ours), sum(theirs), "samples")
    report(wl, "lost samples: luaprof record vs perf record (sum)", sum(rec), sum(theirs), "samples")


def startup():
    """luaprof run count.lua -- true against perf record -o /dev/null -- true."""
    ours, theirs = [], []
    for _ in range(REPS * 2):
        ours.append(run([LUAPROF, "run", COUNT, "--", "true"])[0])
        theirs.append(run(["perf", "record", "-q", "-o", "/dev/null", "--", "true"])[0])
    report("true", "start-up to exit (wall s)", statistics.median(ours), statistics.median(theirs), "s")


def fresh_home(name):
    """An empty directory to be HOME: perf's build-id cache starts empty."""
    path = os.path.join(TMP, name)
    subprocess.run(["rm", "-rf", path], check=True)
    os.makedirs(path)
    return path


SYSCALLS = os.path.join(PROGS, "syscalls")


def record_close():
    """What filling perf's build-id cache adds to a recording: luaprof
    record of a kernel-heavy workload (its table: the program, libc, [vdso],
    the kernel, whose kallsyms is copied) with the cache cold (an empty
    HOME), warm (filled by the run before) and off (--no-buildid-cache),
    against perf record the same three ways.  CPU time of the whole run (the
    copy is the recorder's own work, and CPU time is less disturbed by what
    else the machine runs than wall time); the cache's cost is the
    difference from "off"."""
    wl = [SYSCALLS, "200"]
    rows = {"cold": ([], []), "warm": ([], []), "off": ([], [])}
    for i in range(REPS * 2):
        for tool, argv in ((0, [LUAPROF, "record", "-F", "999"]), (1, ["perf", "record", "-q", "-F", "999"])):
            data = os.path.join(TMP, "close.data")
            home = fresh_home("close-home-%d" % tool)
            rows["off"][tool].append(run(argv + ["--no-buildid-cache", "-o", data, "--"] + wl, home=home)[1])
            rows["cold"][tool].append(run(argv + ["-o", data, "--"] + wl, home=home)[1])
            rows["warm"][tool].append(run(argv + ["-o", data, "--"] + wl, home=home)[1])
    med = {k: (statistics.median(v[0]), statistics.median(v[1])) for k, v in rows.items()}
    wl_name = "syscalls 200 -F999"
    for k in ("off", "warm", "cold"):
        report(wl_name, "record, build-id cache %s (CPU s)" % k, med[k][0], med[k][1], "s")
    for k in ("cold", "warm"):
        print("%-22s %-44s %9.1f ms %9.1f ms" % (wl_name, "cache cost: %s - off (CPU)" % k,
                                                 1e3 * (med[k][0] - med["off"][0]),
                                                 1e3 * (med[k][1] - med["off"][1])))


def replay_startup():
    """Start-up of a 20,000-sample replay with kernel samples: luaprof run
    of a script reading s.sym that stops at the 20,000th sample, over a
    luaprof recording of a kernel-heavy workload, with perf's build-id cache
    as luaprof record left it (kallsyms read from the cached copy) and with
    an empty one (/proc/kallsyms, as before the cache was used); against
    perf report of the same file.  Wall time."""
    home = fresh_home("startup-home")
    data = os.path.join(TMP, "startup.data")
    units, n = 500, 0
    for _ in range(4):          # the rate the VM's timer gives varies: scale up to 20,000+
        run([LUAPROF, "record", "-F", "20000", "-o", data, "--", SYSCALLS, str(units)], home=home)
        n = perf_samples(data)
        if n >= 20000:
            break
        units = int(units * 24000 / max(n, 1)) + 1
    if n < 20000:
        sys.exit("bench: only %d samples in the start-up recording" % n)
    empty = fresh_home("startup-empty")
    cached, proc, theirs = [], [], []
    for _ in range(REPS * 2):
        cached.append(run([LUAPROF, "run", SYM_FIRST, "-i", data, "-A", "20000"], home=home)[0])
        proc.append(run([LUAPROF, "run", SYM_FIRST, "-i", data, "-A", "20000"], home=empty)[0])
        theirs.append(run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym"],
                          home=home)[0])
    wl = "syscalls 20k samples"
    report(wl, "replay start-up, /proc/kallsyms (wall s)", statistics.median(proc), statistics.median(theirs), "s")
    report(wl, "replay start-up, cached kallsyms (wall s)", statistics.median(cached), statistics.median(theirs), "s")


def gen_program(nfuncs, hot):
    """An x86-64 program of nfuncs functions (f000000...), each a sized
    global symbol; main calls f<hot>, which loops, for about half a second."""
    src = os.path.join(TMP, "gen.s")
    with open(src, "w") as f:
        f.write('.section .note.GNU-stack,"",@progbits\n.text\n.globl main\n.type main,@function\n'
                "main:\n\tpush %%rbp\n\tmov %%rsp,%%rbp\n\tmov $200000,%%ecx\n1:\tcall f%06d\n"
                "\tdec %%ecx\n\tjnz 1b\n\txor %%eax,%%eax\n\tpop %%rbp\n\tret\n.size main,.-main\n" % hot)
        for i in range(nfuncs):
            body = "\tmov $2000,%eax\n2:\tdec %eax\n\tjnz 2b\n\tret\n" if i == hot else "\tnop\n\tret\n"
            f.write(".globl f%06d\n.type f%06d,@function\nf%06d:\n%s.size f%06d,.-f%06d\n" % ((i,) * 3 + (body,) + (i,) * 2))
    prog = os.path.join(TMP, "gen200k")
    subprocess.run(["cc", "-o", prog, src], check=True)
    return prog


FIRST = script("first.lua", "local luaprof = require('luaprof')\nlocal want = arg[1]\n"
                            "function on_sample(s) if s.dso == want and s.sym then print(s.sym) luaprof.exit() end end\n")


def symbols():
    """The first sample of a 200k-function program named, against perf
    report loading the same program's symbols (a user-only recording, so
    neither loads kallsyms): wall time of each over the same file."""
    prog = gen_program(200000, 123457)
    data = os.path.join(TMP, "gen.data")
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock:u", "-F", "999", "-o", data, "--", prog],
                   check=True, stderr=subprocess.DEVNULL)
    ours, theirs, ocpu, pcpu = [], [], [], []
    for _ in range(REPS):
        wall, cpu, _, out = run([LUAPROF, "run", FIRST, "-i", data, "-A", prog])
        if out.strip() != "f123457":
            sys.exit("bench: the 200k-function program's hot function came out as %r" % out.strip())
        ours.append(wall); ocpu.append(cpu)
        wall, cpu, _, _ = run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym"])
        theirs.append(wall); pcpu.append(cpu)
    report("200k functions", "first sample named vs perf report (wall s)",
           statistics.median(ours), statistics.median(theirs), "s")
    report("200k functions", "first sample named vs perf report (CPU s)",
           statistics.median(ocpu), statistics.median(pcpu), "s")


# ---- tracepoints --------------------------------------------------------

SWITCH3_LUA = script("switch3.lua", "local n, sleeps, same = 0, 0, 0\non_event = {}\n"
                     "on_event['sched:sched_switch'] = function(s)\n"
                     "  local f = s.args\n  n = n + 1\n"
                     "  if f.prev_state == 1 then sleeps = sleeps + 1 end\n"
                     "  if f.prev_pid == f.next_pid then same = same + 1 end\nend\n"
                     "function on_end() print('samples ' .. n .. ' sleeps ' .. sleeps .. ' same ' .. same) end\n")
SWITCH3_PY = script("switch3.py", "n = sleeps = same = 0\n"
                    "def sched__sched_switch(event_name, context, common_cpu, common_secs, common_nsecs,\n"
                    "                        common_pid, common_comm, common_callchain, prev_comm, prev_pid,\n"
                    "                        prev_prio, prev_state, next_comm, next_pid, next_prio):\n"
                    "    global n, sleeps, same\n    n += 1\n"
                    "    if prev_state == 1:\n        sleeps += 1\n"
                    "    if prev_pid == next_pid:\n        same += 1\n"
                    "def trace_end():\n    print('samples %d sleeps %d same %d' % (n, sleeps, same))\n")


def tracepoint_replay():
    """A perf record of sched:sched_switch with at least 500k samples (two
    processes passing a byte over pipes), replayed through a handler that
    reads three fields of each (prev_state, prev_pid, next_pid), against
    perf script -s running the same handler in Python: samples per
    CPU-second.  Both must count the same."""
    n_pass = 30000 if QUICK else 260000
    data = os.path.join(TMP, "switch.data")
    subprocess.run(["perf", "record", "-q", "-e", "sched:sched_switch", "-o", data, "--",
                    os.path.join(PROGS, "pingpong"), str(n_pass)], check=True, stderr=subprocess.DEVNULL)
    n = perf_samples(data)
    ours, theirs = [], []
    for _ in range(1 if QUICK else 3):
        _, cpu, _, out = run([LUAPROF, "run", SWITCH3_LUA, "-i", data])
        _, pcpu, _, pout = run(["perf", "script", "-i", data, "-s", SWITCH3_PY])
        if out.split()[:6] != pout.split()[:6]:
            sys.exit("bench: luaprof and perf script -s disagree: %r vs %r" % (out[:80], pout[:80]))
        ours.append(n / max(cpu, 1e-6))
        theirs.append(n / max(pcpu, 1e-6))
    report("sched_switch %.2fM" % (n / 1e6), "3 fields vs perf script -s Python (samp/CPU-s)",
           statistics.median(ours), statistics.median(theirs), "samp/s", better="higher")


# ---- one-liners (issue 22) ----------------------------------------------

ONELINER = "sched:sched_switch { count(args.prev_state, args.next_pid) }"
COUNT2_PY = script("count2.py", "c = {}\n"
                   "def sched__sched_switch(event_name, context, common_cpu, common_secs, common_nsecs,\n"
                   "                        common_pid, common_comm, common_callchain, prev_comm, prev_pid,\n"
                   "                        prev_prio, prev_state, next_comm, next_pid, next_prio):\n"
                   "    k = (prev_state, next_pid)\n    c[k] = c.get(k, 0) + 1\n"
                   "def trace_end():\n"
                   "    for k, v in sorted(c.items(), key=lambda kv: (kv[1], str(kv[0][0]) + '\\0' + str(kv[0][1]))):\n"
                   "        print('@[%d, %d]: %d' % (k[0], k[1], v))\n")


NOTHING = script("nothing.lua", "function on_end(i) print(i.samples) end\n")


def oneliner_replay():
    """The one-liner counting sched:sched_switch by prev_state and next_pid
    (evaluated in C: core/agg) over the recording of tracepoint_replay's
    kind (pingpong, about 0.52M samples), against perf script -s with a
    Python script counting the same: samples per CPU-second.  The counts
    must be the same, line for line.  The three commands run in a random
    order in each of 9 rounds: the machine's speed drifts (by up to 1.5x
    for luaprof and 2x for perf between runs of this section), and the
    medians of more interleaved runs follow it more evenly."""
    n_pass = 30000 if QUICK else 260000
    data = os.path.join(TMP, "switch1.data")
    subprocess.run(["perf", "record", "-q", "-e", "sched:sched_switch", "-o", data, "--",
                    os.path.join(PROGS, "pingpong"), str(n_pass)], check=True, stderr=subprocess.DEVNULL)
    n = perf_samples(data)
    ours, theirs, bare = [], [], []
    for _ in range(1 if QUICK else 9):
        for k in random.sample(["ours", "perf", "bare"], 3):
            if k == "ours":
                _, cpu, _, out = run([LUAPROF, "-x", ONELINER, "-i", data])
                ours.append(n / max(cpu, 1e-6))
            elif k == "perf":
                _, pcpu, _, pout = run(["perf", "script", "-i", data, "-s", COUNT2_PY])
                theirs.append(n / max(pcpu, 1e-6))
            else:
                bare.append(n / max(run([LUAPROF, "run", NOTHING, "-i", data])[1], 1e-6))
        # run() returns each output's first 4096 bytes, ours a blank line
        # first (bpftrace's): the last word of either may be cut short
        words, pwords = out.split(), pout.split()
        same = min(len(words), len(pwords)) - (len(out) >= 4096 or len(pout) >= 4096)
        if words[:same] != pwords[:same]:
            sys.exit("bench: the one-liner and perf script -s disagree: %r vs %r" % (out[:200], pout[:200]))
    _, lcpu, _, lout = run(["env", "LUAPROF_ONELINER=lua", LUAPROF, "-x", ONELINER, "-i", data])
    if lout.split() != out.split():
        sys.exit("bench: the one-liner's C and Lua ways disagree")
    report("sched_switch %.2fM" % (n / 1e6), "-x count by 2 fields (C) vs perf script -s",
           statistics.median(ours), statistics.median(theirs), "samp/s", better="higher")
    report("sched_switch %.2fM" % (n / 1e6), "-x count (C) vs the replay with no handler",
           statistics.median(ours), statistics.median(bare), "samp/s", better="higher")
    report("sched_switch %.2fM" % (n / 1e6), "-x count through Lua vs perf script -s",
           n / max(lcpu, 1e-6), statistics.median(theirs), "samp/s", better="higher")


def syscalls_alone(calls):
    """System calls per second of tpcalls alone: the workload's own rate."""
    return calls / run([os.path.join(PROGS, "tpcalls"), str(calls)])[0]


def tracepoint_keepup():
    """raw_syscalls:sys_enter live on a program making about a million
    system calls a second (tpcalls: getppid in a loop): samples lost by a
    counting luaprof run, against perf record of the same; and the samples
    each delivered (every call is a sample)."""
    calls = 1000000 if QUICK else 3000000
    rate = statistics.median(syscalls_alone(calls) for _ in range(3))
    wl = [os.path.join(PROGS, "tpcalls"), str(calls)]
    lost, plost, got, pgot = [], [], [], []
    for _ in range(REPS):
        out = run([LUAPROF, "run", COUNT, "-e", "raw_syscalls:sys_enter", "--"] + wl)[3]
        got.append(int(out.split()[1]))
        lost.append(int(out.split()[3]))
        pd = os.path.join(TMP, "sys.data")
        run(["perf", "record", "-q", "-e", "raw_syscalls:sys_enter", "-o", pd, "--"] + wl)
        plost.append(lost_in(pd))
        pgot.append(perf_samples(pd))
    name = "tpcalls %.1fM calls/s" % (rate / 1e6)
    report(name, "raw_syscalls:sys_enter lost: luaprof run vs perf record", sum(lost), sum(plost),
           "samples")
    report(name, "samples delivered (median): luaprof run vs perf record", statistics.median(got),
           statistics.median(pgot), "samples", better="higher")
# ---- DWARF: unwinding, source lines ------------------------------------------

FOLD_COUNT = script("foldcount.lua", "local c, n = {}, 0\nfunction on_sample(s) local f = s.folded c[f] = (c[f] or 0) + 1 "
                    "n = n + 1 if arg[1] and n >= tonumber(arg[1]) then luaprof.exit() end end\n"
                    "function on_end(i) print('samples ' .. i.samples) end\n")
SRCLINE = script("srcline.lua", "local c = luaprof.map()\nfunction on_sample(s) c:add({ s.file or '?', s.line or 0 }) end\n"
                 "function on_end(i) print('samples ' .. i.samples) end\n")


def chain_binary(flags):
    """tests/progs/chain.c built with flags (-O2, no frame pointers)."""
    out = os.path.join(TMP, "chain" + flags.replace(" ", "").replace("-", "_"))
    subprocess.run(["cc"] + flags.split() + ["-o", out, os.path.join(ROOT, "tests", "progs", "chain.c")], check=True)
    return out


def dwarf():
    """The issue's rows for --call-graph dwarf: replay counting s.folded on
    a perf dwarf recording of >= 200k samples (QUICK: 20k) against perf
    script, and the script text against perf script's; peak RSS at half and all of it; s.file and s.line for every sample
    against perf script -F +srcline (an -O2 -g program, -g); live at 999 Hz
    (slowdown against perf record --call-graph dwarf) and samples lost at
    4 kHz."""
    chain = chain_binary("-O2 -g -fomit-frame-pointer")
    want = 20000 if QUICK else 200000
    freq = min(20000, int(open("/proc/sys/kernel/perf_event_max_sample_rate").read()))
    data = os.path.join(TMP, "dwarf.data")
    rounds = max(2, int(want / freq * 1.15 * 60))       # ~60 qsort rounds a second
    run(["perf", "record", "-q", "--call-graph", "dwarf", "-F", str(freq), "-o", data, "--", chain, "qsort", str(rounds)])
    n = perf_samples(data)
    wl = "chain qsort dwarf %dk" % (n // 1000)
    o, p, r, _ = side_by_side("dwarf", n, [LUAPROF, "run", FOLD_COUNT, "-i", data],
                              ["perf", "script", "-i", data], 1 if QUICK else 3)
    report(wl, "s.folded vs perf script (samp/CPU-s)", o, p, "samp/s", better="higher")
    # the text, inlined frames and all (the same bytes: test dwarf_inline)
    ours = n / max(run([LUAPROF, "run", "script", "-i", data], out_path="/dev/null")[1], 1e-6)
    theirs = n / max(run(["perf", "script", "-i", data], out_path="/dev/null")[1], 1e-6)
    report(wl, "script text vs perf script (samp/CPU-s)", ours, theirs, "samp/s", better="higher")
    half = statistics.median([run([LUAPROF, "run", FOLD_COUNT, "-i", data, "-A", str(n // 2)])[2] for _ in range(REPS)])
    full = statistics.median([run([LUAPROF, "run", FOLD_COUNT, "-i", data])[2] for _ in range(REPS)])
    report(wl, "s.folded peak RSS: all / half the samples", full, half, "KiB")
    os.unlink(data)
    src = os.path.join(TMP, "src.data")
    # ~80k samples QUICK, ~490k otherwise: enough that start-up (kallsyms,
    # libc's DWARF) is not what is measured.
    run(["perf", "record", "-q", "-g", "-F", "4000", "-o", src, "--", chain, "qsort", "330" if QUICK else "2000"])
    n = perf_samples(src)
    o, p, _, _ = side_by_side("srcline", n, [LUAPROF, "run", SRCLINE, "-i", src],
                              ["perf", "script", "-F", "+srcline", "-i", src], 1)
    report("chain qsort -g %dk" % (n // 1000), "s.file, s.line vs perf script -F +srcline (samp/CPU-s)", o, p,
           "samp/s", better="higher")
    wl_argv = [chain, "qsort", "60" if QUICK else "180"]
    alone, perf, ours = [], [], []
    for _ in range(REPS):
        alone.append(run(wl_argv)[0])
        perf.append(run(["perf", "record", "-q", "-F", "999", "--call-graph", "dwarf", "-o",
                         os.path.join(TMP, "p.data"), "--"] + wl_argv)[0])
        ours.append(run([LUAPROF, "run", FOLD_COUNT, "-F", "999", "--call-graph", "dwarf", "--"] + wl_argv)[0])
    a = statistics.median(alone)
    report("chain qsort -F999 dwarf", "slowdown vs alone (wall), s.folded script", statistics.median(ours) / a,
           statistics.median(perf) / a, "x")
    ours, theirs = [], []
    for _ in range(REPS):
        out = run([LUAPROF, "run", COUNT, "-F", "4000", "--call-graph", "dwarf", "--", DEEP, "500" if QUICK else "3000"])[3]
        ours.append(int(out.split()[3]))
        pd = os.path.join(TMP, "keepd.data")
        run(["perf", "record", "-q", "-F", "4000", "--call-graph", "dwarf", "-o", pd, "--", DEEP, "500" if QUICK else "3000"])
        theirs.append(lost_in(pd))
    report("deep16 -F4000 dwarf", "lost samples: luaprof run vs perf record (sum)", sum(ours), sum(theirs), "samples")


# ---- the report library: flame graphs, the counting map ------------------

PERF_FLAMEGRAPH = "/usr/lib/perf-core/scripts/python/flamegraph.py"   # perf script report flamegraph


def flame():
    """A 2M-sample recording (QUICK: 100k) to a flame graph: luaprof's
    flamegraph script (a counting map of s.folded, then the SVG) against
    perf's own `perf script report flamegraph` (Python; Debian ships no d3
    template, so it writes its JSON, the same aggregation without the HTML
    wrapper).  FlameGraph's stackcollapse-perf.pl + flamegraph.pl are not
    packaged by Debian, so that pipeline is measured only when both are on
    PATH."""
    data, n = record_deep(100000 if QUICK else 2000000)
    wl = "deep16 %.1fM fp" % (n / 1e6)
    svg, js = os.path.join(TMP, "flame.svg"), os.path.join(TMP, "stacks.json")
    ours, theirs, orss, prss = [], [], [], []
    for _ in range(1 if QUICK else 3):
        w, _, m, _ = run([LUAPROF, "run", "flamegraph", "--out=" + svg, "-i", data])
        ours.append(w); orss.append(m)
        w, _, m, _ = run(["perf", "script", "-i", data, "-s", PERF_FLAMEGRAPH, "--",
                          "--format", "json", "-o", js])
        theirs.append(w); prss.append(m)
    report(wl, "flame graph SVG vs perf script report flamegraph (wall s)",
           statistics.median(ours), statistics.median(theirs), "s")
    report(wl, "flame graph peak RSS vs perf's", statistics.median(orss), statistics.median(prss), "KiB")
    import shutil
    if shutil.which("stackcollapse-perf.pl") and shutil.which("flamegraph.pl"):
        t0 = time.perf_counter()
        subprocess.run("perf script -i %s | stackcollapse-perf.pl | flamegraph.pl > %s" %
                       (data, os.path.join(TMP, "fg.svg")), shell=True, check=True,
                       stderr=subprocess.DEVNULL)
        report(wl, "flame graph vs stackcollapse-perf.pl|flamegraph.pl (wall s)",
               statistics.median(ours), time.perf_counter() - t0, "s")
    else:
        print("%-22s %-44s not installed (Debian has no FlameGraph package)" %
              (wl, "stackcollapse-perf.pl | flamegraph.pl"))


MAP_BENCH = script("mapbench.lua", """
local N, K = tonumber(arg[1]), tonumber(arg[2])
local keys, seq, x = {}, {}, 12345
for i = 1, K do keys[i] = "key:" .. i end
for i = 1, N do x = (x * 1103515245 + 12345) % 2147483648; seq[i] = x % K + 1 end
local function time(f) collectgarbage() collectgarbage() local t = os.clock() f() return os.clock() - t end
local plain = time(function() local t = {} for i = 1, N do local k = keys[seq[i]]; t[k] = (t[k] or 0) + 1 end end)
local map = time(function() local m = luaprof.map() for i = 1, N do m:add(keys[seq[i]]) end end)
local tuple = time(function() local m = luaprof.map() for i = 1, N do m:add({ keys[seq[i] % 1000 + 1], seq[i] // 1000 }) end end)
print(string.format("%.6f %.6f %.6f", plain, map, tuple))
""")


def counting_map():
    """10M adds over 1M distinct string keys (QUICK: 1M over 100k): a
    plain Lua table against luaprof.map (itself plain tables, kept because
    they beat a map written in C; see lua/lib/luaprof/map.lua), and
    luaprof.map with (string, integer) tuple keys."""
    n, k = (1000000, 100000) if QUICK else (10000000, 1000000)
    res = []
    for _ in range(1 if QUICK else 3):
        _, _, _, out = run([LUAPROF, "run", MAP_BENCH, "-A", str(n), "-A", str(k), "--", "true"])
        res.append([float(v) for v in out.split()])
    plain, m, tup = (statistics.median(r[i] for r in res) for i in range(3))
    wl = "%dM adds, %dk keys" % (n // 1000000, k // 1000)
    report(wl, "luaprof.map:add vs t[k] = (t[k] or 0) + 1 (ns/add)", m / n * 1e9, plain / n * 1e9, "ns")
    report(wl, "luaprof.map tuple {str, int} keys (ns/add)", tup / n * 1e9, plain / n * 1e9, "ns")


# ---- the runaway-script guards --------------------------------------------

ALLOC = script("alloc.lua", "local t, n = {}, 0\nfunction on_sample(s) n = n + 1 "
                            "t[n % 4096] = { s.tid, s.time } end\n")


def guards():
    """The per-sample cost of --script-timeout and --script-memory: the same
    replay with both guards on (a timeout, the default memory limit) and
    off (0 and 0), alternating 3 x REPS times; the least CPU per sample of
    each (on a shared machine runs vary by tens of percent, and what others
    add is never negative).  COUNT is the call alone; ALLOC makes a table
    per sample, through the counting allocator."""
    data, n = record_deep(50000 if QUICK else 1000000)
    on, off = ["--script-timeout", "10"], ["--script-timeout", "0", "--script-memory", "0"]
    for name, path in (("count", COUNT), ("alloc", ALLOC)):
        a, b = [], []
        for _ in range(3 * REPS):
            a.append(run([LUAPROF, "run", path, "-i", data] + on)[1] / n * 1e9)
            b.append(run([LUAPROF, "run", path, "-i", data] + off)[1] / n * 1e9)
        report("deep16 %dk %s" % (n // 1000, name), "guards on vs off: least CPU ns/sample (replay)",
               min(a), min(b), "ns", better="lower")


# ---- probes and counting ------------------------------------------------------


def perf_probe(binary, func, event):
    """Creates the uprobe event probe_<binary>:<event> with perf probe (in
    tracefs' uprobe_events); returns the name, or None when perf cannot.
    One left by an interrupted run is deleted first."""
    subprocess.run(["perf", "probe", "-q", "-d", "probe_%s:%s" % (os.path.basename(binary), event)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = subprocess.run(["perf", "probe", "-q", "-x", binary, "-a", "%s=%s" % (event, func)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode:
        print("bench: perf probe failed: %s" % r.stderr.decode().strip()[:200])
        return None
    return "probe_%s:%s" % (os.path.basename(binary), event)


def probes():
    """A function called a million times (probed calls: twice(i)): the
    workload's wall time alone, under luaprof run counting each call's
    sample in Lua, under luaprof stat counting the uprobe in the kernel
    (counting), under perf record -e of the same uprobe (made with perf
    probe -x, deleted after), and under bpftrace's uprobe:...{@n++}; and
    the calls each saw (all of them, or it says how many it lost)."""
    calls = 200000 if QUICK else 1000000
    binary = os.path.join(PROGS, "probed")
    wl = [binary, "calls", str(calls)]
    ev = "uprobe:%s:twice" % binary
    pname = perf_probe(binary, "twice", "lpbench_twice")
    bpftrace = subprocess.run(["sh", "-c", "command -v bpftrace"], stdout=subprocess.PIPE).stdout.strip()
    alone, ours, stat, perf, bpf = [], [], [], [], []
    got, sgot, pgot, bgot = [], [], [], []
    try:
        for _ in range(REPS):
            alone.append(run(wl)[0])
            w, _, _, out = run([LUAPROF, "run", COUNT, "-e", ev, "-m", "1024", "--"] + wl)
            ours.append(w)
            got.append(int(out.split()[1]))
            w = run([LUAPROF, "stat", "-e", ev, "--out=" + os.path.join(TMP, "stat.txt"), "--"] + wl)[0]
            stat.append(w)
            sgot.append(int(open(os.path.join(TMP, "stat.txt")).read().split("':")[1].split()[0]))
            if pname:
                pd = os.path.join(TMP, "probe.data")
                perf.append(run(["perf", "record", "-q", "-e", pname, "-o", pd, "--"] + wl)[0])
                pgot.append(perf_samples(pd))
            if bpftrace:
                w, _, _, out = run([bpftrace.decode(), "-e", "uprobe:%s:twice { @n++ }" % binary,
                                    "-c", " ".join(wl)])
                bpf.append(w)
                bgot.append(int(out.split("@n:")[1].split()[0]) if "@n:" in out else 0)
    finally:
        if pname:
            subprocess.run(["perf", "probe", "-q", "-d", pname], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    med = statistics.median
    wlname = "uprobe %dk calls" % (calls // 1000)
    base = med(alone)
    print("%-22s workload alone %.4f s; calls seen: luaprof run %s, luaprof stat %s, perf record %s, "
          "bpftrace %s" % (wlname, base, med(got), med(sgot), med(pgot) if pgot else "-",
                           med(bgot) if bgot else "-"))
    if perf:
        report(wlname, "slowdown: luaprof run (Lua per call) vs perf record", med(ours) / base,
               med(perf) / base, "x")
        report(wlname, "slowdown: luaprof stat (counting) vs perf record", med(stat) / base,
               med(perf) / base, "x")
    if bpf:
        report(wlname, "slowdown: luaprof run vs bpftrace @n++", med(ours) / base, med(bpf) / base, "x")
        report(wlname, "slowdown: luaprof stat vs bpftrace @n++", med(stat) / base, med(bpf) / base, "x")
    if not perf and not bpf:
        report(wlname, "slowdown: luaprof run vs luaprof stat", med(ours) / base, med(stat) / base, "x")


def stat_bench():
    """luaprof stat against perf stat: start-up to exit on true, and the wall
    time of a CPU-and-faults workload (faults 16) under each, against it alone."""
    s, p = [], []
    for _ in range(REPS * 2):
        s.append(run([LUAPROF, "stat", "--out=/dev/null", "--", "true"])[0])
        p.append(run(["perf", "stat", "-o", "/dev/null", "--", "true"])[0])
    report("true", "luaprof stat vs perf stat: start-up to exit", statistics.median(s),
           statistics.median(p), "s")
    wl = [os.path.join(PROGS, "faults"), "16"]
    alone, s, p = [], [], []
    for _ in range(REPS):
        alone.append(run(wl)[0])
        s.append(run([LUAPROF, "stat", "--out=/dev/null", "--"] + wl)[0])
        p.append(run(["perf", "stat", "-o", "/dev/null", "--"] + wl)[0])
    base = statistics.median(alone)
    report("faults 16 (%.2f s)" % base, "luaprof stat vs perf stat: wall / alone",
           statistics.median(s) / base, statistics.median(p) / base, "x")


# ---- the shipped scripts: offcpu, script --------------------------------

# BCC's offcputime as a perf script -s handler: the time from each thread's
# switch out (keyed by its command and the stack it blocked on) to its
# switch back in, summed per stack; a thread switched out again without its
# switch in recorded is closed then, as the scripts' sched helper does.
OFFCPU_PY = script("offcpu.py", """
out, stacks, waits, total = {}, {}, 0, 0
def sched__sched_switch(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                        common_comm, common_callchain, prev_comm, prev_pid, prev_prio, prev_state,
                        next_comm, next_pid, next_prio):
    global waits, total
    t = common_secs * 1000000000 + common_nsecs
    for tid in (next_pid, prev_pid):
        o = out.pop(tid, None) if tid == next_pid or prev_pid != 0 else None
        if o:
            stacks[o[1]] = stacks.get(o[1], 0) + t - o[0]
            waits += 1
            total += t - o[0]
    if prev_pid != 0:
        key = ";".join([prev_comm] + [f["sym"]["name"] if "sym" in f else "[unknown]"
                                      for f in reversed(common_callchain)])
        out[prev_pid] = (t, key)
def trace_end():
    print("waits %d ns %d stacks %d" % (waits, total, len(stacks)))
""")


def offcpu_bench():
    """A system-wide -g recording of sched:sched_switch with about 500k
    switches (QUICK: 50k; pingpong passing a byte), through the offcpu
    script (per thread and state, and per stack) against the BCC-style sum
    above in perf script -s: samples per CPU-second; both must find the
    same waits and time."""
    passes = 25000 if QUICK else 250000
    data = os.path.join(TMP, "offcpu.data")
    subprocess.run(["perf", "record", "-q", "-a", "-g", "-e", "sched:sched_switch", "-o", data, "--",
                    os.path.join(PROGS, "pingpong"), str(passes)], check=True, stderr=subprocess.DEVNULL)
    n = perf_samples(data)
    ours, theirs = [], []
    for _ in range(1 if QUICK else 3):
        _, cpu, _, out = run([LUAPROF, "run", "offcpu", "--min-block=0", "-i", data])
        _, pcpu, _, pout = run(["perf", "script", "-i", data, "-s", OFFCPU_PY])
        w = out.split("waits, ")[0].split()[-1]
        if w != pout.split()[1]:
            sys.exit("bench: offcpu and the Python sum disagree: %r vs %r" % (out[:120], pout[:80]))
        ours.append(n / max(cpu, 1e-6))
        theirs.append(n / max(pcpu, 1e-6))
    report("sched_switch -g %.2fM" % (n / 1e6), "offcpu vs BCC-style perf script -s (samp/CPU-s)",
           statistics.median(ours), statistics.median(theirs), "samp/s", better="higher")


def offcpu_live():
    """What following switches costs the workload: the wall time of
    pingpong (about 400k switches; QUICK: 40k) alone, and under offcpu run
    live (system-wide sched:sched_switch with stacks), against perf record
    of the same events: once without the kernel's switch records (a copy of
    offcpu with no on_switch) against plain perf record, once with them
    (offcpu as shipped, which defines on_switch) against perf record
    --switch-events.  Slowdown against alone; both ratios lower is better."""
    wl = [os.path.join(PROGS, "pingpong"), "10000" if QUICK else "100000"]
    src = open(os.path.join(ROOT, "scripts", "offcpu.lua")).read()
    cut = src.index("function on_switch(")
    # beside the shipped scripts, whose helpers (sched) it needs; removed
    # at the bench's exit
    plain = os.path.join(ROOT, "scripts", ".bench-offcpu-plain.lua")
    with open(plain, "w") as f:
        f.write(src[:cut] + src[src.index("\n", cut) + 1:])
    atexit.register(lambda: os.path.exists(plain) and os.unlink(plain))
    if "function on_switch(" in open(plain).read():
        sys.exit("bench: offcpu.lua defines on_switch twice")
    pdata = os.path.join(TMP, "offlive.data")
    perf = ["perf", "record", "-q", "-a", "-g", "-e", "sched:sched_switch", "-o", pdata]
    runs = {k: [] for k in ("alone", "ours", "perf", "ours_sw", "perf_sw")}
    lost = {"ours": [], "ours_sw": []}
    for _ in range(REPS):
        runs["alone"].append(run(wl)[0])
        runs["ours"].append(run([LUAPROF, "run", plain, "--"] + wl)[0])
        lost["ours"].append(lost_samples())
        runs["perf"].append(run(perf + ["--"] + wl)[0])
        n = perf_samples(pdata)
        runs["ours_sw"].append(run([LUAPROF, "run", "offcpu", "--"] + wl)[0])
        lost["ours_sw"].append(lost_samples())
        runs["perf_sw"].append(run(perf + ["--switch-events", "--"] + wl)[0])
    m = {k: statistics.median(v) for k, v in runs.items()}
    report("pingpong offcpu live", "slowdown vs alone (wall), sched_switch only", m["ours"] / m["alone"],
           m["perf"] / m["alone"], "x")
    report("pingpong offcpu live", "... and switch records (perf --switch-events)", m["ours_sw"] / m["alone"],
           m["perf_sw"] / m["alone"], "x")
    print("%-22s luaprof lost (median) %d and %d of perf's %d sched_switch samples" %
          ("", statistics.median(lost["ours"]), statistics.median(lost["ours_sw"]), n))


def lost_samples():
    """The samples the last luaprof run() says the kernel lost (its stderr)."""
    for line in open(os.path.join(TMP, "stderr"), errors="replace"):
        if line.startswith("luaprof: the kernel lost "):
            return int(line.split()[4])
    return 0


SWITCHES_LUA = script("switches.lua", "local n, ins, preempt = 0, 0, 0\n"
                      "function on_switch(t)\n  n = n + 1\n"
                      "  if not t.out then ins = ins + 1 elseif t.preempt then preempt = preempt + 1 end\nend\n"
                      "function on_end() print('switches ' .. n .. ' in ' .. ins .. ' preempt ' .. preempt) end\n")
SWITCHES_PY = script("switches.py", "n = ins = preempt = 0\n"
                     "def context_switch(ts, cpu, pid, tid, np_pid, np_tid, machine_pid, out, out_preempt, *rest):\n"
                     "    global n, ins, preempt\n    n += 1\n"
                     "    if not out:\n        ins += 1\n"
                     "    elif out_preempt:\n        preempt += 1\n"
                     "def trace_end():\n    print('switches %d in %d preempt %d' % (n, ins, preempt))\n")


def switches_bench():
    """A system-wide perf record --switch-events of pingpong (about 440k
    PERF_RECORD_SWITCH_CPU_WIDE records; QUICK: 44k), through an on_switch
    that counts them, the switches in and the preempted ones, against the
    same count in perf script -s's Python context_switch: records per
    CPU-second.  Both must count the same."""
    passes = 10000 if QUICK else 100000
    data = os.path.join(TMP, "switches.data")
    subprocess.run(["perf", "record", "-q", "-a", "--switch-events", "-e", "dummy", "-o", data, "--",
                    os.path.join(PROGS, "pingpong"), str(passes)], check=True, stderr=subprocess.DEVNULL)
    ours, theirs, n = [], [], 0
    for _ in range(1 if QUICK else 3):
        _, cpu, _, out = run([LUAPROF, "run", SWITCHES_LUA, "-i", data])
        _, pcpu, _, pout = run(["perf", "script", "-i", data, "-s", SWITCHES_PY])
        if out.split()[:6] != pout.split()[:6]:
            sys.exit("bench: on_switch and perf script's context_switch disagree: %r vs %r" % (out[:80], pout[:80]))
        n = int(out.split()[1])
        ours.append(n / max(cpu, 1e-6))
        theirs.append(n / max(pcpu, 1e-6))
    report("switch -a %.2fM" % (n / 1e6), "on_switch vs perf script -s context_switch (rec/CPU-s)",
           statistics.median(ours), statistics.median(theirs), "rec/s", better="higher")


def script_bench():
    """A 1M-sample -g recording (QUICK: 100k) as text: luaprof run script
    against perf script, both to /dev/null (the texts are the same: test
    script): samples per CPU-second."""
    data, n = record_deep(100000 if QUICK else 1000000)
    ours, theirs = [], []
    for _ in range(1 if QUICK else 3):
        ours.append(n / max(run([LUAPROF, "run", "script", "-i", data], out_path="/dev/null")[1], 1e-6))
        theirs.append(n / max(run(["perf", "script", "-i", data], out_path="/dev/null")[1], 1e-6))
    report("deep16 %.2fM fp" % (n / 1e6), "script text vs perf script (samp/CPU-s)",
           statistics.median(ours), statistics.median(theirs), "samp/s", better="higher")


# ---- real recordings (issue 35): many processes, big symbol tables --------

def record_real_files():
    """The recordings every machine of this kind can make: make -j2 of a
    clean copy of this project, with -g and with --call-graph dwarf; git
    log -p of the project's history (eight times); go build -a of a small
    program with an empty build cache (the Go compiler: a Go program,
    building the standard library too), when go is installed.  QUICK: the
    -g make alone.  [(name, path)]."""
    src = os.path.join(TMP, "src")
    if not os.path.isdir(src):
        os.makedirs(src)
        arch = subprocess.run(["git", "-C", ROOT, "archive", "HEAD"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=arch, check=True)
    files = []

    def rec(name, argv, cg, cwd, env=None):
        path = os.path.join(TMP, name + ".data")
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock"] + cg + ["-o", path, "--"] + argv,
                       cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        files.append((name, path))

    subprocess.run(["make", "-s", "clean"], cwd=src, check=True, stdout=subprocess.DEVNULL)
    rec("make -j2 -g", ["make", "-s", "-j2"], ["-g"], src)
    if QUICK:
        return files
    if not NO_DWARF:
        subprocess.run(["make", "-s", "clean"], cwd=src, check=True, stdout=subprocess.DEVNULL)
        rec("make -j2 dwarf", ["make", "-s", "-j2"], ["--call-graph", "dwarf"], src)
    # git log -p of the project's history eight times over: one is 0.5 s of CPU
    rec("git log -p x8 -g", ["sh", "-c", "for i in 1 2 3 4 5 6 7 8; do git log -p; done >/dev/null"],
        ["-g"], ROOT)
    if shutil.which("go"):
        gsrc = os.path.join(TMP, "gohello")
        os.makedirs(gsrc, exist_ok=True)
        with open(os.path.join(gsrc, "main.go"), "w") as f:
            f.write('package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hi") }\n')
        env = dict(os.environ, GOCACHE=os.path.join(TMP, "gocache"), GOPATH=os.path.join(TMP, "gopath"),
                   GO111MODULE="off")
        # -a: the standard library compiled too (the Go compiler, assembler
        # and linker, a few hundred processes), not only hello's package
        rec("go build -a -g", ["go", "build", "-a", "-o", os.path.join(gsrc, "hello"), "main.go"], ["-g"],
            gsrc, env)
    return files


def real_recordings():
    """Issue 35's rows: on each real recording, luaprof's shipped reports
    against perf's equivalent, paired and alternated (the pair's order
    random each round), median wall seconds, CPU seconds (user + sys,
    which the other work on a shared machine changes less) and peak RSS,
    and the spread (slowest / fastest - 1) of the wall times:
      top               perf report --stdio --no-children
      top --children    perf report --stdio --children
      folded            perf script report stackcollapse (perf's own
                        stackcollapse; FlameGraph's stackcollapse-perf.pl
                        is not packaged for Debian)
      folded            perf script | stackcollapse-perf.pl, the command
                        issue 35 names, when stackcollapse-perf.pl is on
                        PATH (a FlameGraph checkout's; never shipped here)
      script            perf script
    5 rounds (1 on the DWARF recording, whose perf reports run addr2line
    for minutes).  The load average before and after each recording's
    rows is printed with them, and at the end the rows as the markdown
    table of docs/performance.md."""
    def perf(*args):
        return lambda data: ["perf"] + list(args) + ["-i", data]
    pairs = [("top", ["run", "top"], "report --stdio --no-children",
              perf("report", "--stdio", "--no-children")),
             ("top --children", ["run", "top", "--children"], "report --stdio --children",
              perf("report", "--stdio", "--children")),
             ("folded", ["run", "folded"], "script report stackcollapse",
              perf("script", "report", "stackcollapse")),
             ("script", ["run", "script"], "script", perf("script"))]
    if shutil.which("stackcollapse-perf.pl"):
        pairs.insert(3, ("folded (FlameGraph)", ["run", "folded"], "script | stackcollapse-perf.pl",
                         lambda data: ["sh", "-c", 'perf script -i "$1" | stackcollapse-perf.pl', "sh",
                                       data]))
    rows = []
    for name, data in record_real_files():
        n = perf_samples(data)
        reps = 1 if QUICK or "dwarf" in name else 5     # perf report of the DWARF file: minutes (addr2line)
        wl = "%s %dk" % (name, n // 1000)
        load0 = os.getloadavg()[0]
        for what, ours, theirs, their_argv in pairs:
            cmds = {"luaprof": [LUAPROF] + ours + ["-i", data], "perf": their_argv(data)}
            wall = {k: [] for k in cmds}
            cpu = {k: [] for k in cmds}
            rss = {k: [] for k in cmds}
            for _ in range(reps):
                for k in random.sample(sorted(cmds), 2):
                    w, c, m, _ = run(cmds[k], out_path="/dev/null")
                    wall[k].append(w); cpu[k].append(c); rss[k].append(m)
            med = {k: statistics.median(v) for k, v in wall.items()}
            mcpu = {k: statistics.median(v) for k, v in cpu.items()}
            mrss = {k: statistics.median(v) for k, v in rss.items()}
            report(wl, "%s vs perf %s (wall s)" % (what, theirs), med["luaprof"], med["perf"], "s")
            report(wl, "%s vs perf %s (CPU s)" % (what, theirs), mcpu["luaprof"], mcpu["perf"], "s")
            report(wl, "%s peak RSS vs perf" % what, mrss["luaprof"], mrss["perf"], "KiB")
            RESULTS.append(dict(workload=wl, measure=what + " wall runs", luaprof=wall["luaprof"],
                                perf=wall["perf"], spread_luaprof=spread(wall["luaprof"]),
                                spread_perf=spread(wall["perf"]), time=time.time()))
            print("%-22s %-44s spread %+.0f%% / %+.0f%%" % ("", what + " wall spread (luaprof / perf)",
                                                          100 * spread(wall["luaprof"]),
                                                          100 * spread(wall["perf"])))
            rows.append((wl, what, theirs, med, mcpu, mrss, spread(wall["luaprof"]), spread(wall["perf"]),
                         reps))
        load1 = os.getloadavg()[0]
        print("%-22s load average %.1f before, %.1f after" % (wl, load0, load1))
        RESULTS.append(dict(workload=wl, measure="load average before, after", luaprof=load0, perf=load1,
                            time=time.time()))
    print("\n| recording | command | luaprof wall (CPU) | perf wall (CPU) | ratio wall (CPU) "
          "| spread luaprof / perf | peak RSS luaprof / perf |")
    print("|---|---|---|---|---|---|---|")
    for wl, what, theirs, med, mcpu, mrss, sl, sp, reps in rows:
        print("| %s | `%s` vs `perf %s`%s | %.3f s (%.3f) | %.3f s (%.3f) | %.1fx (%.1fx) | %s | %d / %d MiB |"
              % (wl, what, theirs, "" if reps > 1 else ", 1 run", med["luaprof"], mcpu["luaprof"],
                 med["perf"], mcpu["perf"], med["perf"] / med["luaprof"], mcpu["perf"] / max(mcpu["luaprof"], 1e-9),
                 "+%.0f%% / +%.0f%%" % (100 * sl, 100 * sp) if reps > 1 else "-",
                 round(mrss["luaprof"] / 1024), round(mrss["perf"] / 1024)))


SLOW_LUA = script("slow.lua", "local n = 0\n"
                  "function on_sample(s)\n  n = n + 1\n"
                  "  local t = os.clock() + 50e-6\n  while os.clock() < t do end\nend\n"
                  "function on_end(i) print('samples ' .. n .. ' lost ' .. i.lost) end\n")


def drain_bench():
    """The rings drained on a thread of their own (core/live/drain.c):
    lost samples, in 5 runs whatever --quick says, of offcpu live on
    pingpong 200000 (about 400k switches) against perf record -a -g -e
    sched:sched_switch, and of a script spending 50 us on each sample at
    -F 20000 -g (or the kernel's limit) on spin against perf record; then
    the workload's slowdown at 999 Hz (live_overhead)."""
    wl = [os.path.join(PROGS, "pingpong"), "200000"]
    pdata = os.path.join(TMP, "drain.data")
    ours, theirs = [], []
    for _ in range(5):
        run([LUAPROF, "run", "offcpu", "--"] + wl)
        ours.append(lost_samples())
        run(["perf", "record", "-q", "-a", "-g", "-e", "sched:sched_switch", "-o", pdata, "--"] + wl)
        theirs.append(lost_in(pdata))
    report("pingpong 200000 offcpu", "lost samples in 5 runs: luaprof vs perf record", sum(ours),
           sum(theirs), "samples")
    print("%-22s luaprof lost %s, perf record %s" % ("", ours, theirs))
    freq = min(20000, int(open("/proc/sys/kernel/perf_event_max_sample_rate").read()))
    spin = [os.path.join(PROGS, "spin"), "1000" if QUICK else "3000"]
    ours, theirs = [], []
    for _ in range(5):
        out = run([LUAPROF, "run", SLOW_LUA, "-F", str(freq), "-g", "--"] + spin)[3]
        ours.append(int(out.split()[3]))
        run(["perf", "record", "-q", "-F", str(freq), "-g", "-o", pdata, "--"] + spin)
        theirs.append(lost_in(pdata))
    report("spin -F%d -g 50us/samp" % freq, "lost samples in 5 runs: luaprof vs perf record", sum(ours),
           sum(theirs), "samples")
    print("%-22s luaprof lost %s, perf record %s" % ("", ours, theirs))
    live_overhead()


def bpftrace_path():
    return subprocess.run(["sh", "-c", "command -v bpftrace"], stdout=subprocess.PIPE).stdout.strip().decode()


LATE = script("late.lua", "luaprof.setup{ events = { 'syscalls:sys_enter_openat' } }\n"
                          "function on_sample(s) print(s.comm, luaprof.read_string(s.pid, s.args.filename)) end\n")


def strings_named():
    """Issue 33's workload: the paths two short-lived cats open (sh -c 'cat
    /etc/hostname; cat /etc/os-release', each cat of a name of its own so
    that bpftrace, which sees the whole machine, counts them alone), named
    by str(args.filename): the one-liner (which keeps the strings at the
    event), a script reading the live process as luaprof did before
    (luaprof.read_string, no strings declared), and bpftrace.  The ratio
    is of paths named to opens, over REPS runs."""
    cat = os.path.join(TMP, "bcat")
    shutil.copy(shutil.which("cat"), cat)
    sh = script("cats.sh", "%s /etc/hostname >/dev/null\n%s /etc/os-release >/dev/null\n" % (cat, cat))
    prog = 'syscalls:sys_enter_openat /comm == "bcat"/ { printf("%s\\n", str(args.filename)) }'
    bt = bpftrace_path()
    named = {"ours": [0, 0], "late": [0, 0], "bpftrace": [0, 0]}
    for _ in range(REPS):
        out = run([LUAPROF, "-x", prog, "--", "/bin/sh", sh], out_path=os.path.join(TMP, "s.out"))[3]
        lines = [l for l in out.splitlines() if l.strip()]
        named["ours"][0] += sum(1 for l in lines if l != "nil")
        named["ours"][1] += len(lines)
        out = run([LUAPROF, "run", LATE, "--", "/bin/sh", sh], out_path=os.path.join(TMP, "s.out"))[3]
        lines = [l for l in out.splitlines() if l.startswith("bcat")]
        named["late"][0] += sum(1 for l in lines if not l.endswith("nil"))
        named["late"][1] += len(lines)
        if bt:
            out = run([bt, "-e", 'tracepoint:syscalls:sys_enter_openat /comm == "bcat"/ '
                       '{ printf("[%s]\\n", str(args->filename)); }', "-c", "/bin/sh " + sh],
                      out_path=os.path.join(TMP, "s.out"))[3]
            lines = [l for l in out.splitlines() if l.startswith("[")]
            named["bpftrace"][0] += sum(1 for l in lines if l != "[]")
            named["bpftrace"][1] += len(lines)
    ratio = {k: v[0] / v[1] if v[1] else 0 for k, v in named.items()}
    print("%-22s paths named of opens: luaprof -x str() %d/%d, read late (before issue 33) %d/%d, "
          "bpftrace %d/%d" % ("2 short-lived cats", *named["ours"], *named["late"], *named["bpftrace"]))
    if bt:
        report("2 short-lived cats", "share of paths named: -x str() vs bpftrace", ratio["ours"],
               ratio["bpftrace"], "share", better="higher")
    report("2 short-lived cats", "share of paths named: -x str() vs read late", ratio["ours"],
           ratio["late"], "share", better="higher")


def strings_cost():
    """What keeping the strings costs per open: openread's R rounds of an
    open and four reads, alone, under the one-liner counting the opens by
    path (str(): the stack copy, libc's open probes, the drain thread's
    reads), the same counting them by flags (no string kept), and bpftrace
    counting by str(args->filename); the wall time each adds, per open."""
    rounds = 20000 if QUICK else 100000
    wl = [os.path.join(PROGS, "openread"), str(rounds)]
    opens = rounds + 2  # and ld.so's two
    with_str = 'syscalls:sys_enter_openat /comm == "openread"/ { count(str(args.filename)) }'
    without = 'syscalls:sys_enter_openat /comm == "openread"/ { count(args.flags) }'
    bt = bpftrace_path()
    alone, ours, bare, bpf = [], [], [], []
    for _ in range(REPS):
        alone.append(run(wl)[0] - 0.3)         # openread's 300 ms sleep at the end
        ours.append(run([LUAPROF, "-x", with_str, "-m", "1024", "--"] + wl)[0] - 0.3)
        bare.append(run([LUAPROF, "-x", without, "-m", "1024", "--"] + wl)[0] - 0.3)
        if bt:
            bpf.append(run([bt, "-e", 'tracepoint:syscalls:sys_enter_openat /comm == "openread"/ '
                            '{ @[str(args->filename)] = count(); }', "-c", " ".join(wl)])[0] - 0.3)
    med = statistics.median
    per = lambda xs: max(med(xs) - med(alone), 0) / opens * 1e6
    name = "openread %dk opens" % (rounds // 1000)
    print("%-22s workload alone %.3f s; us per open: -x str() %.2f, -x without strings %.2f, bpftrace str() %s"
          % (name, med(alone), per(ours), per(bare), "%.2f" % per(bpf) if bpf else "-"))
    if bpf:
        report(name, "us per open: -x count(str()) vs bpftrace", per(ours), per(bpf), "us")
    report(name, "us per open: -x count(str()) vs count(flags)", per(ours), per(bare), "us")


def strings_bench():
    strings_named()
    strings_cost()



SECTIONS = [("live", lambda: (live_overhead(), live_throughput(), symbolized_throughput())),
            ("replay", replay), ("replaywall", replay_wall), ("keepup", keepup),
            ("startup", lambda: (startup(), replay_startup(), record_close())), ("symbols", symbols),
            ("tracepoints", lambda: (tracepoint_replay(), tracepoint_keepup())), ("dwarf", dwarf),
            ("flame", flame), ("map", counting_map), ("guards", guards), ("probes", probes),
            ("stat", stat_bench), ("offcpu", lambda: (offcpu_bench(), offcpu_live())), ("script", script_bench),
            ("switches", switches_bench), ("drain", drain_bench), ("oneliners", oneliner_replay),
            ("real", real_recordings), ("strings", strings_bench)]


def main():
    subprocess.run(["make", "-s", "-C", ROOT, "luaprof", "progs"], check=True)
    print("%-22s %-44s %12s %12s %-8s %7s" % ("workload", "measure", "luaprof", "perf", "unit", "ratio"))
    t0 = time.time()
    for name, fn in SECTIONS:
        if ONLY is None or name in ONLY:
            first, load0 = len(RESULTS), os.getloadavg()[0]
            fn()
            load1 = os.getloadavg()[0]
            for r in RESULTS[first:]:
                # the run each record comes from, for doctable.py's notes
                # under its tables: the section, and the machine's load
                # average (1 min) before and after it
                r["section"], r["load"] = name, [round(load0, 2), round(load1, 2)]
    print("bench: %.0f s" % (time.time() - t0))
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    with open(os.path.join(ROOT, "tests", "bench", "results.jsonl"), "a") as f:
        for r in RESULTS:
            r["quick"] = QUICK
            r["commit"] = commit        # tests/bench/doctable.py names it under its table
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()

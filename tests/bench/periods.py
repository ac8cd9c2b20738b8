#!/usr/bin/env python3
"""periods.py - a long run of a profile script with --every, measured.

    tests/bench/periods.py run DIR SECONDS [--every=1] [--rate=19] [--script=pprof] [--cmd="PROG ARGS"]
    tests/bench/periods.py check DIR [--expect=N]
    tests/bench/periods.py count FILE.pb.gz...

run: starts `luaprof run SCRIPT --every=E --out=DIR/p.EXT -a -F RATE -d SECONDS
-o DIR/run.data` (with --cmd, `-- PROG ARGS` instead of -a) and reads its /proc/PID/status every 0.2 s: each period's
peak VmRSS (the period being the number of files written so far) goes to
DIR/rss.tsv, and at the end the peak RSS of the first and the last hundred
periods (and VmHWM) to stdout.  Then it checks the files, as `check` does.

check: every file DIR/p-*.{pb.gz,folded} is whole (a pprof profile decodes,
gzip and protobuf; a folded file's lines all end in a count), no temporary
file is left, and the files' sample counts add up to the samples of the
run's recording DIR/run.data (perf script's count; luaprof's own line in
DIR/err too).  --expect=N: exactly N files.  Exit 0 when all hold.

count: prints the samples in the pprof files, summed.

Not part of make test: a 17-minute run for docs/performance.md's
"Memory over many periods" and the 30-minute check of issue 25.
"""
import glob, gzip, os, re, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LUAPROF = os.environ.get("LUAPROF", os.path.join(ROOT, "luaprof"))


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of one protobuf message; raises on
    a truncated or malformed one."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("truncated field %d" % f)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        if i > len(b):
            raise ValueError("truncated")
        yield f, wt, v


def pprof_samples(path):
    """The sum of the first value (samples/count) of a gzip'd profile.proto."""
    data = gzip.open(path).read()
    total = 0
    for f, wt, v in fields(data):
        if f != 2:                      # Profile.sample
            continue
        for sf, swt, sv in fields(v):
            if sf != 2:                 # Sample.value
                continue
            if swt == 2:                # packed
                first, _ = varint(sv, 0)
            else:
                first = sv
            total += first
            break
    return total


def folded_samples(path):
    total = 0
    for line in open(path):
        m = re.search(r" (\d+)$", line.rstrip("\n"))
        if not m:
            raise ValueError("a line without its count: %r" % line[:80])
        total += int(m.group(1))
    return total


def files(d):
    return sorted(glob.glob(os.path.join(d, "p-*.pb.gz")) + glob.glob(os.path.join(d, "p-*.folded")))


def check(d, expect=None):
    ok = True
    fs = files(d)
    left = [f for f in os.listdir(d) if f.startswith(".") or ".tmp" in f]
    if left:
        print("FAIL: temporary files left: %s" % left[:5])
        ok = False
    sums = 0
    for f in fs:
        try:
            sums += pprof_samples(f) if f.endswith(".pb.gz") else folded_samples(f)
        except Exception as e:       # noqa: BLE001 - any failure to decode is the finding
            print("FAIL: %s is not whole: %s" % (os.path.basename(f), e))
            ok = False
    out = subprocess.run(["perf", "script", "-i", os.path.join(d, "run.data"), "-F", "period"],
                         capture_output=True, text=True).stdout
    recorded = sum(1 for line in out.splitlines() if line.strip())
    said = None
    if os.path.exists(os.path.join(d, "err")):
        m = re.search(r"wrote (\d+) samples in (\d+) files", open(os.path.join(d, "err")).read())
        said = m and int(m.group(1))
    print("files: %d%s" % (len(fs), "" if expect is None else " (expected %d)" % expect))
    print("samples in the files: %d; in the recording (perf script): %d; luaprof's line: %s"
          % (sums, recorded, said))
    if expect is not None and len(fs) != expect:
        print("FAIL: %d files, not %d" % (len(fs), expect))
        ok = False
    if sums != recorded or (said is not None and said != sums):
        print("FAIL: the files' samples do not add up to the run's")
        ok = False
    print("OK" if ok else "FAILED")
    return ok


def status(pid):
    v = {}
    try:
        for line in open("/proc/%d/status" % pid):
            k, _, rest = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                v[k] = int(rest.split()[0])
    except OSError:
        pass
    return v


def run(d, seconds, every, rate, script, cmd=None):
    os.makedirs(d, exist_ok=True)
    ext = "folded" if script == "folded" else "pb.gz"
    argv = [LUAPROF, "run", script, "--every=%s" % every, "--out=%s/p.%s" % (d, ext),
            "-F", str(rate), "-d", str(seconds), "-o", os.path.join(d, "run.data")]
    argv += ["--"] + cmd.split() if cmd else ["-a"]
    print(" ".join(argv), flush=True)
    with open(os.path.join(d, "err"), "w") as err:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
    peak = {}                            # period index -> peak VmRSS seen during it
    hwm = 0
    while p.poll() is None:
        n = len(files(d))
        st = status(p.pid)
        if "VmRSS" in st:
            peak[n + 1] = max(peak.get(n + 1, 0), st["VmRSS"])
            hwm = max(hwm, st.get("VmHWM", 0))
        time.sleep(0.2)
    with open(os.path.join(d, "rss.tsv"), "w") as f:
        f.write("period\tpeak_rss_kib\n")
        for k in sorted(peak):
            f.write("%d\t%d\n" % (k, peak[k]))
    ks = sorted(peak)
    first, last = ks[:100], ks[-100:]
    print("exit %d; periods measured: %d; VmHWM at the end: %d KiB" % (p.returncode, len(ks), hwm))
    print("peak VmRSS, periods %d-%d: %d KiB; periods %d-%d: %d KiB"
          % (first[0], first[-1], max(peak[k] for k in first), last[0], last[-1],
             max(peak[k] for k in last)))
    return check(d, expect=None)


def opt(name, default):
    for a in sys.argv:
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return default


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        ok = run(sys.argv[2], int(sys.argv[3]), opt("every", "1"), opt("rate", "19"), opt("script", "pprof"),
                 opt("cmd", None))
    elif len(sys.argv) >= 3 and sys.argv[1] == "count":
        print(sum(pprof_samples(f) for f in sys.argv[2:]))
        ok = True
    elif len(sys.argv) >= 3 and sys.argv[1] == "check":
        e = opt("expect", None)
        ok = check(sys.argv[2], int(e) if e else None)
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)

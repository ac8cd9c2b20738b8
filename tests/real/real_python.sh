# Debian's python3 (/usr/bin/python3, built without frame pointers and
# stripped of its static symbols) running a small deterministic script for
# about a second, recorded by perf with -g and with --call-graph dwarf:
# luaprof's top, top --children, script and folded stacks of each file
# equal perf's of the same file, exactly (lib_real.sh).  -X perf is
# real_python_xperf.sh's.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no /usr/bin/python3 (Debian's python3 package)"
cd "$TMP"
# fib (calls), a sieve (slices), string formatting, dicts and a sort: a
# second or so of the interpreter's loop, its objects and libc.
cat > work.py <<'EOF'
import sys
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def sieve(n):
    s = bytearray([1]) * (n + 1)
    s[0:2] = b"\0\0"
    for i in range(2, int(n ** 0.5) + 1):
        if s[i]:
            s[i * i::i] = bytes(len(range(i * i, n + 1, i)))
    return sum(s)
def strings(n):
    d = {}
    for i in range(n):
        d["k%d" % i] = str(i) * 3
    return sorted(d, key=lambda k: d[k])[:3]
t = 0
for r in range(int(sys.argv[1])):
    t += fib(20) + sieve(200000) + len(strings(20000))
print(t)
EOF
"$PY" work.py 1 > /dev/null || fail "$PY cannot run the workload"
perf record -q -g -F 999 -o fp.data -- "$PY" work.py 120 >/dev/null 2>perr || fail "perf record -g failed: $(head -2 perr)"
real_compare fp.data
grep -q '_PyEval_EvalFrameDefault$' fp.top.perf || fail "fp.data: no _PyEval_EvalFrameDefault row in perf report"
perf record -q --call-graph dwarf -F 499 -o dwarf.data -- "$PY" work.py 60 >/dev/null 2>perr ||
	fail "perf record --call-graph dwarf failed: $(head -2 perr)"
real_compare dwarf.data
grep -q '_PyEval_EvalFrameDefault$' dwarf.children.perf || fail "dwarf.data: no _PyEval_EvalFrameDefault row in perf report --children"
real_verdict

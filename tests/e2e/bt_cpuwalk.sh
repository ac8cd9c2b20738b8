# cpuwalk beside bpftrace's cpuwalk.bt on toolwork spin 1000 (one child per
# CPU, tw-spin, pinned to it, spinning for a second of CPU time).  The .bt
# counts every thread's samples; here its predicate /pid/ is /pid && comm
# == "tw-spin"/, so that both count the spinners' alone, as luaprof counts
# its command's.  Both sample each CPU at 99 Hz, on timers of their own
# (the same event, cpu-clock), a moment apart, on a VM whose host takes
# its CPUs away at times: each CPU is in both histograms, and none other,
# with the same count within a third (the most apart of sixteen runs on a
# busy machine: 89 and 118), about 99 for the spinner's second on it
# (40-160: it shares its CPU with what else runs, and the host's time
# away is counted by the CPU's timer).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
sed 's|^/pid/$|/pid \&\& comm == "tw-spin"/|' "$(bt_tool cpuwalk)" > cpuwalk.bt
grep -q 'comm == "tw-spin"' cpuwalk.bt || fail "cpuwalk.bt has no line '/pid/' to add to"
bt_start cpuwalk.bt
expect_status 0 "$LUAPROF" run cpuwalk -- "$PROGS/toolwork" spin 1000
cp "$TMP/out" lp.out
bt_stop
hist() { awk '/^@cpu: $/ {on = 1; next} on && /^$/ {on = 0}
	on {sub(/ +\|.*$/, ""); c = $NF; sub(/ +[0-9]+$/, ""); if (c > 0) print $0 "\t" c}' "$1"; }
hist lp.out > lp.hist
hist "$BT_OUT" > bt.hist
python3 - bt.hist lp.hist "$(nproc)" > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "cpuwalk's histogram differs from the .bt's: $(tail -1 cmp.txt)"; }
import sys
def read(p):
    return dict((k, int(v)) for k, v in (l.split("\t") for l in open(p).read().splitlines()))
bt, lp, n = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3])
cpus = ["[%d, %d)" % (c, c + 1) for c in range(n)]
assert sorted(lp) == sorted(cpus) and sorted(bt) == sorted(cpus), "CPUs: bpftrace %s, luaprof %s" % (bt, lp)
for c in cpus:
    assert 40 <= lp[c] <= 160, "luaprof: %d samples of a second's spin on CPU %s" % (lp[c], c)
    assert abs(bt[c] - lp[c]) <= max(5, max(bt[c], lp[c]) // 3), "CPU %s: bpftrace %d, luaprof %d" % (c, bt[c], lp[c])
print(", ".join("CPU %s: %d and %d" % (c[1:c.index(",")], bt[c], lp[c]) for c in cpus))
PY
echo "cpuwalk: samples per CPU (bpftrace and luaprof): $(tail -1 cmp.txt)"
exit 0

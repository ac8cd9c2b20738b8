# loads beside bpftrace reading the load averages every second for 3 s.
# bpftrace's loads.bt reads the kernel's variable avenrun (kaddr), which
# it cannot resolve here ("Failed to resolve kernel symbol: avenrun"), and
# a luaprof script reads no kernel memory: both read /proc/loadavg, the
# same values (printed by the kernel with two decimals, where loads.bt
# prints three), bpftrace with cat() each second.  Each of luaprof's lines
# (at least two: a line a second, the run's last partial second left out)
# has a bpftrace line of the same second, or of the one before or after
# (each tool's seconds start at its own start), with the same averages.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
cat > loads.bt <<'BT'
BEGIN
{
	printf("Reading load averages... Hit Ctrl-C to end.\n");
}

interval:s:1
{
	time("%H:%M:%S ");
	cat("/proc/loadavg");
}
BT
bt_start loads.bt
expect_status 0 "$LUAPROF" run loads -- sleep 3
cp "$TMP/out" lp.out
bt_stop
awk '/ load averages: / {print $1, $4, $5, $6}' lp.out > lp.rows
awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / {print $1, $2, $3, $4}' "$BT_OUT" > bt.rows
python3 - bt.rows lp.rows > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "loads' lines differ from bpftrace's: $(tail -1 cmp.txt)"; }
import sys
def rows(p):
    out = []
    for l in open(p).read().splitlines():
        t, avg = l.split(" ", 1)
        h, m, s = map(int, t.split(":"))
        out.append(((h * 60 + m) * 60 + s, avg))
    return out
bt, lp = rows(sys.argv[1]), rows(sys.argv[2])
assert len(lp) >= 2, "%d lines from luaprof in 3 s" % len(lp)
for t, avg in lp:
    near = [a for u, a in bt if abs(u - t) <= 1 or abs(u - t) >= 86399]
    assert avg in near, "luaprof's %s at %d: bpftrace's of that second: %s" % (avg, t, near)
print("%d lines" % len(lp))
PY
echo "loads: $(cat cmp.txt), with the averages bpftrace reads"
exit 0

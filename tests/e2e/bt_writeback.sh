# writeback beside bpftrace's writeback.bt on toolwork writeback (256 KiB
# written to a file, then syncfs: the flusher writes the file system's
# dirty pages, "sync").  Writeback is the machine's: both tools follow the
# whole system, bpftrace from before luaprof starts to after it ends, so
# that each of luaprof's rows is one of bpftrace's (bpftrace prints each
# CPU's rows as it reads them, not in the order of their times: the rows
# are compared as sets), and toolwork's sync is among them: the same
# device, reason and pages, as bpftrace prints them (nr_pages & 0xffff,
# and its reason names, which differ from the kernel's from 5 on), and,
# for at least half of them, the same duration within 0.1 ms (the works of
# one device at once, a sync beside a periodic one, pair each end with
# the device's last start, which the two tools may order apart when they
# come within microseconds on two CPUs).
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool writeback)"
expect_status 0 "$LUAPROF" run writeback -- "$PROGS/toolwork" writeback "$TMP" 256
cp "$TMP/out" lp.out
rows() { awk -v OFS='\t' '$1 ~ /^[0-9][0-9]:/ && NF == 5 {print $2, $3, $4, $5}' "$1"; }
rows lp.out > lp.rows
grep -q '	sync	' lp.rows || { cat lp.out; fail "luaprof saw no sync writeback after toolwork's syncfs"; }
# until bpftrace has printed as many rows as luaprof's last key has there
# (nr_pages & 0xffff in Python: awk's numbers are doubles)
{ read -r key; read -r want; } < <(python3 -c '
import sys
rows = [l.split("\t")[:3] for l in open(sys.argv[1]).read().splitlines()]
key = lambda r: "%s +%d +%s" % (r[0], int(r[1]) & 0xffff, r[2])
print(key(rows[-1]))
print(sum(key(r) == key(rows[-1]) for r in rows))' lp.rows)
bt_stop "^[0-9:]+ +$key " "$want"
rows "$BT_OUT" > bt.rows
python3 - bt.rows lp.rows > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "writeback's rows are not writeback.bt's: $(tail -1 cmp.txt)"; }
import sys
# bpftrace's names of the reasons (writeback.bt's table), the kernel's
bt_names = ["background", "vmscan", "sync", "periodic", "laptop_timer", "free_more_memory",
            "fs_free_space", "forker_thread"]
kernel = ["background", "vmscan", "sync", "periodic", "laptop_timer", "fs_free_space",
          "forker_thread", "foreign_flush"]
def rows(p):
    return [l.split("\t") for l in open(p).read().splitlines()]
bt = rows(sys.argv[1])
left = list(bt)
near = 0
for dev, pages, reason, ms in rows(sys.argv[2]):
    r = bt_names[kernel.index(reason)] if reason in kernel else reason
    key = [dev, str(int(pages) & 0xffff), r]
    found = [b for b in left if b[:3] == key]
    assert found, "luaprof's row %s is none of bpftrace's" % [dev, pages, reason, ms]
    close = [b for b in found if abs(float(b[3]) - float(ms)) <= 0.1]
    near += bool(close) or ms == "0.000"
    left.remove((close or found)[0])
n = len(bt) - len(left)
# a duration runs from the device's last writeback_start: works of one
# device at once (a sync beside a periodic one) pair as the two tools
# order their events, which may differ within microseconds
assert near * 2 >= n, "%d of %d durations differ from bpftrace's by more than 0.1 ms" % (n - near, n)
print("%d rows (%d durations within 0.1 ms)" % (n, near))
PY
echo "writeback: luaprof's $(cat cmp.txt), toolwork's sync among them, are writeback.bt's"
exit 0

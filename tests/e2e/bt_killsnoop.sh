# killsnoop beside bpftrace's killsnoop.bt on toolwork kill (kill() of a
# child with signal 0 and SIGCONT, of a pid that does not exist, of the
# process group as 0 and as -PGID, then SIGKILL): the same rows (pid,
# command, signal, target, result; the time column is each tool's wall
# clock when it prints), and the values toolwork makes.  What luaprof does
# better: bpftrace's tool keeps a call only when its target is not 0
# (its predicate is /@tpid[tid]/), so kill(0, 0) is missing from its rows;
# luaprof prints it.
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool killsnoop)"
expect_status 0 "$LUAPROF" run killsnoop -- "$PROGS/toolwork" kill
cp "$TMP/out" lp.out
pid=$(awk '$3 == "toolwork" {print $2; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no row of toolwork"; }
bt_stop "^[0-9:]+ +$pid " 5
rows() { awk -v p="$pid" '$2 == p {$1 = ""; print substr($0, 2)}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
# toolwork's process group: whatever luaprof started it in (-N, N > 0)
pgid=$(awk 'NR == 5 && $4 ~ /^-[1-9][0-9]*$/ {print $4}' lp.rows)
sed "s/CHILD/$(awk 'NR == 1 {print $4}' lp.rows)/; s/PGID/${pgid:-PGID}/; s/PID/$pid/" > want.rows <<'ROWS'
PID toolwork 0 CHILD 0
PID toolwork 18 CHILD 0
PID toolwork 0 1073741822 -3
PID toolwork 0 0 0
PID toolwork 0 PGID 0
PID toolwork 9 CHILD 0
ROWS
diff want.rows lp.rows || fail "luaprof's rows are not the calls toolwork made"
grep -v ' 0 0 0$' lp.rows > lp.nonzero
bt_same "killsnoop's rows differ from killsnoop.bt's (bar kill(0, 0), which bpftrace's leaves out)" bt.rows lp.nonzero
echo "killsnoop: the 6 calls; bpftrace's killsnoop.bt the same 5 and not kill(0, 0)"
exit 0

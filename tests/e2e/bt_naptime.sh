# naptime beside bpftrace's naptime.bt on toolwork nap (a child making
# the nanosleep system call for 10, 20, 0 and 30 ms): the same rows
# (parent's pid and command, pid, command, seconds; the time column is
# each tool's wall clock when it prints), the zero sleep left out by both.
# The sleep asked for is in the caller's memory: luaprof reads it when it
# handles the call, a moment later (naptime.lua's sleep_of), so the
# workload's processes stay a while after their last call
# (TOOLWORK_LINGER); a value luaprof could not read ("-": the process
# had gone) matches any, and is counted.  Capture at the event will make
# every value comparable without the wait.
# What luaprof does better: the forked child has not yet faulted in the
# page of its first timespec (fork copies no page table entries of a
# file's mapping, here .rodata), so bpftrace, which cannot fault a page in
# from its probe, reads nothing and its predicate drops the 10 ms sleep;
# luaprof reads it through /proc/PID/mem, which faults it in.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool naptime)"
TOOLWORK_LINGER=300 expect_status 0 "$LUAPROF" run naptime -- "$PROGS/toolwork" nap
cp "$TMP/out" lp.out
pid=$(awk '$5 == "toolwork" {print $4; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no row of toolwork"; }
bt_stop " $pid +toolwork +0\.030$" 1
rows() { awk -v p="$pid" -v OFS='\t' '$4 == p {print $2, $3, $4, $5, $6}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
awk -F'\t' '{print $5}' bt.rows | tr '\n' ' ' > secs
note=
case $(cat secs) in
"0.010 0.020 0.030 ") ;;
"0.020 0.030 ") note="; bpftrace missed the first sleep (its page not faulted in yet), luaprof did not"
	first=$(awk -F'\t' 'NR == 1 {print $5}' lp.rows)
	[ "$first" = 0.010 ] || [ "$first" = - ] || fail "luaprof's first sleep is $first, not toolwork's 10 ms"
	sed 1d lp.rows > lp.rest && mv lp.rest lp.rows ;;
*) cat "$BT_OUT"; fail "bpftrace's naptime.bt: sleeps $(cat secs), not toolwork's" ;;
esac
awk -F'\t' '$5 != "-"' lp.rows | head -1 | grep -q . || fail "luaprof read no sleep at all"
python3 "$ROOT/tests/e2e/btrows.py" bt.rows lp.rows > cmp.txt 2>&1 ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "naptime's rows differ from naptime.bt's: $(tail -1 cmp.txt)"; }
echo "naptime: $(cut -d, -f1-2 cmp.txt), as naptime.bt prints them$note"
exit 0

# syncsnoop beside bpftrace's syncsnoop.bt on toolwork sync (fsync,
# fdatasync, sync_file_range, syncfs, msync and sync, once each): the same
# rows (pid, command, event; the time column is each tool's wall clock
# when it prints), those six in that order.
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool syncsnoop)"
expect_status 0 "$LUAPROF" run syncsnoop -- "$PROGS/toolwork" sync "$TMP"
cp "$TMP/out" lp.out
pid=$(awk '$3 == "toolwork" {print $2; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no row of toolwork"; }
bt_stop "^[0-9:]+ +$pid " 6
rows() { awk -v p="$pid" '$2 == p {print $2, $3, $4}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
for c in fsync fdatasync sync_file_range syncfs msync sync; do
	echo "$pid toolwork tracepoint:syscalls:sys_enter_$c"
done > want.rows
diff want.rows lp.rows || fail "luaprof's rows are not the calls toolwork made"
bt_same "syncsnoop's rows differ from syncsnoop.bt's" bt.rows lp.rows
echo "syncsnoop: the 6 calls, as syncsnoop.bt prints them"
exit 0

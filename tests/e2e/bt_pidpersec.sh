# pidpersec beside bpftrace's pidpersec.bt on toolwork fork 30 (thirty
# children that exit at once): the same forks in all.  The .bt counts the
# whole machine's forks; here it is given a predicate, /comm ==
# "tw-pidpersec"/ (sched_process_fork runs in the parent; toolwork runs
# under that name, TOOLWORK_NAME, which no other test's has), so that
# both count the workload's alone.  The seconds do not line up (each tool's start its
# own), so the lines' sum is compared: luaprof's, every line with the last
# partial second's; bpftrace's, every line (the workload is over before
# its last line: it drops the partial second at Ctrl-C).
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
sed 's|^tracepoint:sched:sched_process_fork$|& /comm == "tw-pidpersec"/|' "$(bt_tool pidpersec)" > pidpersec.bt
grep -q '/comm == "tw-pidpersec"/' pidpersec.bt || fail "pidpersec.bt has no line 'tracepoint:sched:sched_process_fork' to filter"
bt_start pidpersec.bt
TOOLWORK_NAME=tw-pidpersec expect_status 0 "$LUAPROF" run pidpersec -- "$PROGS/toolwork" fork 30
cp "$TMP/out" lp.out
sum() { awk '/PIDs\/sec: @: / {n += $NF} END {print n + 0}' "$1"; }
# the workload's forks are all in once bpftrace prints a second whose
# count brings the sum to 30: wait for lines until then
for i in $(seq 100); do [ "$(sum "$BT_OUT")" -ge 30 ] && break; sleep 0.1; done
bt_stop
[ "$(sum lp.out)" = 30 ] || { cat lp.out; fail "luaprof counted $(sum lp.out) forks, toolwork made 30"; }
[ "$(sum "$BT_OUT")" = 30 ] || { cat "$BT_OUT"; fail "bpftrace's pidpersec.bt counted $(sum "$BT_OUT") forks of toolwork's, luaprof 30"; }
echo "pidpersec: 30 forks, as pidpersec.bt counts them"
exit 0

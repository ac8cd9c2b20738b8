# An ordinary user under kernel.perf_event_paranoid=2 may not sample the
# kernel: luaprof falls back to user-only (:u) with one line, as perf does.
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" = 2 ] || skip "kernel.perf_event_paranoid is not 2"
cp "$LUAPROF" "$CHECKS/comms.lua" "$PROGS/spin" "$TMP/"
chmod -R a+rX "$TMP"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$TMP/luaprof" run "$TMP/comms.lua" -e cpu-clock -- "$TMP/spin" 100 >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "luaprof failed as an unprivileged user"; }
expect_grep "kernel samples not allowed .*paranoid=2.*user space only" "$TMP/err"
expect_grep '^event cpu-clock:u [0-9]+$' "$TMP/out"

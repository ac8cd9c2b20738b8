# Not root.  With kernel.perf_event_paranoid at 2 (the default), a normal
# user profiles the user space of their own command and of their own
# processes (-p), with the one-line notice, and their context switches;
# -a, kernel samples and other users' processes are refused with one line
# naming the setting and the value they need; recordings are written mode
# 0600.  At 3 and 4 (Debian's
# and Ubuntu's hardening) every run is refused with one line, and the
# command never starts.  The sysctl is changed only for those two runs and
# restored at once, also when the test fails or is killed.
# test: alone
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
level=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$level" = 2 ] || skip "kernel.perf_event_paranoid is $level, not 2"
cp "$LUAPROF" "$TMP/luaprof"   # luaprof-asan under make check-asan
cp "$CHECKS/comms.lua" "$CHECKS/end_count.lua" "$CHECKS/switchlog.lua" "$PROGS/spin" "$PROGS/sleeper" "$TMP/"
mkdir "$TMP/u"
chmod -R a+rX "$TMP"
chmod a+rwx "$TMP/u"
cd "$TMP/u"
# the user has a home of its own (perf's build-id cache goes there), as
# a real user does: the tests' HOME is root's
as_user() { HOME=$TMP/u setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# one_line PATTERN: stderr is the one line, matching PATTERN (the no-PMU
# notice aside).
one_line() {
	grep -v "no hardware 'cycles' event" "$TMP/err" > "$TMP/err.1"
	[ "$(wc -l < "$TMP/err.1")" = 1 ] || { cat "$TMP/err"; fail "expected one line on stderr"; }
	expect_grep "$1" "$TMP/err.1"
}

# Its own command: user space, with the notice.
expect_status 0 as_user "$TMP/luaprof" run "$TMP/comms.lua" -e cpu-clock -- "$TMP/spin" 100
one_line "^luaprof: kernel samples not allowed \(kernel\.perf_event_paranoid=2\): profiling user space only \(:u\)$"
expect_grep '^event cpu-clock:u [0-9]+$' "$TMP/out"

# Its own command's context switches (on_switch): no tracepoint, no root:
# sleeper's 5 naps at least (switch_events checks them exactly).
expect_status 0 as_user "$TMP/luaprof" run "$TMP/switchlog.lua" -e cpu-clock -- "$TMP/sleeper" 5 5
[ "$(grep -c " OUT$" "$TMP/out")" -ge 5 ] || { cat "$TMP/out"; fail "as a user, on_switch did not see sleeper's 5 switches out"; }

# Its own process, and a recording of it: mode 0600, read by perf.
setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/spin" 3000 & pid=$!
for i in $(seq 50); do       # setpriv has become the user and run spin
	[ "$(readlink /proc/$pid/exe)" = "$TMP/spin" ] && break
	sleep 0.05
done
expect_status 0 as_user "$TMP/luaprof" record -e cpu-clock -p $pid -d 0.3 -o own.data
kill $pid; wait $pid 2>/dev/null
one_line "kernel samples not allowed"
[ "$(stat -c %a own.data)" = 600 ] || fail "the recording is mode $(stat -c %a own.data), not 600"
[ "$(stat -c %U own.data)" = nobody ] || fail "the recording belongs to $(stat -c %U own.data)"
expect_status 0 "$LUAPROF" run "$TMP/end_count.lua" -i own.data
expect_grep "^on_end samples [1-9]" "$TMP/out"

# What paranoid 2 refuses: every CPU, kernel samples, another user's process.
expect_status 255 as_user "$TMP/luaprof" run "$TMP/comms.lua" -a -d 0.2
one_line "^luaprof: .*sampling every CPU \(-a\) needs kernel\.perf_event_paranoid=0 or lower \(it is 2\)"
expect_status 255 as_user "$TMP/luaprof" run "$TMP/comms.lua" -e cpu-clock:k -- "$TMP/spin" 50
one_line "^luaprof: .*kernel samples need kernel\.perf_event_paranoid=1 or lower \(it is 2\)"
sleep 5 & other=$!
expect_status 255 as_user "$TMP/luaprof" run "$TMP/comms.lua" -p $other -d 0.2
kill $other; wait $other 2>/dev/null
one_line "^luaprof: .*process $other is not yours.*run as root"

# 3 and 4: every run refused before the command starts.
restore() { sysctl -q kernel.perf_event_paranoid="$level"; }
trap 'restore; rm -rf "$TMP"' EXIT
trap 'restore; exit 1' INT TERM HUP
for strict in 3 4; do
	sysctl -q kernel.perf_event_paranoid=$strict || fail "cannot set kernel.perf_event_paranoid"
	as_user "$TMP/luaprof" run "$TMP/comms.lua" -e cpu-clock -- "$TMP/spin" 50 0 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	restore
	[ $rc = 255 ] || { cat "$TMP/err"; fail "at paranoid $strict luaprof exited $rc, not 255"; }
	one_line "^luaprof: kernel\.perf_event_paranoid=$strict lets no user without CAP_PERFMON profile.*'sysctl kernel\.perf_event_paranoid=2'$"
	[ ! -s "$TMP/out" ] || fail "at paranoid $strict the script ran"
done
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$level" ] || fail "kernel.perf_event_paranoid was not restored"

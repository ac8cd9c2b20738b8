# Tracepoint mistakes stop the run before anything starts, each with one
# line naming the problem and the fix, and exit 255: an unknown tracepoint,
# a malformed glob or one that matches nothing, tracefs not mounted (in a
# private mount namespace, so the machine's mount is untouched), and a
# tracepoint as an ordinary user under kernel.perf_event_paranoid=2.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
printf 'function on_end() print("ran") end\n' > "$TMP/s.lua"
one_line() {   # one_line PATTERN: exit 255, one line on stderr matching it, nothing ran
	expect_grep "$1" "$TMP/err"
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "more than one line for '$1'"; }
	grep -q ran "$TMP/out" && fail "the script ran despite '$1'"
	return 0
}
unknown() {
	expect_status 255 "$LUAPROF" run "$TMP/s.lua" -e sched:no_such_event -- true
	one_line "^luaprof: unknown tracepoint 'sched:no_such_event': no such event in /sys/kernel(/debug)?/tracing/events \(see 'luaprof list sched:\*'\)$"
}

bad_glob() {
	expect_status 255 "$LUAPROF" run "$TMP/s.lua" -e 'sched:sched_[wake' -- true
	one_line "^luaprof: bad glob 'sched:sched_\[wake': a '\[' has no closing '\]'$"
}

matching_nothing() {
	expect_status 255 "$LUAPROF" run "$TMP/s.lua" -e 'nosuchsystem:*' -- true
	one_line "^luaprof: no tracepoint matches 'nosuchsystem:\*'"
}

fields_unknown() {
	expect_status 255 "$LUAPROF" list --fields sched:no_such_event
	one_line "^luaprof: unknown tracepoint 'sched:no_such_event'"
}

no_tracefs() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v unshare >/dev/null || skip "no unshare: tracefs-not-mounted case not run"
	# tracefs unmounted in a mount namespace of our own: the machine keeps its mount.
	unshare -m sh -c 'for d in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
		umount -l "$d" 2>/dev/null; done; exec "$@"' sh \
		"$LUAPROF" run "$TMP/s.lua" -e sched:sched_switch -- true >"$TMP/out" 2>"$TMP/err"
	[ $? = 255 ] || { cat "$TMP/err"; fail "no tracefs: exit status is not 255"; }
	one_line "^luaprof: tracefs is not mounted \(needed for tracepoint 'sched:sched_switch'\): mount it with 'mount -t tracefs nodev /sys/kernel/tracing'$"
	# luaprof list still lists the rest, and says why there are no tracepoints.
	unshare -m sh -c 'for d in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
		umount -l "$d" 2>/dev/null; done; exec "$@"' sh "$LUAPROF" list >"$TMP/out" 2>"$TMP/err" ||
		fail "luaprof list without tracefs failed"
	expect_grep '^  cpu-clock ' "$TMP/out"
	! grep -q 'Tracepoint event' "$TMP/out" || fail "tracepoints listed without tracefs"
	expect_grep "^luaprof: tracefs is not mounted, so no tracepoints are listed: mount it with 'mount -t tracefs nodev /sys/kernel/tracing'$" "$TMP/err"
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		fail "the machine lost its tracefs mount"
}

unprivileged() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" = 2 ] ||
		skip "not root-switchable or kernel.perf_event_paranoid is not 2: unprivileged case not run"
	cp "$LUAPROF" "$TMP/luaprof"    # luaprof-asan under make check-asan
	chmod -R a+rX "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TMP/luaprof" run "$TMP/s.lua" -e sched:sched_switch -- true >"$TMP/out" 2>"$TMP/err"
	[ $? = 255 ] || { cat "$TMP/err"; fail "a tracepoint as nobody: exit status is not 255"; }
	one_line "^luaprof: (cannot read tracepoint 'sched:sched_switch' in .*: permission denied \(tracefs is root's: run as root|cannot open event 'sched:sched_switch' on cpu [0-9]+: .*: not allowed; a tracepoint's data needs root)"
}

scenario "unknown tracepoint" unknown
scenario "malformed glob" bad_glob
scenario "glob matching nothing" matching_nothing
scenario "list --fields of an unknown tracepoint" fields_unknown
scenario "tracefs not mounted" no_tracefs
scenario "a tracepoint as an ordinary user" unprivileged
scenarios_done

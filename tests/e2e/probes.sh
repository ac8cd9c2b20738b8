# Probes counted exactly, their values right: a function called exactly
# 777 times with the arguments 0..776, in a PIE program and in a shared
# library loaded with dlopen after the start: uprobe gives 777 samples with
# s.args[1] running 0..776 in order, uretprobe 777 with s.retval == 2 * arg.
# A USDT probe without a semaphore (register, signed int, constant and
# stack-memory arguments) fired exactly N times; one guarded by a
# semaphore, whose code runs only while luaprof is attached.  Watchpoints
# are tests/e2e/watchpoints.sh.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "this kernel has no uprobe PMU"
[ "$(id -u)" = 0 ] || skip "placing uprobes needs root (or CAP_PERFMON)"
P=$PROGS/probed
readelf -h "$P" | grep -q 'DYN' || fail "$P is not PIE: the test wants a PIE program"
# need_usdt: skips unless the workloads were built with their USDT probes.
need_usdt() {
	readelf -n "$P" 2>/dev/null | grep -q 'Name: tick' ||
		skip "no USDT probes in the workloads: <sys/sdt.h> was missing when they were built (make test-deps installs systemtap-sdt-dev)"
}
cd "$TMP"

# PIE: entry and return of twice(), 777 calls
pie() {
	expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" -e "uprobe:$P:twice,uretprobe:$P:twice" -- "$P" calls 777
	expect_grep "^event	uprobe:$P:twice	777	0	0$" "$TMP/out"
	expect_grep "^event	uretprobe:$P:twice	777	0	0$" "$TMP/out"
	expect_grep '^lost	0$' "$TMP/out"
}

# a library the program loads after its start, by a path relative to here
library() {
	cd "$PROGS"
	expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" \
		-e 'uprobe:./libprobelib.so:lib_twice,uretprobe:./libprobelib.so:lib_twice' -- ./probed lib "$PROGS/libprobelib.so" 777
	expect_grep '^event	uprobe:./libprobelib.so:lib_twice	777	0	0$' "$TMP/out"
	expect_grep '^event	uretprobe:./libprobelib.so:lib_twice	777	0	0$' "$TMP/out"
}

# a program found on $PATH, by its name
on_path() {
	cd "$PROGS"
	PATH=$PROGS:$PATH expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" -e "uprobe:probed:twice" -- probed calls 50
	expect_grep '^event	uprobe:probed:twice	50	0	0$' "$TMP/out"
}

# s.args is every event's own arguments, in one run of a tracepoint and
# probes, their samples interleaved (issue 22: one name, s.args).
args_mix() {
	if [ -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/format ] ||
	   [ -r /sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/format ]; then
		expect_status 0 "$LUAPROF" run "$CHECKS/argsmix.lua" \
			-e "raw_syscalls:sys_enter,uprobe:$P:twice,uretprobe:$P:twice" -- "$P" calls 300
		expect_grep "^argsmix	true	300	300	0$" "$TMP/out"
	fi
}

# USDT, no semaphore: -8@%rax -4@%edx -4@$5 -8@-8(%rbp): i, -i, 5, 3*i
usdt() {
	need_usdt
	expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" -e "usdt:$P:luaprof_test:tick" -- "$P" usdt 777
	expect_grep "^event	usdt:$P:luaprof_test:tick	777	0	0$" "$TMP/out"
	expect_grep '^usdt_args	0	0	5	0$' "$TMP/out"
	expect_grep '^usdt_args	2	-2	5	6$' "$TMP/out"
}

# USDT with a semaphore: the guarded code runs only while the probe is attached
usdt_semaphore() {
	need_usdt
	S=$PROGS/probesema
	"$S" 300 > "$TMP/alone" || fail "probesema failed"
	grep -q '^guarded ran 0 of 300$' "$TMP/alone" || fail "the guarded code ran without a tracer: $(cat "$TMP/alone")"
	expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" -e "usdt:$S:luaprof_test:guarded" -- "$S" 300
	expect_grep '^guarded ran 300 of 300$' "$TMP/out"
	expect_grep "^event	usdt:$S:luaprof_test:guarded	300	0	0$" "$TMP/out"
}

scenario "PIE" pie
scenario "a library loaded after the start" library
scenario "a program found on the PATH" on_path
scenario "s.args, a tracepoint and probes mixed" args_mix
scenario "USDT" usdt
scenario "USDT with a semaphore" usdt_semaphore
scenarios_done

# Tracepoints counted exactly: a program making exactly 1000 getppid calls
# gives 1000 syscalls:sys_enter_getppid samples (a tracepoint is sampled at
# every hit), and 1000 raw_syscalls:sys_enter samples whose id field is
# luaprof.syscall_nr("getppid"); a glob expands to every matching
# tracepoint; -c samples every Nth hit instead.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoint data needs root"
exact() {
	expect_status 0 "$LUAPROF" run "$CHECKS/tpcount.lua" \
		-e syscalls:sys_enter_getppid -e raw_syscalls:sys_enter -- "$PROGS/tpcalls" 1000
	expect_grep '^event	syscalls:sys_enter_getppid	1000$' "$TMP/out"
	expect_grep '^getppid_by_nr	1000$' "$TMP/out"
	expect_grep '^syscall	getppid	1000$' "$TMP/out"
	expect_grep '^syscall	close	[0-9]+$' "$TMP/out"
}

# The table is this machine's: the header's number for getppid.
table() {
	want=$(echo '#include <sys/syscall.h>
SYS_getppid' | cc -E -P - | tail -1)
	echo 'print(luaprof.syscall_nr("getppid"), luaprof.syscall_name('"$want"'), luaprof.syscall_nr("nope"))' > "$TMP/nr.lua"
	expect_status 0 "$LUAPROF" run "$TMP/nr.lua" -- true
	expect_grep "^$want	getppid	nil$" "$TMP/out"
}

# A glob: each sys_enter_getp* tracepoint is an event; only getppid fires 1000 times.
glob() {
	expect_status 0 "$LUAPROF" run "$CHECKS/tpcount.lua" -e 'syscalls:sys_enter_getp*' -- "$PROGS/tpcalls" 1000
	expect_grep '^event	syscalls:sys_enter_getppid	1000$' "$TMP/out"
	! grep -q '^event	syscalls:sys_enter_getpid	' "$TMP/out" || fail "getpid was never called"
}

# -c 10: every tenth hit, as perf -c.
every_nth() {
	expect_status 0 "$LUAPROF" run "$CHECKS/tpcount.lua" -c 10 -e syscalls:sys_enter_getppid -- "$PROGS/tpcalls" 1000
	expect_grep '^event	syscalls:sys_enter_getppid	100$' "$TMP/out"
}

scenario "exact counts" exact
scenario "the syscall table is this machine's" table
scenario "a glob" glob
scenario "-c 10" every_nth
scenarios_done

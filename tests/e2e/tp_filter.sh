# --filter after a tracepoint -e sets the kernel's filter on it: the kernel
# drops what does not match, so fewer samples come and none that does not
# match.  luaprof.setup{filter=} does the same for a script's events, and
# the command line's --filter replaces it.  Filters the kernel rejects,
# and --filter without a tracepoint before it, stop the run with one line.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoint data needs root"
# Without a filter, the closes of other fds come too.
unfiltered() {
	expect_status 0 "$LUAPROF" run "$CHECKS/closefd.lua" -e syscalls:sys_enter_close -- "$PROGS/tpcalls" 10
	read -r _ all _ others < "$TMP/out"
	[ "$others" -ge 1 ] || fail "without a filter, expected closes of other fds too (got $all closes)"
}

# --filter: only the matching close comes.
filtered() {
	expect_status 0 "$LUAPROF" run "$CHECKS/closefd.lua" -e syscalls:sys_enter_close \
		--filter 'fd == 123456' -- "$PROGS/tpcalls" 10
	expect_grep '^closes	1	other	0$' "$TMP/out"
}

# The script's own filter, with no flags.
script_filter() {
	expect_status 0 "$LUAPROF" run "$CHECKS/closefd.lua" -A setup -- "$PROGS/tpcalls" 10
	expect_grep '^closes	1	other	0$' "$TMP/out"
}

# The command line's filter instead of the script's: every close but the
# one, counted without a filter first.
replaced() {
	expect_status 0 "$LUAPROF" run "$CHECKS/closefd.lua" -e syscalls:sys_enter_close -- "$PROGS/tpcalls" 10
	read -r _ all _ others < "$TMP/out"
	expect_status 0 "$LUAPROF" run "$CHECKS/closefd.lua" -A setup -e syscalls:sys_enter_close \
		--filter 'fd != 123456' -- "$PROGS/tpcalls" 10
	expect_grep "^closes	$others	other	$others\$" "$TMP/out"
}

# Two --filter options are and-ed, as perf's: nothing matches both.
and_ed() {
	expect_status 0 "$LUAPROF" run "$CHECKS/closefd.lua" -e syscalls:sys_enter_close \
		--filter 'fd == 123456' --filter 'fd == 3' -- "$PROGS/tpcalls" 10
	expect_grep '^closes	0	other	0$' "$TMP/out"
}

# Mistakes: a filter the kernel rejects.
rejected() {
	expect_status 255 "$LUAPROF" run "$CHECKS/closefd.lua" -e syscalls:sys_enter_close \
		--filter 'no_such_field == 1' -- "$PROGS/tpcalls" 10
	expect_grep "^luaprof: the kernel rejects the filter 'no_such_field == 1' on 'syscalls:sys_enter_close'" "$TMP/err"
	[ "$(wc -l < "$TMP/err")" = 1 ] || fail "a rejected filter printed more than one line"
	! [ -s "$TMP/out" ] || fail "a rejected filter still ran the script"
}

# --filter after an -e that is no tracepoint, and before any -e.
not_tracepoint() {
	expect_status 255 "$LUAPROF" run "$CHECKS/closefd.lua" -e cpu-clock --filter 'fd == 1' -- true
	expect_grep "^luaprof: --filter applies to the tracepoints of the -e before it, and 'cpu-clock' is not one" "$TMP/err"
}

no_e_before() {
	expect_status 255 "$LUAPROF" run "$CHECKS/closefd.lua" --filter 'fd == 1' -e sched:sched_switch -- true
	expect_grep "^luaprof: --filter needs a tracepoint -e before it" "$TMP/err"
}

scenario "without a filter" unfiltered
scenario "--filter" filtered
scenario "the script's own filter" script_filter
scenario "the command line's filter replaces the script's" replaced
scenario "two filters are and-ed" and_ed
scenario "a filter the kernel rejects" rejected
scenario "--filter after an -e that is no tracepoint" not_tracepoint
scenario "--filter before any -e" no_e_before
scenarios_done

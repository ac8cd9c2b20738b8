# Probe and event mistakes stop the run before anything starts, each with
# one line naming the problem (and the fix) and exit 255: a missing file or
# function for a uprobe, a USDT probe that does not exist, kprobes on a
# kernel without a kprobe PMU, an unknown PMU or term, a malformed group, a
# watchpoint on a symbol that is not a variable.  luaprof stat refuses -o.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
printf 'function on_end() print("ran") end\n' > "$TMP/s.lua"
P=$PROGS/probed
PS='.*/probed'  # P in a message: shown by its start and end when long (lp_show)
one_line() {   # one_line PATTERN ARGS...: exit 255, one line on stderr matching it, nothing ran
	local pat=$1; shift
	expect_status 255 "$LUAPROF" run "$TMP/s.lua" "$@"
	expect_grep "$pat" "$TMP/err"
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "more than one line for $*"; }
	grep -q ran "$TMP/out" && fail "the script ran despite: $*"
	return 0
}
if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	one_line "^luaprof: cannot find '/no/such/prog' for 'uprobe:/no/such/prog:f': no such file$" \
		-e uprobe:/no/such/prog:f -- true
	one_line "^luaprof: cannot find 'nosuchprog' for 'uprobe:nosuchprog:f': no such file, program on \\\$PATH, or library" \
		-e uprobe:nosuchprog:f -- true
	one_line "^luaprof: no function 'twicee' in $PS \\(for 'uprobe:$PS:twicee'; its functions: nm -D --defined-only $PS" \
		-e "uprobe:$P:twicee" -- true
	one_line "^luaprof: 'watched' in $PS is not a function" -e "uretprobe:$P:watched" -- true
	one_line "^luaprof: no USDT probe 'luaprof_test:nope' in $PS" -e "usdt:$P:luaprof_test:nope" -- true
	one_line "^luaprof: no USDT probe 'x:y' in /bin/true: it has no USDT probes" -e usdt:/bin/true:x:y -- true
fi
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	one_line "^luaprof: cannot place 'kprobe:vfs_read': this kernel has no kprobe PMU \\(/sys/bus/event_source/devices/kprobe is missing\\): kprobes are not available here$" \
		-e kprobe:vfs_read -- true
	one_line "this kernel has no kprobe PMU" -e kretprobe:vfs_read -- true
fi
one_line "^luaprof: unknown event or PMU 'nopmu' in 'nopmu/event=1/': see 'luaprof list' and 'luaprof list pmu'$" \
	-e nopmu/event=1/ -- true
one_line "^luaprof: unknown term 'frob' in 'cpu-clock/frob=1/'" -e cpu-clock/frob=1/ -- true
if [ -d /sys/bus/event_source/devices/msr ]; then
	one_line "^luaprof: unknown term 'bogus' in 'msr/bogus=1/' \\(PMU 'msr' has event" -e msr/bogus=1/ -- true
fi
one_line "^luaprof: malformed group '\\{cpu-clock,page-faults': no closing '\\}'" -e '{cpu-clock,page-faults' -- true
one_line "^luaprof: malformed group '\\{cpu-clock,\\{cs\\}\\}': groups do not nest" -e '{cpu-clock,{cs}}' -- true
one_line "^luaprof: malformed group '\\{\\}': it is empty" -e '{}' -- true
one_line "^luaprof: 'main' in $PS is a function, not a variable: mem: watches a global variable" \
	-e mem:main:w -- "$P" watch 10
one_line "^luaprof: no variable 'nosuchvar' in $PS" -e mem:nosuchvar -- "$P" watch 10
one_line "^luaprof: bad watchpoint 'mem:0x1001/4:w'" -e mem:0x1001/4:w -- true
one_line "^luaprof: mem:VARIABLE watches a variable of a program: give the command" -e mem:watched -a -d 0.1
expect_status 255 "$LUAPROF" stat -o "$TMP/x.data" -- true
expect_grep "^luaprof: counting .* writes no recording: leave out -o$" "$TMP/err"
exit 0

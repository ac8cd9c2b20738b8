# Bad input, one-liners (luaprof -x): every name the program uses is
# checked before the first sample, and a mistake is one line naming the
# program's line and column, the closest valid name, and exit 255, with
# the command never started: a tracepoint's field against its format
# (live from tracefs; replaying, the recording's), a free name against
# the sample's, the helpers', Lua's and the program's own (bpftrace's
# names get luaprof's), a probe's arguments (args[1..6]), an
# aggregation's arguments against its shape; bpftrace's operators and
# map statements get Lua's spelling; a field a recording's samples lack
# (the CPU, perf record without -a) is an error when the answer would
# be empty.  Errors raised while the program runs, inside luaprof's own
# Lua, name the program's line.  Each of these printed nothing and
# exited 0, or named oneliner.lua's line, before.  A map keeps one shape
# of key, as bpftrace's: two clauses feeding one map keys of different
# numbers or kinds is an error before the first sample (it crashed at the
# end, in oneliner.lua's merge of C's entries, before), or, known only
# while it runs, at the program's line.  lhist(), stats() and ustack(N)
# are checked as the other aggregations are.  The table's rules are in
# lib_table.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_table.sh"

X() { "$LP" -x "$@"; }

# uprobe_row CMD...: CMD where the kernel has the uprobe PMU.
uprobe_row() {
	[ -r /sys/bus/event_source/devices/uprobe/type ] || { echo "SKIP: no uprobe PMU" >&2; return 77; }
	"$@"
}

# replay_row DATA PROGRAM: the one-liner over the recording DATA (made
# below; skipped when perf could not make it).
replay_row() {
	[ -s "$TMP/$1" ] || { echo "SKIP: perf record could not make $1" >&2; return 77; }
	X "$2" -i "$TMP/$1"
}

if command -v perf >/dev/null; then
	# without -a: its samples carry no CPU
	perf record -q -e cpu-clock -o "$TMP/nocpu.data" -- "$SPIN" 100 >/dev/null 2>&1 || rm -f "$TMP/nocpu.data"
	( need_tracefs ) >/dev/null 2>&1 &&
		{ perf record -q -e sched:sched_switch -o "$TMP/sw.data" -- "$PROGS/pingpong" 100 >/dev/null 2>&1 ||
		  rm -f "$TMP/sw.data"; }
fi

# ---- names checked before the first sample ------------------------------
row 'field misspelt'          255 "-x:1:40: syscalls:sys_enter_openat has no field 'filenme' \(did you mean 'filename'\?\)" norun -- tracefs_row X 'syscalls:sys_enter_openat { count(args.filenme) }' -- "$MARK" 50
row 'field misspelt (2)'      255 "-x:1:33: sched:sched_switch has no field 'next_comn' \(did you mean 'next_comm'\?\)" norun -- tracefs_row X 'sched:sched_switch { count(args.next_comn) }' -- "$MARK" 50
row 'field by number'         255 "-x:1:33: a tracepoint's fields are named, args\.prev_comm: sched:sched_switch has prev_comm, " norun -- tracefs_row X 'sched:sched_switch { count(args[0]) }' -- "$MARK" 50
row 'unknown name'            255 "-x:1:19: unknown name 'symm' \(did you mean 'sym'\?\)" norun -- X 'cpu-clock { count(symm) }' -- "$MARK" 50
row "bpftrace's arg0"         255 "-x:1:19: bpftrace's arg0 is args\[1\] here: luaprof's arguments are args\[1\.\.6\]" norun -- X 'cpu-clock { count(arg0) }' -- "$MARK" 50
row "bpftrace's args[0]"      255 "-x:1:[0-9]+: luaprof's arguments are args\[1\.\.6\]: bpftrace's arg0 is args\[1\]" norun -- uprobe_row X "uprobe:$SPIN:spin_iters { count(args[0]) }" -- "$MARK" 50
row 'a probe argument by name' 255 "-x:1:[0-9]+: a probe's arguments are args\[1\], args\[2\], \.\.\. by position, not args\.n" norun -- uprobe_row X "uprobe:$SPIN:spin_iters { count(args.n) }" -- "$MARK" 50
row "bpftrace's uid"          255 "-x:1:19: luaprof's samples carry no user id \(bpftrace's uid\)" norun -- X 'cpu-clock { count(uid) }' -- "$MARK" 50
row 'no args on cpu-clock'    255 "-x:1:24: cpu-clock has no args: only tracepoints" norun -- X 'cpu-clock { count(args.x) }' -- "$MARK" 50
row 'a sample in BEGIN'       255 "-x:1:15: comm is a sample's: BEGIN has no sample" norun -- X 'BEGIN { print(comm) }' -- "$MARK" 50
row 'hist() without a value'  255 "-x:1:13: hist\(\) needs a value: hist\(v, k\.\.\.\), e\.g\. hist\(args\.ret\)" norun -- X 'cpu-clock { hist() }' -- "$MARK" 50
row 'sum() without a value'   255 "-x:1:13: sum\(\) needs a value" norun -- X 'cpu-clock { sum() }' -- "$MARK" 50
row 'sum of a string'         255 "-x:1:17: sum's value comm is a string: sum takes numbers; count\(comm\) counts by it" norun -- X 'cpu-clock { sum(comm) }' -- "$MARK" 50
row 'sum of a literal'        255 "-x:1:17: sum's value \"x\" is a string" norun -- X 'cpu-clock { sum("x") }' -- "$MARK" 50
row 'a map of two functions'  255 "-x:1:35: @m holds count\(\) \(at 1:13\): it cannot take sum\(\) too" norun -- X 'cpu-clock { count("@m") } BEGIN { sum("@m", 1) }' -- "$MARK" 50
row 'a map of two key shapes' 255 "-x:1:80: @ is keyed by 2 values at 1:28 \(count\(comm, args\.fd\)\) and by 1 here: a map keeps one shape of key, as bpftrace's; name the maps apart: count\(\"@fds\", comm, args\.fd\)" - -- tracefs_row X 'syscalls:sys_enter_close { count(comm, args.fd) } syscalls:sys_enter_getppid { count(comm) }' -- "$PROGS/sysmix" 10 2 0
row 'a map of two key kinds'  255 "-x:1:47: @'s key 1 is an integer here \(pid\) and a string at 1:13 \(comm\): a map's keys keep their kinds, as bpftrace's; name the maps apart: count\(\"@pids\", pid\)" norun -- X 'cpu-clock { count(comm) } cpu-clock:u { count(pid) }' -- "$MARK" 50
row 'lhist() of 3 arguments'  255 "-x:1:13: lhist\(\) needs a value, min, max and step: lhist\(v, min, max, step, k\.\.\.\), e\.g\. lhist\(args\.ret, 0, 1000, 100\)" norun -- X 'cpu-clock { lhist(pid, 0, 100) }' -- "$MARK" 50
row "lhist's step not a literal" 255 "-x:1:32: lhist's step s is not an integer written out \(as bpftrace's\)" norun -- X 'cpu-clock { lhist(pid, 0, 100, s) }' -- "$MARK" 50
row "lhist's min past its max" 255 "-x:1:24: lhist's min 100 is not below its max 0" norun -- X 'cpu-clock { lhist(pid, 100, 0, 10) }' -- "$MARK" 50
row 'stats() of a string'     255 "-x:1:19: stats's value comm is a string: stats takes numbers" norun -- X 'cpu-clock { stats(comm) }' -- "$MARK" 50
row 'ustack(0)'               255 "-x:1:26: ustack's frames are 1 to 1024, not 0" norun -- X 'cpu-clock { count(ustack(0)) }' -- "$MARK" 50
row "ustack's mode"           255 "-x:1:19: ustack\(N\) takes the number of frames alone \(luaprof prints stacks as bpftrace's default mode\)" norun -- X 'cpu-clock { count(ustack(perf, 3)) }' -- "$MARK" 50
row 'a line and column'       255 "-x:3:9: unknown name 'pidd' \(did you mean 'pid'\?\)" norun -- X $'BEGIN { t.n = 0 }\ncpu-clock {\n  count(pidd)\n}' -- "$MARK" 50

# ---- bpftrace's spellings ------------------------------------------------
row "bpftrace's !="           255 "-x:1:34: '!=' is Lua's '~=' here: /args\.ret ~= 0/" norun -- X 'syscalls:sys_exit_read /args.ret != 0/ { count() }' -- "$MARK" 50
row "bpftrace's -> and &&"    255 "-x:1:29: '->' is Lua's '\.' here: /args\.ret > 0 and pid > 1/" norun -- X 'syscalls:sys_exit_read /args->ret > 0 && pid > 1/ { count() }' -- "$MARK" 50
row "bpftrace's @[k] ="       255 "-x:1:26: bpftrace's '@\[comm\] = count\(\)' is luaprof's 'count\(comm\)': \{ count\(comm\); \}" norun -- X 'raw_syscalls:sys_enter { @[comm] = count(); }' -- "$MARK" 50
row "bpftrace's @x = hist"    255 "-x:1:44: '->' is Lua's '\.' here: \{ hist\(\"@bytes\", args\.ret\); \}" norun -- X 'syscalls:sys_exit_read { @bytes = hist(args->ret); }' -- "$MARK" 50
row "bpftrace's ++"           255 "-x:1:14: '\+\+' is not Lua: write n = n \+ 1" norun -- X 'cpu-clock { n++ }' -- "$MARK" 50
row "bpftrace's tracepoint:"  255 "-x:1:1: bpftrace's tracepoint:SYSTEM:EVENT is SYSTEM:EVENT here" norun -- X 'tracepoint:sched { count() }' -- "$MARK" 50
row "a probe luaprof lacks"   255 "-x:1:1: luaprof cannot place bpftrace's kfunc probes" norun -- X 'kfunc:vfs_read { count() }' -- "$MARK" 50
row "bpftrace's software:"    255 "-x:1:1: bpftrace's software events are .* not 'fautls' \(did you mean 'faults'\?\)" norun -- X 'software:fautls:1 { count() }' -- "$MARK" 50
row 'unknown event'           255 "-x:1:12: unknown event 'bogus'" norun -- X 'cpu-clock, bogus { count() }' -- "$MARK" 50

# ---- a recording's names -------------------------------------------------
row 'no CPU in the recording' 255 "-x:1:19: cpu is nil in every sample of this recording, so this clause's answer would be empty: its samples carry no CPU \(perf record without -a leaves it out\)" - -- replay_row nocpu.data 'cpu-clock { count(cpu) }'
row 'no CPU: a warning'       0   "-x:1:37: cpu is nil in this recording" - -- replay_row nocpu.data 'cpu-clock { printf("%s\n", tostring(cpu)) }'
row 'recorded field misspelt' 255 "-x:1:33: sched:sched_switch has no field 'next_comn' \(did you mean 'next_comm'\?\)" - -- replay_row sw.data 'sched:sched_switch { count(args.next_comn) }'
row 'recorded string summed'  255 "-x:1:26: sum's value args\.next_comm is a string" - -- replay_row sw.data 'sched:sched_switch { sum(args.next_comm) }'
row 'event not recorded'      255 "-x:1:1: the recording has no event 'sched:sched_wakeup' \(it has sched:sched_switch\) \(did you mean 'sched:sched_switch'\?\)" - -- replay_row sw.data 'sched:sched_wakeup { count() }'

# ---- errors while the program runs, at the program's line -----------------
row 'hist of NaN'             255 "-x:2: hist's value -?nan is not an integer" norun -- X $'BEGIN {\n  hist(0/0)\n}' -- "$MARK" 50
row 'hist of 1.5'             255 "-x:1: hist's value 1\.5 is not an integer" norun -- X 'BEGIN { hist(1.5) }' -- "$MARK" 50
row 'sum of a string, known late' 255 "-x:3: sum's value \"x\" is a string: it must be an integer" norun -- X $'BEGIN {\n  local c = "x"\n  sum(c)\n}' -- "$MARK" 50
row 'm.add for m:add'         255 "-x:1: attempt to index a number value \(local 'self'\)" norun -- X 'BEGIN { local m = luaprof.map(); m.add(3) }' -- "$MARK" 50
row 'a map of two, known late' 255 "-x:1: @m holds count\(\): it cannot take sum\(\) too" norun -- X 'BEGIN { local m = "@m"; count(m); sum(m, 1) }' -- "$MARK" 50
row 'a key kind, known late'  255 "-x:2: @'s key 1 is an integer, this count\(\) gives a string \(\"x\"\): a map's keys keep their kinds \(name the maps apart: count\(\"@other\", \.\.\.\)\)" norun -- X $'BEGIN { local k = 1; count(k)\n  k = "x"; count(k) }' -- "$MARK" 50
row 'a key shape, known late' 255 "-x:1: @ is keyed by 1 value, this count\(\) by 2: a map keeps one shape of key" norun -- X 'BEGIN { local t = { 1 }; count(table.unpack(t)); t[2] = 2; count(table.unpack(t)) }' -- "$MARK" 50
row 'a float key'             255 "-x:1: count's key 1\.5 is not an integer or a string \(bpftrace's keys are\)" norun -- X 'BEGIN { count(3 / 2) }' -- "$MARK" 50
row "lhist's buckets, known late" 255 "-x:1: @ holds lhist\(v, 0, 10, 1\): it cannot take lhist\(v, 0, 20, 1\) too" norun -- X 'BEGIN { local h = lhist; h(1, 0, 10, 1); h(1, 0, 20, 1) }' -- "$MARK" 50
table_done

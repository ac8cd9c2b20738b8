# syscount on sysmix (1000 getppid, 100 close(-1) failing with EBADF, ten
# 2 ms nanosleeps):
# - exactly 1000 getppid with no error, exactly 100 close errors, 10
#   clock_nanosleep of 2-12 ms on average and at least 2 ms each (a sleep
#   never ends early; the wake-up may come up to 10 ms late under load);
# - the same system calls as perf trace -s for the same program, none
#   counted more often by it (it misses some), and every call's calls and
#   errors exactly those of perf's recording of it (perf record -e
#   raw_syscalls:*): the program makes the same calls each run;
# - with -p, a sysmix of 50 sleeps of 20 ms held at a gate until luaprof
#   has attached (lib.sh's gated): all 50 of them; with -a and --per=all: at least the program's 1000 getppid.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "raw_syscalls tracepoints need root"
cd "$TMP"
field() {       # field FILE NAME COLUMN: a column of NAME's row
	awk -v n="$2" -v c="$3" '$1 == n {print $c; exit}' "$1"
}
calls() { awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $1 != "syscall" {print $1, $2, $3}' "$1" | sort; }
# live, with the calls the comparisons below read (ours.calls)
live() {
	expect_status 0 "$LUAPROF" run syscount -- "$PROGS/sysmix"
	cp "$TMP/out" live.txt
	[ "$(field live.txt getppid 2)/$(field live.txt getppid 3)" = 1000/0 ] || { cat live.txt; fail "getppid: not 1000 calls and no error"; }
	[ "$(field live.txt close 3)" = 100 ] || fail "close: not exactly 100 errors"
	[ "$(field live.txt clock_nanosleep 2)" = 10 ] || fail "clock_nanosleep: not 10 calls"
	awk '$1 == "clock_nanosleep" && $5 >= 2.0 && $6 >= 2.0 && $6 <= 12 {f = 1} END {exit !f}' live.txt ||
		fail "clock_nanosleep: min or average not in 2-12 ms"
	calls live.txt > ours.calls
}
need_live() { [ -s ours.calls ] || fail "no ours.calls: the live case did not make it"; }
perf_trace() {
	need_live
	timeout 60 perf trace -s -o trace.txt -- "$PROGS/sysmix" >/dev/null 2>&1 ||
		skip "perf trace -s does not run here: compared with perf's recording only"
	awk '/-----/ {t = 1; next} t && NF >= 4 && $2 ~ /^[0-9]+$/ {print $1, $2, $3}' trace.txt | sort > perf.calls
	# perf trace pairs each enter with its exit as they stream in, and
	# misses some at random, a few percent of a call's count at times: it
	# bounds the counts from below only.
	# The same calls, none counted more often by perf trace; the exact
	# check is the replay of perf's recording below.
	join perf.calls ours.calls > both.calls
	[ "$(wc -l < both.calls)" = "$(wc -l < ours.calls)" ] && [ "$(wc -l < perf.calls)" = "$(wc -l < ours.calls)" ] &&
		awk '{if ($2 > $4 || $3 > $5) bad = 1} END {exit bad}' both.calls ||
		{ diff perf.calls ours.calls; fail "calls and errors differ from perf trace -s"; }
}
perf_recording() {
	need_live
	perf record -q -e 'raw_syscalls:sys_enter,raw_syscalls:sys_exit' -o sc.data -- "$PROGS/sysmix" >/dev/null 2>&1 ||
		fail "perf record of raw_syscalls failed"
	expect_status 0 "$LUAPROF" run syscount -i sc.data
	calls "$TMP/out" > rec.calls
	diff ours.calls rec.calls || fail "calls and errors from perf's recording differ from the live run's"
}
attached() {
	gated "$PROGS/sysmix" 0 0 50 20
	attach_gated 0 "$LUAPROF" run syscount
	n=$(field "$TMP/out" clock_nanosleep 2)
	[ "${n:-0}" = 50 ] || fail "-p: $n clock_nanosleep calls, expected sysmix's 50"
}
system_wide() {
	expect_whole 0 "$LUAPROF" run syscount --per=all -a -- "$PROGS/sysmix"
	[ "$(field "$TMP/out" getppid 2)" -ge 1000 ] || fail "-a: fewer than 1000 getppid"
}

scenario "live: sysmix's calls" live
scenario "as perf trace -s" perf_trace
scenario "as perf's recording" perf_recording
scenario "-p, gated" attached
scenario "-a --per=all" system_wide
scenarios_done

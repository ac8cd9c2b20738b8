# luaprof record -o - (and run -o -) writes a pipe-mode perf.data stream to
# standard output, as perf record -o - does, which perf report -i -, perf
# script -i - and luaprof's own -i - read:
# - sysmix's 1000 getppid as syscalls:sys_enter_getppid samples: exactly
#   1000 in perf script -i - and in luaprof's replay of the saved stream,
#   and perf script's text of them (comm, event, fields) is the same as
#   for a file recording of the same run;
# - cpu-clock samples of spin (with -g): perf report -i -'s sample count,
#   perf script -i -'s and luaprof's replay of the same stream agree
#   exactly, and so do perf report's rows for the stream and for the same
#   stream saved as a file;
# - the header facts arrive in-band: perf report --header-only shows the
#   command line and the event;
# - nothing else reaches standard output: the command's output and the
#   script's report go to standard error (perf points its command's
#   output there too);
# - standard output a terminal is refused with one line (perf 6.1 writes
#   the binary stream to the terminal).
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to read the stream with"
cd "$TMP"
# tracepoint samples: exact counts
tracepoint() {
	have_tracefs || skip "tracepoint stream not checked: tracefs is not mounted"
	"$LUAPROF" record -e syscalls:sys_enter_getppid -o - -- "$PROGS/sysmix" 1000 0 0 2> rec.err > tp.pipe ||
		{ cat rec.err; fail "luaprof record -o - of a tracepoint failed"; }
	n=$(perf script -i - < tp.pipe 2> ps.err | grep -c 'syscalls:sys_enter_getppid')
	[ "$n" = 1000 ] || { head -3 ps.err; fail "perf script -i - read $n getppid samples of 1000"; }
	expect_status 0 "$LUAPROF" run count -i - < tp.pipe
	expect_grep '^total: 1000 samples ' "$TMP/out"
	"$LUAPROF" record -e syscalls:sys_enter_getppid -o tp.data -- "$PROGS/sysmix" 1000 0 0 2>/dev/null ||
		fail "luaprof record of a tracepoint to a file failed"
	perf script -i - -F comm,event,trace < tp.pipe > pipe.txt 2>/dev/null
	perf script -i tp.data -F comm,event,trace > file.txt 2>/dev/null
	diff pipe.txt file.txt > /dev/null || { diff pipe.txt file.txt | head -5; fail "perf script's text of the stream differs from the file's"; }
	echo "tracepoint: 1000 getppid in perf script -i - and luaprof -i -, the same text as a file's"
}

# cpu-clock with call chains
cpu_clock() {
	"$LUAPROF" record -F 2000 -g -o - -- "$PROGS/spin" 300 2> rec.err > cc.pipe ||
		{ cat rec.err; fail "luaprof record -o - failed"; }
	[ "$(head -c 8 cc.pipe)" = PERFILE2 ] || fail "the stream does not start with perf's magic"
	[ "$(od -An -tu8 -j8 -N8 cc.pipe | tr -d ' ')" = 16 ] || fail "the stream's header is not pipe mode's (size 16)"
	reported=$(perf report -i - --stdio < cc.pipe 2> pr.err | sed -n 's/^# Samples: \([0-9]*\) .*/\1/p')
	[ -n "$reported" ] && [ "$reported" -gt 100 ] || { head -3 pr.err; fail "perf report -i - read ${reported:-no} samples"; }
	expect_status 0 "$LUAPROF" run count -i - < cc.pipe
	ours=$(sed -n 's/^total: \([0-9]*\) samples.*/\1/p' "$TMP/out")
	[ "$ours" = "$reported" ] || fail "luaprof -i - read $ours samples, perf report -i - $reported"
	perf script -i - -F period --hide-call-graph < cc.pipe 2>/dev/null | grep -c . > n.txt
	[ "$(cat n.txt)" = "$reported" ] || fail "perf script -i - printed $(cat n.txt) samples, perf report $reported"
	perf report -i - --stdio --no-children -q --sort comm,dso,sym -g none < cc.pipe > rows.pipe 2>/dev/null
	cp cc.pipe cc.data
	perf report -i cc.data --stdio --no-children -q --sort comm,dso,sym -g none > rows.file 2>/dev/null
	diff rows.pipe rows.file > /dev/null || { diff rows.pipe rows.file | head; fail "perf report's rows differ between the stream and the saved stream"; }
	grep -q 'spin_iters' rows.pipe || fail "perf report -i - names no spin_iters frame"
	echo "cpu-clock -g: $reported samples in perf report -i -, perf script -i - and luaprof -i -"
}

# the header facts, in-band (a stream of its own, made as cpu_clock's)
header() {
	"$LUAPROF" record -F 2000 -g -o - -- "$PROGS/spin" 300 2> rec.err > hdr.pipe ||
		{ cat rec.err; fail "luaprof record -o - failed"; }
	perf report -i - --header-only < hdr.pipe > hdr.txt 2>&1
	grep -q "^# cmdline : .*record -F 2000 -g -o - -- $PROGS/spin 300" hdr.txt || { cat hdr.txt; fail "no command line in the stream's header"; }
	grep -q '^# event : name = cpu-clock' hdr.txt || fail "no event description in the stream's header"
}

# standard output is the stream's alone: the command's output on standard error
command_output() {
	"$LUAPROF" record -o - -- sh -c 'echo the-command-speaks' > echo.pipe 2> echo.err || fail "luaprof record -o - of sh failed"
	grep -q '^the-command-speaks$' echo.err || fail "the command's output is not on standard error"
	perf script -i - < echo.pipe > /dev/null 2> es.err || { cat es.err; fail "the stream with a talking command is not perf's"; }
}

# ... and run -o -'s script's report too
script_report() {
	"$LUAPROF" run count -o - -- "$PROGS/spin" 100 > run.pipe 2> run.err || { cat run.err; fail "luaprof run count -o - failed"; }
	grep -q '^total: [0-9]* samples' run.err || { cat run.err; fail "run -o -: the script's report is not on standard error"; }
	expect_status 0 "$LUAPROF" run count -i - < run.pipe
	[ "$(grep '^total:' "$TMP/out" | cut -d, -f1)" = "$(grep '^total:' run.err | cut -d, -f1)" ] ||
		fail "run -o -: the stream holds $(grep '^total:' "$TMP/out") where the run counted $(grep '^total:' run.err)"
	echo "the command's and the script's output on standard error, the stream alone on standard output"
}

# a terminal
terminal() {
	command -v script >/dev/null || skip "a terminal not checked: no script(1)"
	script -qec "'$LUAPROF' record -o - -- true" /dev/null > tty.out 2>&1; rc=$?
	[ $rc != 0 ] || fail "luaprof record -o - to a terminal exited 0"
	grep -q 'luaprof: -o - writes a binary perf.data stream to standard output, which is a terminal' tty.out ||
		{ cat -v tty.out | head -3; fail "no line refusing a terminal"; }
	[ "$(grep -c . tty.out)" = 1 ] || { cat -v tty.out | head; fail "more than one line to the terminal"; }
	echo "a terminal: refused, $(tr -d '\r' < tty.out)"
}

scenario "tracepoint samples, exact" tracepoint
scenario "cpu-clock with call chains" cpu_clock
scenario "the header facts, in-band" header
scenario "the command's output on standard error" command_output
scenario "run -o -: the script's report on standard error" script_report
scenario "standard output a terminal" terminal
scenarios_done

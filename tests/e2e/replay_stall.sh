# A replay of a stream that stalls (its writer quiet, the pipe open) and is
# then stopped by -d or a signal runs on_end over every sample it read.
# The reader orders records as perf does, holding them until a
# FINISHED_ROUND releases them (luaprof record writes none, as it writes in
# time order; perf record's last rounds are held too).  The reader used to
# wait in a read(2) that the signal's SA_RESTART (or -d's retry) resumed,
# until the writer closed the pipe, and then the stop dropped what was
# held: on_end saw none of it (0 of 4,000 samples), and -d said nothing.
# Now a stop while the reader waits for input ends the input there: what
# it read goes out in time order, the same samples as the whole stream
# saved to a file, within seconds.  Over stdin and a named pipe, from
# luaprof record -o - and from perf record -o -.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
"$LUAPROF" record -e cpu-clock -F 2000 -o - -- "$PROGS/spin" 500 > lp.pipe 2> rec.err ||
	{ cat rec.err; fail "luaprof record -o - failed"; }
streams=lp.pipe
if command -v perf >/dev/null; then
	perf record -q -e cpu-clock -F 2000 -o - -- "$PROGS/spin" 500 > perf.pipe 2> rec.err ||
		{ cat rec.err; fail "perf record -o - failed"; }
	streams="lp.pipe perf.pipe"
fi

# stalled STREAM HOW STOP WANT: replays STREAM through a pipe that stays
# open (HOW: "stdin" or the named pipe "fifo"), stopped by STOP ("d": -d 1;
# INT or TERM: that signal, once luaprof waits for more input), exit WANT;
# on_end must report what the saved stream gives.
stalled() {
	local stream=$1 how=$2 stop=$3 want=$4 p i rc d=
	rm -f ff
	mkfifo ff
	exec 3<>ff                      # a writer that never closes: the stall
	[ "$stop" = d ] && d="-d 1"
	if [ "$how" = stdin ]; then
		"$LUAPROF" run count $d -i - < ff > stall.out 2> stall.err & p=$!
	else
		"$LUAPROF" run count $d -i ff > stall.out 2> stall.err & p=$!
	fi
	cat "$stream" >&3
	if [ "$stop" != d ]; then
		# everything read once luaprof waits in poll with the pipe empty
		for i in $(seq 400); do
			grep -q poll "/proc/$p/wchan" 2>/dev/null && break
			sleep 0.05
		done
		kill -"$stop" $p
	fi
	for i in $(seq 300); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
	if kill -0 $p 2>/dev/null; then
		kill -KILL $p; wait $p; exec 3>&-
		fail "$stream over $how, stopped by $stop: still running 15 s later"
	fi
	wait $p; rc=$?
	exec 3>&-
	[ $rc = "$want" ] || { cat stall.err; fail "$stream over $how, stopped by $stop: exit $rc, expected $want"; }
	diff saved.out stall.out > diff.txt ||
		{ cat diff.txt stall.err; fail "$stream over $how, stopped by $stop: on_end's report differs from the saved stream's"; }
	echo "$stream over $how, stopped by $stop: exit $rc, $(grep '^total' stall.out)"
}

# saved STREAM: the stream's samples saved to a file (saved.out), which
# the stalled cases of STREAM after it compare with
saved() {
	rm -f saved.out
	expect_status 0 "$LUAPROF" run count -i "$1"
	cp "$TMP/out" saved.out
	grep -q '^total: [1-9][0-9]* samples' saved.out || fail "no samples in $1"
}

for stream in $streams; do
	scenario "$stream saved" saved "$stream"
	scenario "$stream over stdin, -d" stalled "$stream" stdin d 0
	scenario "$stream over stdin, SIGINT" stalled "$stream" stdin INT 130
	scenario "$stream over a FIFO, -d" stalled "$stream" fifo d 0
	scenario "$stream over a FIFO, SIGTERM" stalled "$stream" fifo TERM 143
done
scenarios_done

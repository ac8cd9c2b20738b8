# -i of a named pipe: luaprof waits for a writer in a way that Ctrl-C
# (SIGINT) and SIGTERM end at once (exit 130 and 143, within 3 s, nothing
# printed but what ending says), and -d ends as a -d run does (exit 0,
# on_end's report of nothing, one line saying no writer came), and reads
# the perf.data stream a writer then sends: the same samples as the same
# stream saved to a file.  Over a saved file, -d stops a replay slower
# than SECONDS at the next record (on_end with what was read, exit 0).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to write a stream with"
cd "$TMP"
mkfifo ff
# ends SIG CODE: luaprof waiting on ff ends on SIG with CODE
ends() {
	"$LUAPROF" run count -i ff > out.$1 2> err.$1 & local p=$! i
	sleep 0.5
	kill -"$1" $p
	for i in $(seq 30); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	if kill -0 $p 2>/dev/null; then kill -KILL $p; fail "SIG$1 did not end luaprof waiting for a writer"; fi
	wait $p; local rc=$?
	[ $rc = "$2" ] || { cat err.$1; fail "SIG$1 while waiting: exit $rc, expected $2"; }
	[ -s out.$1 ] && fail "SIG$1 while waiting: a report was printed: $(head -2 out.$1)"
	echo "SIG$1 while waiting for a writer: exit $rc"
}
# -d 1 while waiting: over within 20 s (not a timing check: without the
# fix it never ends)
d_waiting() {
	"$LUAPROF" run count -d 1 -i ff > out.d 2> err.d & p=$!
	for i in $(seq 200); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	if kill -0 $p 2>/dev/null; then kill -KILL $p; fail "-d 1 did not end luaprof waiting for a writer"; fi
	wait $p; rc=$?
	[ $rc = 0 ] || { cat err.d; fail "-d while waiting: exit $rc, expected 0 as a -d run"; }
	grep -qx 'total: 0 samples (none), 0 lost, 0.000 s' out.d || { cat out.d; fail "-d while waiting: not count's report of nothing"; }
	[ "$(wc -l < err.d)" = 1 ] && grep -q '^luaprof: no writer came to the named pipe ff in the 1 s of -d' err.d ||
		{ cat err.d; fail "-d while waiting: not the one line saying no writer came"; }
	echo "-d 1 while waiting for a writer: exit 0, $(cat err.d)"
}
# the stream a writer sends: the same samples as saved to a file (which
# the -d case below replays)
stream() {
	"$LUAPROF" run count -i ff > fifo.out 2> fifo.err & p=$!
	perf record -q -o - -- "$PROGS/spin" 200 2>/dev/null | tee saved.data > ff
	wait $p || { cat fifo.err; fail "reading the stream from the named pipe failed"; }
	expect_status 0 "$LUAPROF" run count -i saved.data
	diff "$TMP/out" fifo.out || fail "the named pipe's samples differ from the saved stream's"
	grep -q '^total: [1-9][0-9]* samples' fifo.out || fail "no samples read from the named pipe"
}
# -d over a file: a script taking 20 ms a sample stops after 0.5 s, with
# fewer samples than the file holds, on_end still called, exit 0
d_file() {
	[ -s saved.data ] && [ -s fifo.out ] || fail "no saved.data: the stream case did not save it"
	total=$(sed -n 's/^total: \([0-9]*\) samples.*/\1/p' fifo.out)
	cat > slow.lua <<'LUAEOF'
local n = 0
function on_sample()
  local t = os.clock() + 0.02
  while os.clock() < t do end
  n = n + 1
end
function on_end(info) print("read " .. n .. " of " .. info.samples) end
LUAEOF
	expect_status 0 "$LUAPROF" run ./slow.lua -d 0.5 -i saved.data
	n=$(sed -n 's/^read \([0-9]*\) of .*/\1/p' "$TMP/out")
	[ -n "$n" ] && [ "$n" -lt "$total" ] || fail "-d 0.5 over a file: read ${n:-nothing} of its $total samples"
	echo "-d 0.5 over a file at 20 ms a sample: $n of $total samples read"
}

scenario "SIGINT while waiting for a writer" ends INT 130
scenario "SIGTERM while waiting for a writer" ends TERM 143
scenario "-d while waiting for a writer" d_waiting
scenario "the stream from a writer" stream
scenario "-d over a file" d_file
scenarios_done

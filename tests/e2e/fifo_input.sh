# -i of a named pipe: luaprof waits for a writer in a way that Ctrl-C
# (SIGINT) and SIGTERM end at once (exit 130 and 143, within 3 s, nothing
# printed but what ending says), and reads the perf.data stream a writer
# then sends: the same samples as the same stream saved to a file.
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
ends INT 130
ends TERM 143
"$LUAPROF" run count -i ff > fifo.out 2> fifo.err & p=$!
perf record -q -o - -- "$PROGS/spin" 200 2>/dev/null | tee saved.data > ff
wait $p || { cat fifo.err; fail "reading the stream from the named pipe failed"; }
expect_status 0 "$LUAPROF" run count -i saved.data
diff "$TMP/out" fifo.out || fail "the named pipe's samples differ from the saved stream's"
grep -q '^total: [1-9][0-9]* samples' fifo.out || fail "no samples read from the named pipe"
exit 0

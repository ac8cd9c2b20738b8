# The report library on known input (tests/e2e/lua/report_lib.lua): the
# counting map, histograms, printing helpers, JSON, folded text, the flame
# graph's frames and the sched helper's off-CPU intervals, each with exact
# expected output.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/report_lib.lua" -- true
diff -u "$ROOT/tests/e2e/expected/report_lib.txt" "$TMP/out" > "$TMP/diff" ||
	{ head -40 "$TMP/diff"; fail "the library's output differs from expected/report_lib.txt"; }
exit 0

# The command's exit status is luaprof's: 7 for exit(7), 128+N for signal N,
# and luaprof's own 255 (with one line) when the command cannot be run.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events

exit_7() {
	expect_status 7 "$LUAPROF" run "$CHECKS/comms.lua" -- "$PROGS/spin" 30 7
	expect_grep '^status 7$' "$TMP/out"
}

signals() {
	expect_status 143 "$LUAPROF" run "$CHECKS/comms.lua" -- "$PROGS/spin" 30 sig 15
	expect_grep '^status 143$' "$TMP/out"
	expect_status 139 "$LUAPROF" run "$CHECKS/comms.lua" -- "$PROGS/spin" 30 sig 11
}

cannot_run() {
	expect_status 255 "$LUAPROF" run "$CHECKS/comms.lua" -- /nonexistent/program
	expect_grep "cannot run '/nonexistent/program': No such file or directory" "$TMP/err"
	[ "$(wc -l < "$TMP/err")" -le 2 ] || fail "more than a line or two of error: $(cat "$TMP/err")"
}

scenario "exit(7)" exit_7
scenario "signal N: 128+N" signals
scenario "cannot run: 255" cannot_run
scenarios_done

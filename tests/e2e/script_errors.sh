# Script errors: a syntax error is reported as FILE:LINE before anything
# starts; a runtime error prints a traceback, stops, exits 255 and leaves no
# process behind; a sample kept past on_sample raises a clear error.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events

syntax_error() {
	expect_status 255 "$LUAPROF" run "$CHECKS/syntax_error.lua" -- touch "$TMP/ran"
	expect_grep "^luaprof: .*syntax_error.lua:2: " "$TMP/err"
	[ ! -e "$TMP/ran" ] || fail "the command ran although the script did not compile"
}

runtime_error() {
	expect_status 255 "$LUAPROF" run "$CHECKS/runtime_error.lua" -- "$PROGS/spin" 4000 0 "$TMP/marker"
	expect_grep "runtime_error.lua:4: deliberate failure at sample 50" "$TMP/err"
	expect_grep "stack traceback:" "$TMP/err"
	expect_grep "in (local|upvalue|function) 'check'" "$TMP/err"
	# what was gathered is kept: on_end runs, told the error (issue 32)
	expect_grep "^on_end after 50 samples: .*runtime_error.lua:4: deliberate failure at sample 50\$" "$TMP/out"
	wait_gone "$PROGS/spin 4000 0 $TMP/marker" || fail "the command was left running"
}

kept_sample() {
	expect_status 255 "$LUAPROF" run "$CHECKS/keep_sample.lua" -- "$PROGS/spin" 30
	expect_grep "this sample's view expired when its on_sample returned" "$TMP/err"
}

missing_script() {
	expect_status 255 "$LUAPROF" run "$CHECKS/missing.lua" -- true
	expect_grep "cannot open .*missing.lua" "$TMP/err"
}

scenario "syntax error" syntax_error
scenario "runtime error" runtime_error
scenario "sample kept past on_sample" kept_sample
scenario "missing script" missing_script
scenarios_done

# Bad input, scripts: missing, a directory, not compiling; an error in
# each hook (on_switch too, over a program that sleeps twice) and at the
# top level; hooks that loop (--script-timeout, and
# Ctrl-C or SIGTERM while they do) or allocate without bound
# (--script-memory); what root must not run: scripts that another user
# could have put where a bare name is looked for (their owner or their
# mode), and precompiled bytecode (a script, load, require).  The table's
# rules are in lib_table.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_table.sh"
# replay_error: an error in on_sample while replaying a recording.
replay_error() {
	"$LP" record -F 2000 -o rec.data -- "$SPIN" 300 2>/dev/null || return 99
	"$LP" run "$S/err_sample.lua" -i rec.data
}

# oneliner_error: a one-liner whose clause fails at its 5th sample still
# prints its map.
oneliner_error() {
	"$LP" -x 'cpu-clock { count(comm); n = (n or 0) + 1; if n == 5 then local t = nil; t.x = 1 end }' \
		-- "$MARK" 3000
	local rc=$?
	grep -q '^@\[' out || { echo "the one-liner printed no map" >&2; return 99; }
	return $rc
}

# loop_both: on_sample loops and is stopped by --script-timeout; on_end,
# called after it, loops too, and is stopped the same way.
loop_both() {
	"$LP" run "$S/loop_both.lua" --script-timeout 0.3 -- "$MARK" 20000 2> both.err
	local rc=$?
	grep -vE "$NOTICES" both.err | head -1 >&2
	grep -q 'on_end ran longer than --script-timeout' both.err ||
		{ echo "on_end's loop was not stopped: $(cat both.err)" >&2; return 99; }
	return $rc
}
script loop_both "local n = 0
function on_sample(s) n = n + 1 if n == 3 then while true do end end end
function on_end(i) print('on_end ' .. i.samples) while true do end end"

row 'missing script'          255 'cannot open \./nope\.lua'                  norun -- "$LP" run ./nope.lua -- "$MARK" 50
row 'no script of that name'  255 "no script 'nope' in .*LUAPROF_PATH"        norun -- "$LP" run nope -- "$MARK" 50
row 'require from the cwd (root)' 0 ''                                       - -- require_cwd
row 'unknown script option'   255 "top: unknown option '--bogus'"             norun,usage -- "$LP" run top --bogus -- "$MARK" 50
row 'bad script option value' 255 'top: --limit=abc: the value must be an integer' norun,usage -- "$LP" run top --limit=abc -- "$MARK" 50
row 'directory as script'     255 'cannot read .*adir: Is a directory'        norun -- "$LP" run "$S/adir" -- "$MARK" 50
row 'script does not compile' 255 'syntax\.lua:2: unexpected symbol'          norun -- "$LP" run "$S/syntax.lua" -- "$MARK" 50
row 'error at the top level'  255 'err_top\.lua:1: failure at the top level'  norun -- "$LP" run "$S/err_top.lua" -- "$MARK" 50
row 'bad luaprof.setup'       255 'bad_setup\.lua:1: .*bogus'                 norun -- "$LP" run "$S/bad_setup.lua" -- "$MARK" 50
row 'error in on_start'       255 'err_start\.lua:1: failure in on_start'     norun,noend -- "$LP" run "$S/err_start.lua" -- "$MARK" 50
row 'error in on_sample'      255 'err_sample\.lua:2: failure in on_sample'   ran,enderr -- "$LP" run "$S/err_sample.lua" -- "$MARK" 3000
row 'error in on_end'         255 'err_end\.lua:1: failure in on_end'         ran -- "$LP" run "$S/err_end.lua" -- "$MARK" 50
row 'error in on_switch'      255 'err_switch\.lua:1: failure in on_switch'   enderr -- "$LP" run "$S/err_switch.lua" -- "$PROGS/sleeper" 2 5
row 'on_start loops'          255 'loop_start\.lua:1: on_start ran longer than --script-timeout 0\.3 s' norun,noend -- "$LP" run "$S/loop_start.lua" --script-timeout 0.3 -- "$MARK" 50
row 'on_sample loops'         255 'loop_sample\.lua:4: on_sample ran longer than --script-timeout 0\.3 s' ran,enderr -- "$LP" run "$S/loop_sample.lua" --script-timeout 0.3 -- "$MARK" 20000
row 'on_end loops'            255 'loop_end\.lua:1: on_end ran longer than --script-timeout 0\.3 s' ran -- "$LP" run "$S/loop_end.lua" --script-timeout 0.3 -- "$MARK" 50
row 'on_switch loops'         255 'loop_switch\.lua:1: on_switch ran longer than --script-timeout 0\.3 s' enderr -- "$LP" run "$S/loop_switch.lua" --script-timeout 0.3 -- "$PROGS/sleeper" 2 5
row 'Ctrl-C, on_sample loops' 255 'loop_sample\.lua:4: on_sample interrupted by SIGINT \(Ctrl-C\)' enderr -- signal_loop INT loop_sample
row 'SIGTERM, on_end loops'   255 'loop_end\.lua:1: on_end interrupted by SIGTERM' - -- signal_loop TERM loop_end
row 'error in on_sample, replaying' 255 'err_sample\.lua:2: failure in on_sample' enderr -- replay_error
row 'error in a one-liner'    255 "-x:1: attempt to index a nil value \(local 't'\)" ran -- oneliner_error
row 'on_sample, then on_end loop' 255 'loop_both\.lua:2: on_sample ran longer than --script-timeout 0\.3 s' ran,end -- loop_both
row 'on_sample allocates'     255 'on_sample: out of memory: .*--script-memory limit of 64 MB' ran,enderr -- "$LP" run "$S/alloc_sample.lua" --script-memory 64 -- "$MARK" 20000
row 'top level allocates'     255 "the script's top level: out of memory: .*limit of 32 MB" norun -- "$LP" run "$S/alloc_top.lua" --script-memory 32 -- "$MARK" 50
row "another user's scripts dir (root)" 0 'not looking for scripts in .*/scripts: it belongs to uid 65534' ran -- planted dir
row "another user's script (root)"      0 'not running .*/scripts/count\.lua: it belongs to uid 65534' ran -- planted file
row "another user's home (root)"        0 'not looking for scripts in .*/scripts: .*/home: it belongs to uid 65534' ran -- planted home
row 'LUAPROF_PATH anyone can write'     0 'not looking for scripts in .*/open: anyone can write to it' ran -- planted path
row "list scripts, another user's"      0 'not running .*/scripts/count\.lua: it belongs to uid 65534' - -- planted list
row 'precompiled script (luac)'         255 'count\.luac is precompiled Lua bytecode \(luac output\)' norun -- bytecode run
row 'load of string.dump'               255 'load_dump\.lua:1: attempt to load a binary chunk' norun -- "$LP" run "$S/load_dump.lua" -- "$MARK" 50
row 'require of bytecode'               255 "^error loading module 'count' from file '.*count\.luac'" norun -- bytecode require
table_done

# A script writer's mistakes, caught (issue 32).  Before the first
# sample, one line naming the script's line and column, exit 255, the
# command never started: a misspelt hook (on_samples, On_Sample, a table
# on_events), a hook declared local, on_interval as the only hook that
# sees the run with no interval set, an on_event key meant for an event
# whose samples go to no hook (live and replaying); a script with no hook
# at all runs as a Lua program, and one line says nothing of the run
# reaches it.  While it runs: s.args.NAME that the tracepoint lacks is an
# error with the closest name, as s.NAME is; a field the samples do not
# carry (s.cpu of perf record without -a, s.stack without a call chain)
# is said once, at its first read.  A view kept past its call (s, t of
# on_switch) raises an error in every later call and in on_end.  A bare
# NAME.lua that is a file in the current directory runs that file (the
# first usage the README promises).  Each of these printed nothing and
# exited 0 before (or read the current sample through a kept view, or
# refused ./NAME.lua as "write ./NAME.lua"); the rows that pass either way
# guard against refusing a correct script.  The table's rules are in
# lib_table.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_table.sh"

script typo 'function on_samples(s) end'
script case 'On_Sample = function(s) end'
script events_typo "on_events = {}
$ON_END"
script local "local n = 0
local function on_sample(s) n = n + 1 end
$ON_END"
script local_var "local on_end = function(i) print('never') end
function on_sample(s) end"
script local_used "local function on_sample(s) end
on_event = { ['cpu-clock'] = on_sample }
$ON_END"
script nohook 'print("only the top level")'
script startonly 'function on_start(i) print("start") end'
script interval 'function on_interval(i) print(i.samples) end'
script key_typo "on_event = { ['sched:sched_swtich'] = function(s) end }
$ON_END"
script key_other "on_event = { ['sched:nope'] = function(s) end }
function on_sample(s) end
$ON_END"
script args_typo "function on_sample(s) local x = s.args.prev_pidd end
$ON_END"
script cpu "local n = 0
function on_sample(s) if s.cpu then n = n + 1 end end
$ON_END"
script stack "local depth = 0
function on_sample(s) depth = depth + #s.stack end
$ON_END"
script keep_next "local kept
function on_sample(s)
  if kept then return kept.pid end
  kept = s
end
$ON_END"
script keep_every "local kept, n, read = nil, 0, 0
function on_sample(s)
  n = n + 1
  if not kept then kept = s return end
  if pcall(function() return kept.pid end) then read = read + 1 end
end
function on_end(i)
  if read > 0 then error(read .. ' of ' .. (n - 1) .. ' later calls read the kept view') end
  print('on_end samples=' .. i.samples)
end"
script keep_end "local kept
function on_sample(s) kept = s end
function on_end(i) print('on_end ' .. kept.tid) end"
script keep_args "local kept
function on_sample(s)
  if kept then return kept.args end
  kept = s
end
$ON_END"
script keep_switch "local kept
function on_switch(t)
  if kept then return kept.tid end
  kept = t
end
$ON_END"

if command -v perf >/dev/null; then
	# without -a: its samples carry no CPU
	perf record -q -e cpu-clock -o "$TMP/nocpu.data" -- "$SPIN" 100 >/dev/null 2>&1 || rm -f "$TMP/nocpu.data"
	( need_tracefs ) >/dev/null 2>&1 &&
		{ perf record -q -e sched:sched_switch -o "$TMP/sw.data" -- "$PROGS/pingpong" 100 >/dev/null 2>&1 ||
		  rm -f "$TMP/sw.data"; }
fi

# replay_row DATA SCRIPT: the script over the recording DATA (made above;
# skipped when perf could not make it).
replay_row() {
	[ -s "$TMP/$1" ] || { echo "SKIP: perf record could not make $1" >&2; return 77; }
	"$LP" run "$S/$2.lua" -i "$TMP/$1"
}

# cwd_script: a script in the current directory, named as NAME.lua.
cwd_script() {
	printf 'local n = 0\nfunction on_sample(s) n = n + 1 end\n%s\n' "$ON_END" > mine.lua
	"$LP" run mine.lua -- "$MARK" 50
}

# cwd_bare: a count.lua in the current directory that would leave ./evil;
# "luaprof run count" (no .lua) runs the shipped count, not that file.
cwd_bare() {
	printf 'io.open("evil", "w"):close()\n%s\n' "$ON_END" > count.lua
	"$LP" run count -- "$MARK" 50 || return
	[ ! -e evil ] || { echo "luaprof ran ./count.lua for the bare name count" >&2; return 99; }
}

# ---- hooks, before the first sample ------------------------------------
row 'hook misspelt'           255 'typo\.lua:1:10: on_samples is not a hook, so luaprof never calls it \(did you mean on_sample\?\)$' norun -- "$LP" run "$S/typo.lua" -- "$MARK" 50
row 'hook in capitals'        255 'case\.lua:1:1: On_Sample is not a hook, .*\(did you mean on_sample\?\)$' norun -- "$LP" run "$S/case.lua" -- "$MARK" 50
row 'on_event misspelt'       255 'events_typo\.lua:1:1: on_events is not a hook, .*\(did you mean on_event\?\)$' norun -- "$LP" run "$S/events_typo.lua" -- "$MARK" 50
row 'local function on_sample' 255 'local\.lua:2:16: on_sample is declared local, so luaprof never calls it: a hook is a global function' norun -- "$LP" run "$S/local.lua" -- "$MARK" 50
row 'local on_end = function' 255 'local_var\.lua:1:7: on_end is declared local' norun -- "$LP" run "$S/local_var.lua" -- "$MARK" 50
row 'a local handed to on_event' 0 '' ran,end -- "$LP" run "$S/local_used.lua" -e cpu-clock -- "$MARK" 50
row 'no hook'                 0   'nohook\.lua defines no hook, so nothing of this run reaches it \(on_sample, on_event, on_end: see Hooks in docs/scripting\.md\)$' ran -- "$LP" run "$S/nohook.lua" -- "$MARK" 50
row 'on_start alone'          0   '' ran -- "$LP" run "$S/startonly.lua" -e cpu-clock -- "$MARK" 50
row 'no hook, recording'      0 '' ran,perfok -- "$LP" run "$S/nohook.lua" -e cpu-clock -o out.data -- "$MARK" 50
row 'on_interval without -I'  255 'interval\.lua:1:10: on_interval is the script.s only hook that sees the run, and no interval is set, so it would never be called: give -I MS' norun -- "$LP" run "$S/interval.lua" -- "$MARK" 50
row 'on_interval with -I'     0 '' ran -- "$LP" run "$S/interval.lua" -e cpu-clock -I 20 -- "$MARK" 50
row 'on_event key misspelt'   255 'on_event\["sched:sched_swtich"\] names no event of this run \(did you mean .sched:sched_switch.\?\), and no hook takes the samples of sched:sched_switch' norun,noend -- tracefs_row "$LP" run "$S/key_typo.lua" -e sched:sched_switch -- "$MARK" 50
row 'on_event key misspelt, replaying' 255 'on_event\["sched:sched_swtich"\] names no event of this run \(did you mean .sched:sched_switch.\?\), and no hook' noend -- replay_row sw.data key_typo
row 'on_event key, on_sample takes the rest' 0 'on_event\["sched:nope"\] names no event of this run, so it is never called' ran,end -- "$LP" run "$S/key_other.lua" -e cpu-clock -- "$MARK" 50

# ---- fields, while it runs ------------------------------------------------
row 's.args field misspelt'   255 "args_typo\.lua:1: s\.args\.prev_pidd: sched:sched_switch has no field 'prev_pidd' \(did you mean 'prev_pid'\?\); its fields are: prev_comm, prev_pid, " end -- replay_row sw.data args_typo
row 'no CPU in the recording' 0   'cpu\.lua:2: s\.cpu is nil: the samples of cpu-clock carry no CPU \(perf record without -a leaves it out\)$' end -- replay_row nocpu.data cpu
row 's.stack without -g'      0   'stack\.lua:2: s\.stack holds the sampled frame alone: the samples of cpu-clock carry no call chain' ran,end -- "$LP" run "$S/stack.lua" -e cpu-clock -F 500 -- "$MARK" 100

# ---- views kept past their call -------------------------------------------
row 'kept s, the next call'   255 "keep_next\.lua:3: this sample's view expired when its on_sample returned: copy the fields you need \(local x = s\.sym\)" ran,end -- "$LP" run "$S/keep_next.lua" -e cpu-clock -- "$MARK" 100
row 'kept s, every later call' 0 '' ran,end -- "$LP" run "$S/keep_every.lua" -e cpu-clock -F 1000 -- "$MARK" 200
row 'kept s, in on_end'       255 "keep_end\.lua:3: this sample's view expired when its on_sample returned" ran -- "$LP" run "$S/keep_end.lua" -e cpu-clock -- "$MARK" 100
row 'kept s, its s.args'      255 "keep_args\.lua:3: this sample's view expired when its on_sample returned" end -- replay_row sw.data keep_args
row 'kept t of on_switch'     255 "keep_switch\.lua:3: this switch record's view expired when its on_switch returned: copy the fields you need \(local x = t\.tid\)" end -- "$LP" run "$S/keep_switch.lua" -- "$PROGS/sleeper" 2 5

# ---- finding the script ------------------------------------------------------
row 'NAME.lua in the current directory' 0 '' ran,end -- cwd_script
row 'NAME.lua nowhere'        255 "no script 'nope\.lua' in the current directory, \\\$LUAPROF_PATH, " norun -- "$LP" run nope.lua -- "$MARK" 50
row 'bare NAME, a file in the cwd' 0 '' ran -- cwd_bare
table_done

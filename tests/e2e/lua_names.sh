# Names a script can get wrong, each an error naming the valid ones:
# - an unknown field of what a hook is handed (s, t of on_comm, on_fork,
#   on_exit and on_switch, info of on_start, on_interval and on_end), live
#   and replaying; a known field with no value reads as nil
#   (tests/e2e/lua/fieldnames.lua prints each hook's message);
# - luaprof.NAME that luaprof lacks, require "luaprof.NAME" of no public
#   module, and a helper of the shipped scripts (profile, sched, perfpy, fleet)
#   required or read by a script of the user's; the shipped scripts get
#   theirs, and a module of the user's own by a helper's name still wins.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"

sample_fields="addr, args, cgroup, cgroup_path, comm, cpu, dso, event, file, folded, gid, has_callchain, id, ip, kernel, kstack, line, mangled, offset, period, pid, process_comm, raw, retval, stack, str, sym, symoff, tid, time, uid, ustack, values"
start_fields="all_cpus, arch, build_ids, cmdline, command, events, file, freq, hostname, nr_cpus, os_release, perf_version, period, pid, pids"
modules="luaprof.calltree, luaprof.flamegraph, luaprof.fmt, luaprof.folded, luaprof.hist, luaprof.json, luaprof.map, luaprof.perfscript, luaprof.pprof, luaprof.push, luaprof.report, luaprof.speedscope, luaprof.stacks, luaprof.stat, luaprof.term, luaprof.url"
expected() {
	cat <<EOT
on_comm: t.ppid: no such field of a comm record (on_comm); fields are: comm, exec, pid, tid, time; nil true
on_end: info.samples_: no such field of on_end's info; fields are: backlog, duration, error, lost, samples, status, strings, sys_time, user_time, values; nil true
on_exit: t.exec: no such field of an exit record (on_exit); fields are: pid, ppid, ptid, tid, time; nil true
on_fork: t.comm: no such field of a fork record (on_fork); fields are: pid, ppid, ptid, tid, time; nil true
on_interval: info.elapse: no such field of on_interval's info; fields are: delta, elapsed, last, lost, samples, time, values; nil true
on_sample: s.symm: no such field of a sample; fields are: $sample_fields; nil true
on_start $1: info.fil: no such field of on_start's info; fields are: $start_fields; nil true
on_switch: t.ot: no such field of a switch record (on_switch); fields are: cpu, next_pid, next_tid, out, pid, preempt, prev_pid, prev_tid, tid, time; nil true
EOT
}

# Live: each hook's unknown field, named with the valid ones.
live() {
	expect_status 0 "$LUAPROF" run "$CHECKS/fieldnames.lua" -e cpu-clock -o rec.data -- sh -c "$PROGS/spin 100; true"
	expected live > want.txt
	diff -u want.txt "$TMP/out" || fail "live: the unknown fields' messages differ"
}

# Replaying: a recording of its own (the live case's run, made again).
replaying() {
	expect_status 0 "$LUAPROF" run "$CHECKS/fieldnames.lua" -e cpu-clock -o replay.data -- sh -c "$PROGS/spin 100; true"
	expect_status 0 "$LUAPROF" run "$CHECKS/fieldnames.lua" -i replay.data
	expected replay > want.txt
	diff -u want.txt "$TMP/out" || fail "replaying: the unknown fields' messages differ"
}

# An unknown field ends the run as any script error does: one message
# with the script's line, exit 255.
typo() {
	printf 'function on_sample(s) local _ = s.feilds end\n' > typo.lua
	expect_status 255 "$LUAPROF" run ./typo.lua -e cpu-clock -- "$PROGS/spin" 50
	expect_grep "^luaprof: \./typo\.lua:1: s\.feilds: no such field of a sample; fields are: $sample_fields\$" "$TMP/err"
}

# The public modules, and nothing else.
modules() {
	cat > mods.lua <<'EOT'
for _, name in ipairs({ "calltree", "flamegraph", "fmt", "folded", "hist", "json",
                        "map", "perfscript", "pprof", "push", "report", "speedscope", "stacks", "stat", "term",
                        "url" }) do
  assert(luaprof[name] ~= nil and luaprof[name] == require("luaprof." .. name), name)
end
for _, code in ipairs({ 'return luaprof.mapp', 'return require "luaprof.nope"', 'return require "sched"',
                        'return luaprof.perfpy', 'return require "luaprof.profile"' }) do
  print((select(2, pcall(load(code, "=chunk")))))
end
os.exit(0)
EOT
	expect_status 0 "$LUAPROF" run ./mods.lua -i /dev/null
	fields="calltree, const, demangle, errno_name, executable, exit, flamegraph, fmt, folded, frame, functions, hist, is_target, json, map, open_flags, options, perfscript, pprof, push, read_string, report, setup, shown, signal_name, speedscope, stacks, stat, syscall_name, syscall_nr, task_state, term, url, usage_error, version, write_file"
	cat > want.txt <<EOT
chunk:1: luaprof.mapp: no such field of luaprof; its fields are: $fields
chunk:1: require "luaprof.nope": no such module; luaprof's modules are: $modules
chunk:1: require "sched": 'sched' is a helper of luaprof's own scripts, not a public module; the modules are: $modules
chunk:1: luaprof.perfpy: 'perfpy' is a helper of luaprof's own scripts, not a public module; the modules are: $modules
chunk:1: require "luaprof.profile": 'profile' is a helper of luaprof's own scripts, not a public module; the modules are: $modules
EOT
	diff -u want.txt "$TMP/out" || fail "the module errors differ"
}

# A script of the user's requiring a helper: one line, exit 255.
user_helper() {
	printf 'local profile = require "profile"\nprint(profile)\n' > user.lua
	expect_status 255 "$LUAPROF" run ./user.lua -- true
	expect_grep "^luaprof: \./user\.lua:1: require \"profile\": 'profile' is a helper of luaprof's own scripts, not a public module; the modules are: $modules\$" "$TMP/err"
}

# ... unless it has a module of that name of its own, beside it.
own_module() {
	printf 'return { mine = true }\n' > profile.lua
	printf 'assert(require("profile").mine) print("own module") os.exit(0)\n' > own.lua
	expect_status 0 "$LUAPROF" run ./own.lua -i /dev/null
	expect_grep '^own module$' "$TMP/out"
}

# A copy of a shipped script is a script of the user's: not given them.
copied_script() {
	mkdir mine
	cp "$ROOT/scripts/folded.lua" mine/
	expect_status 255 "$LUAPROF" run ./mine/folded.lua -- true
	expect_grep "require \"profile\": 'profile' is a helper of luaprof's own scripts" "$TMP/err"
}

# The shipped one, by name, has them.
shipped() {
	expect_status 0 "$LUAPROF" run folded -e cpu-clock -- "$PROGS/spin" 50
}

scenario "unknown fields, live" live
scenario "unknown fields, replaying" replaying
scenario "an unknown field ends the run" typo
scenario "the public modules, and nothing else" modules
scenario "a user's script requiring a helper" user_helper
scenario "a module of the user's own by a helper's name" own_module
scenario "a copy of a shipped script" copied_script
scenario "the shipped script by name" shipped
scenarios_done

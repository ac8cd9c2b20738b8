-- olplan (lua/helpers/olplan.lua), the one-liners' planner: the event
-- matching test, bpftrace's probes, the names checked before the first
-- sample (free names, fields, aggregations' shapes, a recording's), the
-- map names, and which clauses go to C and why.
local T = require "harness"

local root = debug.getinfo(1, "S").source:match("^@(.*)/tests/lua/[^/]*$") or "."
package.path = root .. "/lua/helpers/?.lua;" .. package.path
local P = require "olparse"
local PL = require "olplan"

local function fields(list)
  local out = {}
  for name, kind in list:gmatch("(%S+):(%a+)") do out[#out + 1] = { name = name, kind = kind, signed = true } end
  return out
end

-- What agg.describe says of an event here, made up: a few tracepoints,
-- probes, and the software events.
local FORMATS = {
  ["sched:sched_switch"] = fields("prev_comm:string prev_pid:integer prev_prio:integer prev_state:integer " ..
                                  "next_comm:string next_pid:integer next_prio:integer"),
  ["sched:sched_wakeup"] = fields("comm:string pid:integer prio:integer target_cpu:integer"),
  ["syscalls:sys_enter_openat"] = fields("__syscall_nr:integer dfd:integer filename:integer flags:integer " ..
                                         "mode:integer"),
  ["syscalls:sys_exit_read"] = fields("__syscall_nr:integer ret:integer"),
}
local SOFTWARE = { ["cpu-clock"] = true, ["page-faults"] = true, ["context-switches"] = true }

local function describe(ev, want)
  local kind = ev:match("^(%a+):")
  if kind == "uprobe" or kind == "uretprobe" or kind == "usdt" then
    return { { name = ev, kind = kind, rate = "default", nargs = kind == "usdt" and 2 or nil } }
  end
  if ev == "sched:*" then
    return { { name = "sched:sched_switch", kind = "tracepoint", fields = want and FORMATS["sched:sched_switch"] },
             { name = "sched:sched_wakeup", kind = "tracepoint", fields = want and FORMATS["sched:sched_wakeup"] } }
  end
  if FORMATS[ev] then return { { name = ev, kind = "tracepoint", rate = "default", fields = want and FORMATS[ev] } } end
  local base = ev:match("^[%a-]+")
  if SOFTWARE[base] then return { { name = ev, kind = "software", rate = "run" } } end
  return nil, "unknown event '" .. ev .. "'"
end

local function ctx_of(opts)
  opts = opts or {}
  return { describe = not opts.replay and describe or nil, globals = _G, c = not opts.no_c, rate = opts.rate,
           replay = opts.replay, lua_only = opts.lua, interval = opts.interval }
end

local function plan(src, opts)
  return PL.plan(P.program(src), ctx_of(opts))
end

-- "LINE:COL: MSG" of the error planning src raises, or "no error".
local function err_of(src, opts)
  local ok, e = pcall(plan, src, opts)
  if ok then return "no error" end
  if not P.is_error(e) then error(e, 0) end
  local l, c = P.where(src, e.pos)
  return string.format("%d:%d: %s", l, c, e.msg)
end

-- Each clause's way: "C" or "Lua: WHY".
local function ways(src, opts)
  local out = {}
  for _, c in ipairs(plan(src, opts).clauses) do
    if c.kind == "event" then out[#out + 1] = c.way == "C" and "C" or "Lua: " .. c.why end
  end
  return table.concat(out, " | ")
end

T.case("distance and the closest name", function()
  T.eq(PL.distance("filenme", "filename"), 1)
  T.eq(PL.distance("next_comn", "next_comm"), 1)
  T.eq(PL.distance("ab", "ba"), 1)
  T.eq(PL.distance("", "abc"), 3)
  T.eq(PL.closest("symm", { "comm", "sym", "sum" }), "sym")
  T.eq(PL.closest("filenme", { "dfd", "filename", "flags" }), "filename")
  T.eq(PL.closest("zzz", { "comm", "sym" }), nil)
  T.eq(PL.closest("x", { "y" }), nil)
end)

T.case("event matching: one test for every use", function()
  T.eq(PL.event_matches("sched:sched_switch", "sched:sched_switch"), true)
  T.eq(PL.event_matches("cpu-clock", "cpu-clock:u"), true)
  T.eq(PL.event_matches("cpu-clock:u", "cpu-clock"), true)
  T.eq(PL.event_matches("cs", "context-switches"), true)
  T.eq(PL.event_matches("sched:*", "sched:sched_switch"), true)
  T.eq(PL.event_matches("sched:sched_s?itch", "sched:sched_switch"), true)
  T.eq(PL.event_matches("sched:*", "syscalls:sys_exit_read"), false)
  T.eq(PL.event_matches("sched:sched_switch", "sched:sched_wakeup"), false)
  T.eq(PL.event_matches("cpu-clock/freq=99/", "cpu-clock/freq=99/"), true)
  T.eq(PL.event_matches("cpu-clock/freq=99/", "cpu-clock/freq=999/"), false)
  T.eq(PL.event_matches("uprobe:/a/b:f", "uprobe:/a/b:f"), true)
end)

-- The -e item and match name of one spelling of an event.
local function tr(text, opts)
  local e = PL.translate({ text = text, pos = 1 }, ctx_of(opts))
  if e.kind == "event" then return e.spec .. " | " .. e.match end
  return e.kind .. (e.interval_ms and " " .. e.interval_ms or "")
end

T.case("bpftrace's probes run as they are written", function()
  T.eq(tr("tracepoint:syscalls:sys_enter_openat"), "syscalls:sys_enter_openat | syscalls:sys_enter_openat")
  T.eq(tr("t:sched:sched_switch"), "sched:sched_switch | sched:sched_switch")
  T.eq(tr("profile:hz:99"), "cpu-clock/freq=99/ | cpu-clock/freq=99/")
  T.eq(tr("profile:ms:10"), "cpu-clock/period=10000000/ | cpu-clock/period=10000000/")
  T.eq(tr("profile:hz:99", { replay = true }), "cpu-clock/freq=99/ | cpu-clock")
  T.eq(tr("software:faults:1"), "page-faults/period=1,name=page-faults/ | page-faults")
  T.eq(tr("software:cs:100"), "context-switches/period=100,name=context-switches/ | context-switches")
  T.eq(tr("hardware:cache-misses:1000000"), "cache-misses/period=1000000,name=cache-misses/ | cache-misses")
  T.eq(tr("interval:s:1"), "interval 1000")
  T.eq(tr("interval:ms:250"), "interval 250")
  T.eq(tr("i:hz:4"), "interval 250")
  T.eq(tr("uprobe:/bin/bash:readline"), "uprobe:/bin/bash:readline | uprobe:/bin/bash:readline")
  T.eq(tr("ur:/bin/bash:readline"), "uretprobe:/bin/bash:readline | uretprobe:/bin/bash:readline")
  T.eq(tr("U:/bin/x:prov:name"), "usdt:/bin/x:prov:name | usdt:/bin/x:prov:name")
  T.eq(tr("BEGIN"), "begin")
  T.eq(tr("END"), "end")
end)

T.case("counting events count every event unless -F or -c", function()
  T.eq(tr("page-faults"), "page-faults/period=1,name=page-faults/ | page-faults")
  T.eq(tr("faults:u"), "page-faults/period=1,name=page-faults:u/u | page-faults:u")
  T.eq(tr("cs"), "context-switches/period=1,name=context-switches/ | context-switches")
  T.eq(tr("page-faults", { rate = true }), "page-faults | page-faults")
  T.eq(tr("page-faults", { replay = true }), "page-faults | page-faults")
  T.eq(tr("page-faults/period=7/"), "page-faults/period=7/ | page-faults/period=7/")
  T.eq(tr("cpu-clock"), "cpu-clock | cpu-clock")
end)

T.case("bpftrace's probes: mistakes", function()
  T.eq(err_of("tracepoint:sched { }"), "1:1: bpftrace's tracepoint:SYSTEM:EVENT is SYSTEM:EVENT here, not " ..
                                       "'tracepoint:sched'")
  T.eq(err_of("profile:hz:x { }"), "1:1: profile:hz:x needs a positive integer, not 'x'")
  T.eq(err_of("profile:min:1 { }"), "1:1: a profile probe is profile:hz:N, profile:s:N, profile:ms:N or " ..
                                    "profile:us:N, not 'profile:min:1'")
  T.eq(err_of("software:fautls:1 { }"):match("^.-%(did you mean 'faults'%?%)$") ~= nil, true)
  T.eq(err_of("interval:us:10 { }"), "1:1: 'interval:us:10' is not a whole number of milliseconds: " ..
                                     "luaprof's intervals are in ms")
  T.eq(err_of("kfunc:vfs_read { }"), "1:1: luaprof cannot place bpftrace's kfunc probes ('kfunc:vfs_read'): " ..
                                     "see 'luaprof list' for what it can sample")
  T.eq(err_of("cpu-clock,BEGIN { }"), "1:11: BEGIN is a clause of its own: it takes no other event")
  T.eq(err_of("BEGIN /x/ { }"), "1:7: BEGIN takes no /condition/")
  T.eq(err_of("nosuch:event { }"), "1:1: unknown event 'nosuch:event'")
end)

T.case("names: every free name is known before the first sample", function()
  T.eq(err_of("cpu-clock { count(symm) }"), "1:19: unknown name 'symm' (did you mean 'sym'?)")
  T.eq(err_of("cpu-clock { count(arg0) }"), "1:19: bpftrace's arg0 is args[1] here: luaprof's arguments are " ..
                                            "args[1..6]")
  T.eq(err_of("cpu-clock { count(uid) }"), "1:19: luaprof's samples carry no user id (bpftrace's uid): a " ..
                                           "tracepoint's field or -p chooses whom")
  T.eq(err_of("cpu-clock { count(probe) }"), "1:19: bpftrace's probe is event here")
  T.eq(err_of("BEGIN { print(comm) }"), "1:15: comm is a sample's: BEGIN has no sample (use it in an event's clause)")
  T.eq(err_of("interval:s:1 { print(pid) }"), "1:22: pid is a sample's: an interval clause has no sample " ..
                                              "(use it in an event's clause)")
  T.eq(err_of("cpu-clock { qqqqqq() }"):match("^1:13: unknown name 'qqqqqq': a sample's are args, comm, ") ~= nil,
       true)
  -- Lua's names, the program's own globals and locals are known
  T.eq(err_of("BEGIN { x = string.format('%d', 1) } cpu-clock { local n = 1; print(x, n, math.pi, t, s.ip) }"),
       "no error")
  T.eq(err_of("END { print(later) } cpu-clock { later = pid }"), "no error")
  T.eq(err_of("BEGIN { print(_ENV.x, _G.y) }"), "no error")
  T.eq(err_of("cpu-clock { local function f(a) return a + y end }"):match("unknown name 'y'") ~= nil, true)
end)

T.case("names: fields and arguments against the events", function()
  T.eq(err_of("syscalls:sys_enter_openat { count(args.filenme) }"),
       "1:40: syscalls:sys_enter_openat has no field 'filenme' (did you mean 'filename'?)")
  T.eq(err_of("sched:sched_switch { count(args.next_comn) }"),
       "1:33: sched:sched_switch has no field 'next_comn' (did you mean 'next_comm'?)")
  T.eq(err_of("sched:sched_switch { count(args['next_comn']) }"),
       "1:33: sched:sched_switch has no field 'next_comn' (did you mean 'next_comm'?)")
  T.eq(err_of("sched:sched_switch { count(args.zzzzzzzz) }"),
       "1:33: sched:sched_switch has no field 'zzzzzzzz' (its fields: prev_comm, prev_pid, prev_prio, " ..
       "prev_state, next_comm, next_pid, next_prio)")
  T.eq(err_of("sched:sched_switch { count(args.common_pid) }"), "1:33: common_pid is not in args: use pid")
  T.eq(err_of("sched:sched_switch { count(args[1]) }"),
       "1:33: a tracepoint's fields are named, args.prev_comm: sched:sched_switch has prev_comm, prev_pid, " ..
       "prev_prio, prev_state, next_comm, next_pid, next_prio")
  -- a glob: a field of any of its tracepoints
  T.eq(err_of("sched:* { count(args.target_cpu, args.prev_pid) }"), "no error")
  T.eq(err_of("uprobe:/bin/x:f { count(args[0]) }"), "1:30: luaprof's arguments are args[1..6]: bpftrace's arg0 " ..
                                                      "is args[1]")
  T.eq(err_of("uprobe:/bin/x:f { count(args[7]) }"), "1:30: uprobe:/bin/x:f has 6 arguments: args[1..6]")
  T.eq(err_of("uprobe:/bin/x:f { count(args.x) }"), "1:30: a probe's arguments are args[1], args[2], ... by " ..
                                                    "position, not args.x")
  T.eq(err_of("usdt:/bin/x:p:n { count(args[3]) }"), "1:30: usdt:/bin/x:p:n has 2 arguments: args[1..2]")
  T.eq(err_of("uretprobe:/bin/x:f { count(args[1]) }"), "1:33: a uretprobe has no args: its return value is retval")
  T.eq(err_of("cpu-clock { count(args.x) }"), "1:24: cpu-clock has no args: only tracepoints (their fields) and " ..
                                              "probes (their arguments) have")
  T.eq(err_of("cpu-clock { count(retval) }"), "1:19: retval is a uretprobe's return value: cpu-clock has none")
  T.eq(err_of("uretprobe:/bin/x:f { hist(retval) } uprobe:/bin/x:f { count(args[6]) }"), "no error")
  -- a local named args is the program's own
  T.eq(err_of("cpu-clock { local args = {}; count(args.x) }"), "no error")
  -- replaying, the recording says (check_recording)
  T.eq(err_of("sched:sched_switch { count(args.next_comn) }", { replay = true }), "no error")
end)

T.case("aggregations: their shape", function()
  T.eq(err_of("cpu-clock { hist() }"), "1:13: hist() needs a value: hist(v, k...), e.g. hist(args.ret)")
  T.eq(err_of("cpu-clock { sum() }"), "1:13: sum() needs a value: sum(v, k...), e.g. sum(args.ret, comm)")
  T.eq(err_of("cpu-clock { avg('@m') }"), "1:13: avg() needs a value: avg(v, k...), e.g. avg(args.ret, comm)")
  T.eq(err_of("cpu-clock { sum(comm) }"), "1:17: sum's value comm is a string: sum takes numbers; count(comm) " ..
                                          "counts by it")
  T.eq(err_of('cpu-clock { sum("x") }'), '1:17: sum\'s value "x" is a string: sum takes numbers; count("x") ' ..
                                         'counts by it')
  T.eq(err_of("sched:sched_switch { max(args.prev_comm) }"), "1:26: max's value args.prev_comm is a string: max " ..
                                                             "takes numbers; count(args.prev_comm) counts by it")
  T.eq(err_of("cpu-clock { count() hist(pid) sum(1, comm) min('@lo', tid) }"), "no error")
  T.eq(err_of('cpu-clock { count("@m") } BEGIN { sum("@m", 1) }'),
       "1:35: @m holds count() (at 1:13): it cannot take sum() too")
  -- stats and lhist, as bpftrace's
  T.eq(err_of("cpu-clock { stats() }"), "1:13: stats() needs a value: stats(v, k...), e.g. stats(args.ret)")
  T.eq(err_of("cpu-clock { stats(comm) }"), "1:19: stats's value comm is a string: stats takes numbers; " ..
                                            "count(comm) counts by it")
  T.eq(err_of("cpu-clock { lhist() }"), "1:13: lhist() needs a value: lhist(v, min, max, step, k...), e.g. " ..
                                        "lhist(args.ret, 0, 1000, 100)")
  T.eq(err_of("cpu-clock { lhist(pid, 0, 10) }"), "1:13: lhist() needs a value, min, max and step: " ..
                                                  "lhist(v, min, max, step, k...), e.g. lhist(args.ret, 0, 1000, 100)")
  T.eq(err_of("cpu-clock { local m = 9; lhist(pid, 0, m, 1) }"), "1:40: lhist's max m is not an integer written " ..
       "out (as bpftrace's): lhist(v, min, max, step, k...), e.g. lhist(args.ret, 0, 1000, 100)")
  T.eq(err_of("cpu-clock { lhist(pid, 0, 1.5, 1) }"), "1:27: lhist's max 1.5 is not an integer written out (as " ..
       "bpftrace's): lhist(v, min, max, step, k...), e.g. lhist(args.ret, 0, 1000, 100)")
  T.eq(err_of("cpu-clock { lhist(pid, 10, 0, 1) }"), "1:24: lhist's min 10 is not below its max 0")
  T.eq(err_of("cpu-clock { lhist(pid, 0, 10, 0) }"), "1:31: lhist's step 0 is not 1 or more")
  T.eq(err_of("cpu-clock { lhist(pid, 0, 100000, 1) }"), "1:13: lhist(v, 0, 100000, 1) has more than 1000 " ..
       "buckets (bpftrace's limit): a larger step makes fewer")
  T.eq(err_of("cpu-clock { lhist(pid, -10, 990, 1, comm) stats(pid, comm) }"), "no error")
  T.eq(plan("cpu-clock { lhist(pid, -10, 990, 1, comm) }").clauses[1].aggs[1].lhist, { -10, 990, 1 })
  T.eq(err_of("cpu-clock { lhist(pid, 0, 10, 1) } BEGIN { lhist(1, 0, 20, 1) }"),
       "1:44: @ holds lhist(v, 0, 10, 1) (at 1:13): it cannot take lhist(v, 0, 20, 1) too")
  local many = {}
  for i = 1, 33 do many[i] = tostring(i) end
  T.eq(err_of("cpu-clock { count(" .. table.concat(many, ", ") .. ") }"):match("^[^:]*:[^:]*: (.*)"),
       "count() takes 32 keys at most, not 33")
end)

T.case("a map's calls agree: one shape of key, as bpftrace's", function()
  -- the number of keys: the call with more of them named apart
  T.eq(err_of("syscalls:sys_exit_read { count(comm, args.ret) } sched:sched_switch { count(comm) }"),
       "1:71: @ is keyed by 2 values at 1:26 (count(comm, args.ret)) and by 1 here: a map keeps one shape of key, " ..
       "as bpftrace's; name the maps apart: count(\"@rets\", comm, args.ret)")
  T.eq(err_of("cpu-clock { count() } BEGIN { count('@x') count(1) }"),
       "1:43: @ is keyed by 0 values at 1:13 (count()) and by 1 here: a map keeps one shape of key, as " ..
       "bpftrace's; name the maps apart: count(\"@count\", 1)")
  -- the kinds of keys, where known: strings and integers
  T.eq(err_of("cpu-clock { count(comm, pid) } BEGIN { count(3, 4) }"),
       "1:46: @'s key 1 is an integer here (3) and a string at 1:13 (comm): a map's keys keep their kinds, as " ..
       "bpftrace's; name the maps apart: count(\"@count\", 3, 4)")
  T.eq(err_of("sched:sched_switch { sum('@b', 1, args.prev_comm) } cpu-clock { sum('@b', 2, tid) }"),
       "1:78: @b's key 1 is an integer here (tid) and a string at 1:22 (args.prev_comm): a map's keys keep their " ..
       "kinds, as bpftrace's; name the maps apart: sum(\"@tids\", 2, tid)")
  -- a kind learnt from a later call; unknown kinds and counts pass
  T.eq(err_of("cpu-clock { local x; count(x, 1) count(comm, 2) count(3, 4) }"):match("^1:55: @'s key 1 is an " ..
       "integer here %(3%) and a string at 1:34 %(comm%)") ~= nil, true)
  T.eq(err_of("cpu-clock { local t = {}; count(table.unpack(t)) count(comm, pid) }"), "no error")
  T.eq(err_of("cpu-clock { local t = {}; count(pid, table.unpack(t)) count(comm, pid) }"):match("key 1 is a string"),
       "key 1 is a string")
  T.eq(err_of("cpu-clock { count(str(pid)) count(ustack(2)) count(tostring(cpu)) }"), "no error")
  T.eq(err_of("cpu-clock { count(ustack(2)) count(pid) }"):match("key 1 is an integer here %(pid%)") ~= nil, true)
  -- named maps apart: no error
  T.eq(err_of("cpu-clock { count('@a', comm) count('@b', comm, pid) count('@c', pid) }"), "no error")
end)

T.case("ustack(N) and kstack(N): the frames kept", function()
  local c = plan("cpu-clock { count(ustack(3), kstack(1)) } cpu-clock /ustack ~= ''/ { count('@k', kstack) }")
    .clauses
  T.eq(c[1].edits, { { from = 19, to = 27, text = "_B.stack(false, s, 3)" },
                     { from = 30, to = 38, text = "_B.stack(true, s, 1)" } })
  T.eq(c[1].locals, {}, "a call reads no stack text of its own")
  T.eq(c[2].edits, {})
  T.eq(c[2].locals, { "ustack", "kstack" })
  T.eq(plan("cpu-clock { count(ustack()) }").clauses[1].edits[1].text, "_B.stack(false, s)")
  T.eq(plan("cpu-clock { count(ustack(5)) }").call_graph, true)
  T.eq(err_of("cpu-clock { count(ustack(0)) }"), "1:26: ustack's frames are 1 to 1024, not 0")
  T.eq(err_of("cpu-clock { count(kstack(2000)) }"), "1:26: kstack's frames are 1 to 1024, not 2000")
  T.eq(err_of("cpu-clock { local n = 3; count(ustack(n)) }"), "1:39: ustack's frames n are not an integer written " ..
       "out (as bpftrace's): ustack(5) keeps the first 5 frames")
  T.eq(err_of("cpu-clock { count(ustack(perf, 3)) }"), "1:19: ustack(N) takes the number of frames alone (luaprof " ..
       "prints stacks as bpftrace's default mode): ustack(5) keeps the first 5 frames")
  T.eq(err_of("BEGIN { print(ustack(3)) }"), "1:15: ustack is a sample's: BEGIN has no sample (use it in an " ..
       "event's clause)")
end)

T.case("map names are decided on the tree", function()
  -- a string literal is no call: the map stays @
  T.eq(plan('cpu-clock { count(comm); x = "hist(x)" }').map_name.count, "@")
  T.eq(plan("cpu-clock { count(comm) } BEGIN { hist('@h', 1) }").map_name.count, "@")
  T.eq(plan("cpu-clock { count(comm) } BEGIN { hist(1) }").map_name.count, "@count")
  T.eq(plan("cpu-clock { count(comm) } BEGIN { hist(1) }").map_name.hist, "@hist")
end)

T.case("C or Lua, and why", function()
  T.eq(ways("sched:sched_switch { count(comm) }"), "C")
  T.eq(ways("sched:sched_switch { count((comm)) }"), "C")
  T.eq(ways("sched:sched_switch { count(comm) -- by thread\n }"), "C")
  T.eq(ways("sched:sched_switch { count(comm); }"), "C")
  T.eq(ways("syscalls:sys_exit_read /args.ret >= 1/ { sum(args.ret, comm, pid, tid, cpu) }"), "C")
  T.eq(ways("syscalls:sys_exit_read /1 <= args.ret/ { min(args.ret) }"), "C")
  T.eq(ways("syscalls:sys_exit_read /args.ret ~= -1/ { hist('@r', args['ret']) }"), "C")
  T.eq(ways("sched:sched_switch { count(comm) }", { lua = true }), "Lua: LUAPROF_ONELINER=lua")
  T.eq(ways("sched:sched_switch { count(comm) }", { no_c = true }), "Lua: no C aggregation here")
  T.eq(ways("sched:sched_switch { avg(pid) }"), "C")
  T.eq(ways("sched:sched_switch { stats(args.prev_pid, comm) }"), "C")
  T.eq(ways("sched:sched_switch { lhist(args.prev_pid, 0, 100, 10, comm) }"), "C")
  T.eq(ways("sched:sched_switch { count(ustack(2)) }"), "Lua: its key ustack(2) is not comm, pid, tid, cpu, sym " ..
                                                        "or args.NAME")
  T.eq(ways("sched:* { count(comm) }"), "Lua: its event is a glob")
  T.eq(ways("sched:sched_switch { count(comm) } sched:* { count('@n') }"),
       "Lua: clause 2 (sched:*) takes its samples too | Lua: its event is a glob")
  T.eq(ways("sched:sched_switch,sched:sched_wakeup { count(comm) }"), "Lua: it has 2 events")
  T.eq(ways("sched:sched_switch { count(comm) count('@p', pid) }"), "Lua: its body is not one aggregation call")
  T.eq(ways("sched:sched_switch { print(comm) }"), "Lua: its body is not one aggregation call")
  T.eq(ways("sched:sched_switch { count(event) }"), "Lua: its key event is not comm, pid, tid, cpu, sym or args.NAME")
  T.eq(ways("sched:sched_switch { count(pid % 2) }"), "Lua: its key pid % 2 is not comm, pid, tid, cpu, sym or " ..
                                                      "args.NAME")
  T.eq(ways("sched:sched_switch { count(comm, pid, tid, cpu, sym) }"), "Lua: 5 keys (C takes 4)")
  T.eq(ways("sched:sched_switch /comm == 'x'/ { count() }"), "Lua: its condition is not OPERAND CMP INTEGER")
  T.eq(ways("sched:sched_switch /pid > 1 and tid > 1/ { count() }"), "Lua: its condition is not OPERAND CMP INTEGER")
  T.eq(ways("sched:sched_switch /args.prev_pid > 1.5/ { count() }"), "Lua: its condition is not OPERAND CMP INTEGER")
  T.eq(ways("sched:sched_switch /sym == 1/ { count() }"), "Lua: its condition compares a string")
  T.eq(ways("BEGIN { count = print } sched:sched_switch { count(comm) }"), "Lua: the program assigns count")
  local p = plan("syscalls:sys_exit_read /args.ret > -2/ { hist('@r', args.ret, comm) }")
  T.eq(p.clauses[1].agg, { event = "syscalls:sys_exit_read", op = "hist", keys = { "comm" }, value = "field:ret",
                           map = "@r", filter = { "field:ret", ">", -2 } })
  p = plan("syscalls:sys_exit_read { lhist(args.ret, 0, 4096, 512) }")
  T.eq(p.clauses[1].agg, { event = "syscalls:sys_exit_read", op = "lhist", keys = {}, value = "field:ret",
                           map = "@", lhist = { 0, 4096, 512 } })
end)

T.case("the plan: events, locals, call graph, ticks", function()
  local p = plan("sched:sched_switch { t[tid] = nsecs } cpu-clock { count(ustack) } cpu-clock { count('@n') } " ..
                 "interval:ms:300 { } interval:s:1 { }")
  T.eq(p.events, { "sched:sched_switch", "cpu-clock" })
  T.eq(p.clauses[1].locals, { "nsecs", "tid" })
  T.eq(p.call_graph, true)
  T.eq(p.tick_ms, 100)
  T.eq(plan("interval:ms:300 { }", { interval = 500 }).tick_ms, 500)
  T.eq(plan("BEGIN { }").events, {})
end)

-- The error check_recording raises for src over the recording rec
-- ("LINE:COL: MSG"), and the warnings it gives.
local function rec_check(src, rec)
  local p = plan(src, { replay = true })
  local warnings = {}
  local ok, e = pcall(PL.check_recording, p, rec, function(pos, msg)
    local l, c = P.where(src, pos)
    warnings[#warnings + 1] = string.format("%d:%d: %s", l, c, msg)
  end)
  if not ok and not P.is_error(e) then error(e, 0) end
  local w = table.concat(warnings, " | ")
  if ok then return "no error", w end
  local l, c = P.where(src, e.pos)
  return string.format("%d:%d: %s", l, c, e.msg), w
end

local function rec_event(name, carried, flds)
  local r = { name = name, ip = true, tid = true, time = true, cpu = true, callchain = false, raw = flds ~= nil,
              fields = flds }
  for k, v in pairs(carried or {}) do r[k] = v end
  return r
end

T.case("a recording: its events, fields and what its samples carry", function()
  local nocpu = { rec_event("cpu-clock", { cpu = false }) }
  T.eq({ rec_check("cpu-clock { count(cpu) }", nocpu) },
       { "1:19: cpu is nil in every sample of this recording, so this clause's answer would be empty: its samples " ..
         "carry no CPU (perf record without -a leaves it out)", "" })
  T.eq({ rec_check("cpu-clock { count(comm, cpu) }", nocpu) }, { "1:25: cpu is nil in every sample of this " ..
       "recording, so this clause's answer would be empty: its samples carry no CPU (perf record without -a " ..
       "leaves it out)", "" })
  T.eq({ rec_check("cpu-clock { printf('%s\\n', cpu) }", nocpu) }, { "no error", "1:28: cpu is nil in this " ..
       "recording: its samples carry no CPU (perf record without -a leaves it out)" })
  T.eq({ rec_check("cpu-clock { count(comm) }", nocpu) }, { "no error", "" })
  T.eq({ rec_check("sched:sched_switch { count() }", nocpu) },
       { "1:1: the recording has no event 'sched:sched_switch' (it has cpu-clock)", "" })
  local sw = { rec_event("sched:sched_switch", nil, FORMATS["sched:sched_switch"]) }
  T.eq({ rec_check("sched:sched_switch { count(args.next_comn) }", sw) },
       { "1:33: sched:sched_switch has no field 'next_comn' (did you mean 'next_comm'?)", "" })
  T.eq({ rec_check("sched:sched_switch { sum(args.next_comm) }", sw) }, { "1:26: sum's value args.next_comm is a " ..
       "string: sum takes numbers; count(args.next_comm) counts by it", "" })
  T.eq({ rec_check("tracepoint:sched:sched_switch { count(args.next_pid) }", sw) }, { "no error", "" })
  T.eq({ rec_check("sched:* { count(ustack) }", sw) }, { "no error", "1:17: ustack is empty in this recording: its " ..
       "samples carry no call stack (record with -g)" })
end)

T.case("explain: the plan as text", function()
  local text = PL.explain(plan("syscalls:sys_exit_read /args.ret > 0/ { sum(args.ret, comm) } BEGIN { } " ..
                               "page-faults { count(event) }"))
  T.eq(text, table.concat({
    "luaprof: -x plan (LUAPROF_ONELINER=explain):",
    "  clause 1 at 1:1: syscalls:sys_exit_read /args.ret > 0/ { sum(args.ret, comm) }",
    "    event: syscalls:sys_exit_read (tracepoint)",
    "    sample's names: comm, args.ret",
    "    aggregation: sum() into @sum (value args.ret; keys comm)",
    "    way: C (core/agg, no Lua call per sample): sum(args.ret, comm) when args.ret > 0",
    "  clause 2 at 1:63: BEGIN { }",
    "    runs: once, before the first sample",
    "  clause 3 at 1:73: page-faults { count(event) }",
    "    event: page-faults/period=1,name=page-faults/ (software; every event, as -c 1: -F or -c samples)",
    "    sample's names: event",
    "    aggregation: count() into @count (keys event)",
    "    way: Lua, a call per sample: its key event is not comm, pid, tid, cpu, sym or args.NAME",
  }, "\n") .. "\n")
end)

T.done()

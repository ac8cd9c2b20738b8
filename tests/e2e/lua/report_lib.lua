-- report_lib.lua: every module of the report library on known input;
-- report_lib.sh compares the output with expected/report_lib.txt.
local fmt, json = luaprof.fmt, luaprof.json

print("== map")
local m = luaprof.map()
for _, k in ipairs({ "b", "a", "c", "a", "b", "a" }) do m:add(k) end
m:add("c", 2)
m:add(7, 5)
m:add(-3)
print(#m, m:sum(), m:get("a"), m:get("zz"), m:get(7))
for k, n in m:sorted() do io.write(tostring(k), "=", n, " ") end print()
for k, n in m:sorted("key") do io.write(tostring(k), "=", n, " ") end print()
do local it, st, c = pairs(m) local k, n = it(st, c) io.write(tostring(k), "=", n, " ") end print()
local top = m:top(2)
print(#top, top[1][1], top[1][2], top[2][1], top[2][2])
local t = luaprof.map()
t:add({ "x", 2 }) t:add({ "x", 1 }, 3) t:add({ "w", 9 }, 2) t:add({ "x", 2 })
for k, n in t:sorted("key") do io.write(k[1], ",", k[2], "=", n, " ") end print()
print(t:get({ "x", 1 }), t:get({ "q", 1 }), #t, t:sum())
t:add({ "x", 1 }, 0.5)
print(t:get({ "x", 1 }))
t:clear() print(#t, t:sum())
print(pcall(m.add, m, nil))
print(select(2, pcall(t.add, t, { "a" })) ~= nil)

print("== hist")
local h = luaprof.hist()
for _, v in ipairs({ 0, 1, 1, 2, 3, 5, 8, 13, 21, 1024, 1500, 2047, 4096, -4 }) do h:add(v) end
io.write(tostring(h))
print(h:count(), h:sum(), h:min(), h:max(), string.format("%.4f", h:mean()))
print(h:quantile(0), h:quantile(1), string.format("%.2f", h:quantile(0.5)))
local s = h:stats() print(s.count, s.sum, s.min, s.max)
local l = luaprof.hist{ min = 0, max = 100, step = 25 }
for v = -5, 130, 10 do l:add(v) end
l:add(50, 3)
io.write(tostring(l))
print(l:count(), string.format("%.2f", l:quantile(0.5)), l:quantile(0.99))
local b = l:buckets() print(#b, b[1].min, b[1].max, b[1].count, b[#b].min, b[#b].max)
local e = luaprof.hist() print(e:count(), e:min(), e:quantile(0.5), tostring(e) == "")

print("== fmt")
fmt.print_table({ { "alpha", 12, "1.5%" }, { "b", 3, "100.0%" }, { "gamma", 1234567, "0.1%" } },
                { headers = { "NAME", "COUNT", "SHARE" } })
print(fmt.ns(850), fmt.ns(12345), fmt.ns(4560000), fmt.ns(1.5e9))
print(fmt.count(999), fmt.count(12345), fmt.count(4560000), fmt.count(7.89e9))
print(fmt.bytes(512), fmt.bytes(1536), fmt.bytes(20 * 1048576), fmt.pct(1, 8), fmt.pct(1, 0), fmt.pct(2, 3, 1))

print("== json")
print(json.encode({ 1, 2, 3 }))
print(json.encode({ b = 1, a = { true, false }, c = "x" }, { sort_keys = true }))
print(json.encode({ n = math.maxinteger, m = math.mininteger, f = 0.1, g = 1e300, h = -0.0 }, { sort_keys = true }))
print(json.encode("quote\" back\\ nl\n tab\t ctl\1 é 😀 bad\xff\xc3 over\xc0\xaf sur\xed\xa0\x80"))
print(json.encode(json.array()), json.encode({}), json.encode(json.null),
      json.encode({ [1] = "a", [3] = "c" }, { sort_keys = true }))
print(json.encode({ a = { b = 1 } }, { indent = 2, sort_keys = true }))
local cyc = {} cyc.self = cyc
print(pcall(json.encode, cyc))
print(pcall(json.encode, 0 / 0))
print(pcall(json.encode, { [true] = 1 }))

print("== folded")
local st = luaprof.map()
st:add("main;b;c", 3) st:add("main;a", 2) st:add("main;b;c", 1)
io.write(luaprof.folded.text(st))
io.write(luaprof.folded.text({ ["x;y"] = 5 }))

print("== flamegraph")
local svg = luaprof.flamegraph.svg(st, { title = "T<&>" })
local frames = {}
for title in svg:gmatch("<title>(.-)</title>") do frames[#frames + 1] = title end
table.sort(frames)
for _, f in ipairs(frames) do print(f) end
print(svg:find("<title>T", 1, true) == nil, svg:find("T&lt;&amp;&gt;", 1, true) ~= nil)
print(svg:find("<script>", 1, true) ~= nil, svg:find("http://", 1, true) ~= nil, svg:find("https://", 1, true) == nil)
local k = luaprof.flamegraph.svg({ ["u;sys_read_[k];inl_[i];jit_[j]"] = 4 })
for d, kind, title in k:gmatch('data%-d="(%d+)" data%-k="(%a)"><title>(.-)</title>') do print(d, kind, title) end
local diff = luaprof.flamegraph.svg({ ["m;a"] = 3, ["m;b"] = 1 }, { base = { ["m;a"] = 1, ["m;b"] = 3 } })
for title, fill in diff:gmatch("<title>(.-)</title><rect [^>]-fill=\"(.-)\"") do
  if title:match("^[ab] ") then print(title, fill) end
end
print(luaprof.flamegraph.svg({}):find(">no samples<", 1, true) ~= nil)
print(pcall(luaprof.flamegraph.svg, { ["a"] = "x" }))

print("== sched")
-- sched is a helper of the shipped scripts, on their require path only:
-- this test puts the checkout's helpers directory on its own.
package.path = arg[0]:match("^(.*)/tests/e2e/lua/") .. "/lua/helpers/?.lua;" .. package.path
local sched = require "sched"
print(sched.state(0), sched.state(1), sched.state(2), sched.state_name(0), sched.state_name(1))
-- Off-CPU intervals from switches (fake sched_switch samples): 7 leaves at
-- 100 (S) and is switched back in at 150; it leaves at 200 and its switch
-- back in is not recorded, but a sample of it at 260 ends that wait; it
-- leaves at 300 (R) and is switched out again at 400 (D), then at 500 (S),
-- with nothing between (each wait ends at the next switch out); a switch
-- record of it coming back in at 600 ends that wait (one going out, at
-- 550, does not); it leaves at 700 and the run ends at 900 with it still
-- out.  Thread 8 is
-- not wanted (filter).  A sample before a thread's switch out ends nothing.
local function sw(time, prev, state, nxt)
  return { time = time, pid = prev, args = { prev_pid = prev, prev_comm = "c" .. prev,
                                            prev_state = state, next_pid = nxt } }
end
local off = sched.offcpu{
  filter = function(tid) return tid ~= 8 end,
  keep = function(smp) return "kept" .. smp.time end,
  on_back = function(o, back)
    print(o.tid, o.comm, sched.state(o.state), o.time, back, back - o.time, o.missed, o.data)
  end,
}
off:running(7, 50)
off:switch(sw(100, 7, 1, 0))
off:switch(sw(110, 8, 1, 0))
off:switch(sw(150, 0, 0, 7))
off:switch(sw(200, 7, 1, 0))
off:running(7, 200)
off:running(7, 260)
off:running(7, 270)
off:switch(sw(300, 7, 0, 0))
off:switch(sw(400, 7, 2, 0))
off:switch(sw(500, 7, 1, 0))
off:switch_record({ tid = 7, time = 550, out = true })
off:switch_record({ tid = 7, time = 600, out = false })
off:switch_record({ tid = 7, time = 650, out = false })
off:switch(sw(700, 7, 1, 0))
off:finish(900)
print("missed", off.missed)

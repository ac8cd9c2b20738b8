-- stacks_api.lua: luaprof.stacks fed by the script: folded lines of its
-- own, per event, sorted as their text; its errors.  Prints "ok".
local st = luaprof.stacks{ events = true, feed = "script" }
st:add("m;b;c", 2, "ev1")
st:add("m;a", 1, "ev1")
st:add("m;a", 4, "ev1")
st:add("m;a;x", 0, "ev2")
local ev = st:events()
assert(#ev == 2 and ev[1] == "ev1" and ev[2] == "ev2", table.concat(ev, ","))
local got = {}
for k, n in st:each("ev1") do got[#got + 1] = k .. "=" .. n end
assert(table.concat(got, " ") == "m;a=5 m;b;c=2", table.concat(got, " "))
assert(st:sum("ev1") == 7 and st:sum("ev2") == 0 and st:sum("none") == 0)
assert(#st == 3)
for _ in st:each("none") do error("an event without stacks has none") end
assert(not pcall(st.add, st, "x", 1), "events = true: an event is needed")
assert(not pcall(luaprof.folded.text, st), "one event's stacks at a time")

local one = luaprof.stacks{ feed = "script" }
one:add("r;f", 3)
one:add("r", 1)
assert(luaprof.folded.text(one) == "r 1\nr;f 3\n", luaprof.folded.text(one))
local n = 0
for _, c in pairs(one) do n = n + c end
assert(n == 4 and one:sum() == 4)
assert(not pcall(one.add, one, "r", -1), "no negative count")
local ok, err
-- write streams the same text to a file, whole or not at all
local dir = os.getenv("TMPDIR") or "/tmp"
local path = string.format("%s/stacks_api.%d.folded", dir, math.random(1 << 30))
luaprof.folded.write(path, one)
local f = assert(io.open(path))
local written = f:read("a")
f:close()
os.remove(path)
assert(written == "r 1\nr;f 3\n", written)
local big = {}
for i = 1, 20000 do big[string.format("m;f%05d", i)] = i end
luaprof.folded.write(path, big)
f = assert(io.open(path))
written = f:read("a")
f:close()
os.remove(path)
assert(written == luaprof.folded.text(big) and #written > 200000, #written)
local bad = path .. ".missing/dir/out.folded"
ok, err = pcall(luaprof.folded.write, bad, one)
assert(not ok and err:find("cannot create"), err)
assert(not io.open(bad), "nothing written")
ok, err = pcall(luaprof.folded.write, path, { ["a;b"] = "x" })
assert(not ok and not io.open(path), "a bad count: an error and no file: " .. tostring(err))
one:clear()
assert(#one == 0 and luaprof.folded.text(one) == "")
one:close()
assert(not pcall(one.sum, one), "closed")
assert(not pcall(luaprof.stacks, { per = "nope" }))

local fed = luaprof.stacks{}
ok, err = pcall(fed.add, fed, {})
assert(not ok and err:find("fed every sample"), err)
fed:close()
function on_end() print("ok") end   -- a hook: the run reaches the script

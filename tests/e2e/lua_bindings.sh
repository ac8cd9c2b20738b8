# lua_bindings: the bindings' one way (issue 36): every class is named
# "luaprof.MODULE.Type" (tostring, type errors); a wrong argument says
# its position, as Lua's own libraries do, a value inside an options
# table included (it used to name a stack slot, #-1); a closed object and
# a sample view kept past its call are refused, s:str and
# luaprof.read_string of a kept view too (they used to read the current
# sample's memory); and the cases found on the way: luaprof.pprof() with
# no argument, a flame graph's range error, a label keyed by a number.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
cat > binds.lua <<'LUA'
local function e(f, ...)
  local ok, err = pcall(f, ...)
  print(ok and "ok" or (tostring(err):gsub("^[^:]*:%d+: ", "")))
end
print((tostring(luaprof.hist()) == "" and "" or "?") .. getmetatable(luaprof.hist()).__name)
print((tostring(luaprof.pprof()):gsub(": 0x%x+$", "")))
local st = luaprof.stacks{ feed = "script" }
print(getmetatable(st).__name)
st:close()
e(function() st:sum() end)
e(function() luaprof.folded.text(st) end)
e(function() luaprof.hist().add(nil, 1) end)
e(function() luaprof.hist():add("x") end)
e(function() luaprof.json.encode({}, { indent = "x" }) end)
e(function() luaprof.json.encode({ f = print }) end)
e(function() luaprof.pprof{ labels = { "pid", "nope" } } end)
e(function() luaprof.pprof{ period = 3 } end)
e(function() luaprof.pprof():add_stack({ { sym = "a" } }, { 1, 2 }, { [1] = 2 }) end)
e(function() luaprof.flamegraph.svg({}, { width = 5 }) end)
e(function() luaprof.push{ timeout = "x" } end)
local ok, sender = pcall(luaprof.push)
if ok then
  sender:close()
  e(function() sender:post("http://127.0.0.1:9/", "b") end)
else
  print("calling 'post' on bad self (luaprof.push.Sender is closed)")  -- no libcurl here
end
local kept, n = nil, 0
function on_sample(s)
  n = n + 1
  if n == 1 then kept = s end
  if n == 2 then
    e(function() return s.str(kept, 0) end)       -- s:str's function, given the kept view
    e(function() return luaprof.read_string(kept, 0) end)
    local p = luaprof.pprof()
    e(function() p:add(kept) end)
    print(tostring(kept))
  end
end
function on_end() end
LUA
cat > want <<'TXT'
luaprof.hist.Hist
luaprof.pprof.Profile
luaprof.stacks.Stacks
calling 'sum' on bad self (luaprof.stacks.Stacks is closed)
bad argument #1 to 'text' (luaprof.stacks.Stacks is closed)
bad argument #1 to 'add' (luaprof.hist.Hist expected, got nil)
bad argument #1 to 'add' (number expected, got string)
bad argument #2 to 'encode' (indent: number expected, got string)
bad argument #1 to 'encode' (cannot encode a function)
bad argument #1 to 'pprof' (labels[2]: invalid option 'nope')
bad argument #1 to 'pprof' (period: table expected, got number)
bad argument #3 to 'add_stack' (a label's name: string expected, got number)
bad argument #2 to 'svg' (width must be between 200 and 100000)
bad argument #1 to 'push' (timeout must be a number of seconds, 0 or more)
calling 'post' on bad self (luaprof.push.Sender is closed)
bad argument #1 to 'str' (this sample's view expired when its on_sample returned: copy the fields you need (local x = s.sym))
bad argument #1 to 'read_string' (this sample's view expired when its on_sample returned: copy the fields you need (local x = s.sym))
bad argument #1 to 'add' (this sample's view expired when its on_sample returned: copy the fields you need (local x = s.sym))
luaprof.view.Sample (expired)
TXT
expect_status 0 "$LUAPROF" run ./binds.lua -e cpu-clock -F 999 -- "$PROGS/spin" 300
diff -u want "$TMP/out" || fail "the bindings' names and argument errors differ (above)"

# luaprof.setup's and luaprof.options's mistakes name their argument, at
# the script's line
printf 'luaprof.setup{ freq = -3 }\n' > setup.lua
expect_status 255 "$LUAPROF" run ./setup.lua -- true
expect_grep "^luaprof: .*setup\.lua:1: bad argument #1 to 'setup' \(freq must be a positive integer\)$" "$TMP/err"
printf 'luaprof.options{ description = {} }\n' > opts.lua
expect_status 255 "$LUAPROF" run ./opts.lua -- true
expect_grep "opts\.lua:1: bad argument #1 to 'options' \(description must be a one-line string\)$" "$TMP/err"

# a one-liner's program reaches no aggregation of luaprof's: no global
# (its compiler refuses an unknown name, _G shows none), no module; the
# front end gets them as its chunk's argument
expect_status 0 "$LUAPROF" -x 'BEGIN { print(rawget(_G, "_ONELINER_AGG"), package.loaded["luaprof._agg"]) }' -- true
expect_grep '^nil	nil$' "$TMP/out"
exit 0

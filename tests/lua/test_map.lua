-- luaprof.map: counting, tuples, order, and its errors.
local T = require "harness"

T.case("map: add, get, sum, #", function()
  local m = luaprof.map()
  m:add("a")
  m:add("b", 5)
  m:add("a", 2)
  m:add(7, 1)
  T.eq(m:get("a"), 3)
  T.eq(m:get("b"), 5)
  T.eq(m:get(7), 1)
  T.eq(m:get("none"), 0)
  T.eq(m:sum(), 9)
  T.eq(#m, 3)
  T.eq(m.count, nil, "no m:count(): #m is the number of keys")  -- api-rename: keep
  T.eq(m.total, nil, "no m:total(): m:sum() is the sum")  -- api-rename: keep
  T.eq(tostring(m), "luaprof.map (3 keys)")
end)

T.case("map: luaprof.map() is the one constructor (no .new)", function()  -- api-rename: keep
  local a, b = luaprof.map(), luaprof.map()
  T.eq(getmetatable(a), getmetatable(b))
  T.eq(luaprof.map.new, nil)  -- api-rename: keep
end)

T.case("map: floats add up as floats", function()
  local m = luaprof.map()
  m:add("x", 0.5)
  m:add("x", 0.25)
  T.eq(m:get("x"), 0.75)
  T.eq(m:sum(), 0.75)
end)

T.case("map: clear", function()
  local m = luaprof.map()
  m:add({ "a", 1 })
  m:add("b")
  m:clear()
  T.eq(#m, 0)
  T.eq(m:sum(), 0)
  m:add({ "x", "y", "z" })           -- a new arity after clear
  T.eq(m:get({ "x", "y", "z" }), 1)
end)

T.case("map: tuple keys", function()
  local m = luaprof.map()
  m:add({ "bash", 1 }, 2)
  m:add({ "bash", 2 })
  m:add({ "bash", 1 })
  m:add({ "sh", 1 }, 4)
  T.eq(m:get({ "bash", 1 }), 3)
  T.eq(m:get({ "bash", 2 }), 1)
  T.eq(m:get({ "zsh", 1 }), 0)
  T.eq(m:sum(), 8)
  T.eq(#m, 3)
  T.eq(m:top(10), { { { "sh", 1 }, 4 }, { { "bash", 1 }, 3 }, { { "bash", 2 }, 1 } })
end)

T.case("map: sorted by value, ties by key, with a limit", function()
  local m = luaprof.map()
  for k, n in pairs({ c = 2, a = 2, b = 9, d = 1 }) do m:add(k, n) end
  local got = {}
  for k, n in m:sorted() do got[#got + 1] = k .. "=" .. n end
  T.eq(table.concat(got, " "), "b=9 a=2 c=2 d=1")
  got = {}
  for k, n in m:sorted("value", 2) do got[#got + 1] = k .. "=" .. n end
  T.eq(table.concat(got, " "), "b=9 a=2")
  got = {}
  for k, n in pairs(m) do got[#got + 1] = k .. "=" .. n end
  T.eq(table.concat(got, " "), "b=9 a=2 c=2 d=1", "pairs(m) is m:sorted()")
end)

T.case("map: sorted by key: booleans and numbers, then strings", function()
  local m = luaprof.map()
  for _, k in ipairs({ "b", 10, "a", 2, true, -1 }) do m:add(k) end
  local got = {}
  for k in m:sorted("key") do got[#got + 1] = tostring(k) end
  T.eq(table.concat(got, " "), "-1 true 2 10 a b")
end)

T.case("map: tuples sorted by key element by element", function()
  local m = luaprof.map()
  m:add({ "b", 1 })
  m:add({ "a", 2 })
  m:add({ "a", 10 })
  m:add({ "b", 0 })
  local got = {}
  for k in m:sorted("key") do got[#got + 1] = k[1] .. k[2] end
  T.eq(table.concat(got, " "), "a2 a10 b0 b1")
end)

T.case("map: key_less orders scalars before tuples", function()
  local less = luaprof.map.key_less
  T.eq(less(1, "a"), true)
  T.eq(less("a", { "a" }), true)
  T.eq(less({ "a" }, "a"), false)
  T.eq(less({ "a" }, { "a", "b" }), true)
end)

T.case("map: bad keys are errors", function()
  local m = luaprof.map()
  T.error("map key: nil", function() m:add(nil) end)
  T.error("map key: expected a string, a number or a tuple of them, got function",
          function() m:add({ print }) end)
  T.error("map key: a tuple has at least one element", function() m:add({}) end)
  m:add({ "a", "b" })
  T.error("map key: tuples of this map have 2 elements, not 3", function() m:add({ "a", "b", "c" }) end)
  T.error("map key: tuples of this map have 2 elements, not 1", function() m:get({ "a" }) end)
  T.error('map:sorted: order is "value" or "key", not count', function() m:sorted("count") end)
end)

T.done()

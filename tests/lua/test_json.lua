-- luaprof.json: encoding, exactly, and what it refuses.
local T = require "harness"
local json = luaprof.json
local enc = json.encode

T.case("json: scalars", function()
  T.eq(enc(nil), "null")
  T.eq(enc(json.null), "null")
  T.eq(enc(true), "true")
  T.eq(enc(false), "false")
  T.eq(enc(0), "0")
  T.eq(enc(-42), "-42")
  T.eq(enc(math.maxinteger), "9223372036854775807")
  T.eq(enc(math.mininteger), "-9223372036854775808")
  T.eq(enc(0.5), "0.5")
  T.eq(enc(0.1), "0.1", "the shortest text that reads back the same")
  T.eq(enc(1e300), "1e+300")
  T.eq(enc(2.0), "2", "JSON has one kind of number")
end)

T.case("json: strings are escaped", function()
  T.eq(enc("a\"b\\c"), [["a\"b\\c"]])
  T.eq(enc("\n\t\r\b\f"), [["\n\t\r\b\f"]])
  T.eq(enc("\1\31"), [["\u0001\u001f"]])
  T.eq(enc("é€"), '"é€"', "valid UTF-8 as it is")
  T.eq(enc("a\255b"), '"a\\ufffdb"', "invalid UTF-8 becomes U+FFFD")
  T.eq(enc(""), '""')
end)

T.case("json: arrays and objects", function()
  T.eq(enc({ 1, "two", false }), '[1,"two",false]')
  T.eq(enc({}), "{}")
  T.eq(enc(json.array({})), "[]")
  T.eq(enc(json.array()), "[]")
  T.eq(enc({ a = 1 }), '{"a":1}')
  T.eq(enc({ [3] = "x" }), '{"3":"x"}', "integer keys, not 1..n: an object")
  T.eq(enc({ [1] = "a", [3] = "c" }, { sort_keys = true }), '{"1":"a","3":"c"}')
  T.eq(enc({ list = { 1, 2 }, obj = { k = json.null } }, { sort_keys = true }),
       '{"list":[1,2],"obj":{"k":null}}')
end)

T.case("json: sort_keys in byte order", function()
  T.eq(enc({ b = 1, a = 2, B = 3, aa = 4 }, { sort_keys = true }), '{"B":3,"a":2,"aa":4,"b":1}')
end)

T.case("json: indent", function()
  T.eq(enc({ a = { 1, 2 }, b = {} }, { sort_keys = true, indent = 2 }),
       '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}')
  T.eq(enc(json.array({}), { indent = 4 }), "[]")
end)

T.case("json: errors", function()
  local nan = "bad argument #1 to 'encode' (NaN and infinities cannot be written in JSON)"
  T.error(nan, function() json.encode(0 / 0) end)
  T.error(nan, function() json.encode({ math.huge }) end)
  T.error("bad argument #1 to 'encode' (cannot encode a function)", function() json.encode({ f = print }) end)
  T.error("bad argument #1 to 'encode' (an object key must be a string or an integer, not boolean)",
          function() json.encode({ [true] = 1 }) end)
  T.error("bad argument #1 to 'encode' (an object key must be a string or an integer, not number)",
          function() json.encode({ [1.5] = 1 }) end)
  T.error("bad argument #1 to 'encode' (keys 1 and \"1\" are the same in JSON)",
          function() json.encode({ [1] = "a", ["1"] = "b" }, { sort_keys = true }) end)
  local t = {}
  t.self = t
  T.error("bad argument #1 to 'encode' (a table contains itself)", function() json.encode(t) end)
  local deep = {}
  for _ = 1, 201 do deep = { deep } end
  T.error("bad argument #1 to 'encode' (nested deeper than 200 tables)", function() json.encode(deep) end)
  T.error("bad argument #2 to 'encode' (indent is 0 to 16)", function() json.encode({}, { indent = 17 }) end)
  T.error("bad argument #1 to 'encode' (value expected)", function() json.encode() end)
end)

T.case("json: a table shared twice is no cycle", function()
  local shared = { 1 }
  T.eq(enc({ shared, shared }), "[[1],[1]]")
end)

T.done()

-- luaprof.hist() (power-of-two buckets) and luaprof.hist{min=, max=, step=} (linear): buckets,
-- statistics, quantiles, the bpftrace-style text, and errors.
local T = require "harness"

-- One line of the text: label, count, and a bar of w of 52 '@'.
local function row(label, n, w)
  return string.format("%-16s%8d |%s%s|\n", label, n, string.rep("@", w), string.rep(" ", 52 - w))
end

local function sample_hist()
  local h = luaprof.hist()
  for _, v in ipairs({ -5, 0, 1, 2, 3, 4, 100 }) do h:add(v) end
  h:add(1024, 3)
  return h
end

T.case("hist: statistics", function()
  local h = sample_hist()
  T.eq(h:count(), 10)
  T.eq(h:sum(), 3177)
  T.eq(h:min(), -5)
  T.eq(h:max(), 1024)
  T.eq(h:mean(), 317.7)
  T.eq(h:stats(), { count = 10, sum = 3177, min = -5, max = 1024, mean = 317.7 })
end)

T.case("hist: buckets", function()
  T.eq(sample_hist():buckets(), {
    { max = 0, count = 1 }, { min = 0, max = 1, count = 1 }, { min = 1, max = 2, count = 1 },
    { min = 2, max = 4, count = 2 }, { min = 4, max = 8, count = 1 },
    { min = 64, max = 128, count = 1 }, { min = 1024, max = 2048, count = 3 },
  })
end)

T.case("hist: text as bpftrace prints it", function()
  T.eq(tostring(sample_hist()),
       row("(..., 0)", 1, 17) .. row("[0]", 1, 17) .. row("[1]", 1, 17) .. row("[2, 4)", 2, 34) ..
       row("[4, 8)", 1, 17) .. row("[8, 16)", 0, 0) .. row("[16, 32)", 0, 0) .. row("[32, 64)", 0, 0) ..
       row("[64, 128)", 1, 17) .. row("[128, 256)", 0, 0) .. row("[256, 512)", 0, 0) ..
       row("[512, 1K)", 0, 0) .. row("[1K, 2K)", 3, 52))
  local big = luaprof.hist()
  big:add(3 * 2 ^ 20)
  big:add(2 ^ 40)
  T.eq(tostring(big):match("^[^\n]*"), "[2M, 4M)               1 |" .. string.rep("@", 52) .. "|")
  T.eq(tostring(big):match("[^\n]*\n$"), row("[1T, 2T)", 1, 52))
end)

T.case("hist: quantiles", function()
  local h = sample_hist()
  T.eq(h:quantile(0), -5.0)
  T.eq(h:quantile(0.15), 0.0, "[0] holds the one value 0")
  T.eq(h:quantile(0.5), 4.0, "interpolated in [2, 4)")
  T.eq(h:quantile(1), 1024.0, "clamped to the largest value")
end)

T.case("hist: empty", function()
  local h = luaprof.hist()
  T.eq(h:count(), 0)
  T.eq(h:sum(), 0)
  T.eq(h:mean(), nil)
  T.eq(h:quantile(0.5), nil)
  T.eq(h:stats(), { count = 0, sum = 0 })
  T.eq(h:buckets(), {})
  T.eq(tostring(h), "")
end)

T.case("hist: add with a count, and a count of 0", function()
  local h = luaprof.hist()
  h:add(5, 4)
  h:add(7, 0)
  T.eq(h:stats(), { count = 4, sum = 20, min = 5, max = 5, mean = 5.0 })
end)

T.case("hist: errors", function()
  local h = luaprof.hist()
  T.error("bad argument #1 to 'add' (number expected, got string)", function() h:add("x") end)
  T.error("bad argument #1 to 'add' (NaN is not a value)", function() h:add(0 / 0) end)
  T.error("bad argument #2 to 'add' (a count is >= 0)", function() h:add(1, -1) end)
  T.error("bad argument #1 to 'quantile' (a quantile is between 0 and 1)", function() h:quantile(1.5) end)
end)

T.case("hist{min=, max=, step=}: linear buckets and their text", function()
  local l = luaprof.hist{ min = 0, max = 100, step = 10 }
  for _, v in ipairs({ -1, 0, 9.5, 55, 100, 250 }) do l:add(v) end
  T.eq(l:buckets(), { { max = 0, count = 1 }, { min = 0, max = 10, count = 2 },
                      { min = 50, max = 60, count = 1 }, { min = 100, count = 2 } })
  T.eq(tostring(l),
       row("(..., 0)", 1, 26) .. row("[0, 10)", 2, 52) .. row("[10, 20)", 0, 0) .. row("[20, 30)", 0, 0) ..
       row("[30, 40)", 0, 0) .. row("[40, 50)", 0, 0) .. row("[50, 60)", 1, 26) ..
       row("[60, 70)", 0, 0) .. row("[70, 80)", 0, 0) .. row("[80, 90)", 0, 0) ..
       row("[90, 100)", 0, 0) .. row("[100, ...)", 2, 52))
  T.eq(l:quantile(0.5), 10.0, "the 3rd of 6 values: interpolated across [0, 10)")
end)

T.case("hist{min=, max=, step=}: a last bucket cut at max", function()
  local l = luaprof.hist{ min = 0, max = 25, step = 10 }
  l:add(24)
  l:add(25)
  T.eq(l:buckets(), { { min = 20, max = 25, count = 1 }, { min = 25, count = 1 } })
  T.eq(tostring(l), row("[20, 25)", 1, 52) .. row("[25, ...)", 1, 52))
end)

T.case("hist{min=, max=, step=}: bpftrace's K and M in the labels, as the one-liners' lhist()", function()
  local l = luaprof.hist{ min = 0, max = 4096, step = 1024 }
  l:add(1500)
  l:add(5000)
  T.eq(tostring(l), row("[1K, 2K)", 1, 52) .. row("[2K, 3K)", 0, 0) .. row("[3K, 4K)", 0, 0) .. row("[4K, ...)", 1, 52))
  local m = luaprof.hist{ min = -2048, max = 1 << 20, step = 1 << 19 }
  m:add(-3000)
  T.eq(tostring(m), row("(..., -2K)", 1, 52))
end)

T.case("hist{min=, max=, step=}: errors", function()
  local function E(msg) return "bad argument #1 to 'hist' (" .. msg .. ")" end
  T.error(E "max must be larger than min", function() luaprof.hist{ min = 10, max = 0, step = 1 } end)
  T.error(E "step must be positive", function() luaprof.hist{ min = 0, max = 10, step = 0 } end)
  T.error(E "too many buckets (at most 100000)", function() luaprof.hist{ min = 0, max = 100001, step = 1 } end)
  T.error(E "min must be an integer", function() luaprof.hist{ min = 0.5, max = 10, step = 1 } end)
  T.error(E "step must be an integer", function() luaprof.hist{ min = 0, max = 10 } end)
  T.error(E "unknown key 'stp' (known: min, max, step)",
          function() luaprof.hist{ min = 0, max = 10, stp = 1 } end)
end)

T.case("luaprof.lhist is gone: one constructor, luaprof.hist", function()  -- api-rename: keep
  local ok, err = pcall(function() return luaprof.lhist end)  -- api-rename: keep
  T.eq(ok, false)
  local want = "luaprof%.lhist: no such field of luaprof;"  -- api-rename: keep
  T.eq(tostring(err):match(want) ~= nil, true, tostring(err))
end)

T.done()

-- luaprof.fmt: human units and aligned tables, exactly.
local T = require "harness"
local fmt = luaprof.fmt

T.case("fmt.ns", function()
  T.eq(fmt.ns(850), "850 ns")
  T.eq(fmt.ns(999), "999 ns")
  T.eq(fmt.ns(1000), "1.00 us")
  T.eq(fmt.ns(12345), "12.3 us")
  T.eq(fmt.ns(4560000), "4.56 ms")
  T.eq(fmt.ns(123456789), "123 ms")
  T.eq(fmt.ns(1.5e9), "1.50 s")
  T.eq(fmt.ns(2.5), "2.50 ns", "a float below a microsecond keeps its digits")
end)

T.case("fmt.count", function()
  T.eq(fmt.count(0), "0")
  T.eq(fmt.count(999), "999")
  T.eq(fmt.count(12300), "12.3K")
  T.eq(fmt.count(4560000), "4.56M")
  T.eq(fmt.count(7.89e9), "7.89G")
  T.eq(fmt.count(2e12), "2.00T")
  T.eq(fmt.count(-1500), "-1.50K")
end)

T.case("fmt.bytes", function()
  T.eq(fmt.bytes(512), "512 B")
  T.eq(fmt.bytes(1536), "1.50 KiB")
  T.eq(fmt.bytes(20 * 1024 * 1024), "20.0 MiB")
  T.eq(fmt.bytes(3.2 * 1024 ^ 3), "3.20 GiB")
  T.eq(fmt.bytes(1024 ^ 4), "1.00 TiB")
end)

T.case("fmt.pct", function()
  T.eq(fmt.pct(1, 8), "12.50%")
  T.eq(fmt.pct(1, 3, 1), "33.3%")
  T.eq(fmt.pct(5, 0), "0.00%", "a whole of 0 is 0%")
  T.eq(fmt.pct(2, 2, 0), "100%")
end)

T.case("fmt.table: numbers right, text left, headers", function()
  T.eq(fmt.table({ { "main", 120, 0.5 }, { "a_longer_name", 7, 12.25 } },
                 { headers = { "FUNC", "N", "PCT" } }),
       "FUNC             N    PCT\n" ..
       "main           120   0.50\n" ..
       "a_longer_name    7  12.25\n")
end)

T.case("fmt.table: numbers with units are right-aligned", function()
  T.eq(fmt.table({ { "x", "12.5%", "3.1 ms" }, { "yy", "100.0%", "12 s" } }),
       "x    12.5%  3.1 ms\n" ..
       "yy  100.0%    12 s\n")
end)

T.case("fmt.table: sep, digits, missing cells, UTF-8 widths", function()
  T.eq(fmt.table({ { "é", 1.23456 }, { "ab" } }, { sep = " | ", digits = 3 }),
       "é  | 1.235\n" ..
       "ab |      \n")
end)

T.case("fmt.table: no rows", function()
  T.eq(fmt.table({}), "")
  T.eq(fmt.table({}, { headers = { "A", "B" } }), "A  B\n")
end)

T.case("fmt.print_table writes fmt.table's text", function()
  local rows = { { "a", 1 }, { "b", 22 } }
  T.eq(T.output(fmt.print_table, rows), fmt.table(rows))
  T.eq(T.output(fmt.print_table, rows), "a   1\nb  22\n")
end)

T.case("luaprof.shown: a value as luaprof's messages quote it", function()
  T.eq(luaprof.shown("cpu-clock"), "cpu-clock")
  T.eq(luaprof.shown("a\nb"), "a?b", "one line")
  T.eq(luaprof.shown(42), "42")
  local long = ("x"):rep(40) .. ("y"):rep(1000) .. ("z"):rep(24)
  T.eq(luaprof.shown(long), ("x"):rep(40) .. "...[1064 bytes]..." .. ("z"):rep(24))
end)

T.done()

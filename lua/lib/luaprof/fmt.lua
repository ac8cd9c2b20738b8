-- luaprof.fmt: printing helpers for reports.
--
--   fmt.table(rows [, opts]) -> string      an aligned table
--       rows: a list of rows, each a list of cells (strings or numbers)
--       opts.headers: the column titles; opts.sep: between columns ("  ")
--       A column whose cells are all numbers (or numbers with a unit:
--       "12.5%", "3.1 ms", "2.0M") is right-aligned, others left-aligned.
--       Integers print as they are, other numbers with opts.digits (2).
--   fmt.print_table(rows [, opts])          the same, printed
--   fmt.ns(n)      nanoseconds, human:  850 ns, 12.3 us, 4.56 ms, 1.50 s
--   fmt.count(n)   a count, human:      999, 12.3K, 4.56M, 7.89G
--   fmt.bytes(n)   bytes, human:        512 B, 1.5 KiB, 20.0 MiB, 3.2 GiB
--   fmt.pct(part, whole [, digits])     "12.34%" (0% when whole is 0)

local fmt = {}

local function human(n, steps, units, digits)
  local v, i = n, 1
  while i < #units and math.abs(v) >= steps[i + 1] do i = i + 1 end
  v = n / steps[i]
  if i == 1 and math.type(n) == "integer" then return string.format("%d%s", n, units[1]) end
  digits = digits or (math.abs(v) < 10 and 2 or math.abs(v) < 100 and 1 or 0)
  return string.format("%." .. digits .. "f%s", v, units[i])
end

function fmt.ns(n)
  return human(n, { 1, 1e3, 1e6, 1e9 }, { " ns", " us", " ms", " s" })
end

function fmt.count(n)
  return human(n, { 1, 1e3, 1e6, 1e9, 1e12 }, { "", "K", "M", "G", "T" })
end

function fmt.bytes(n)
  return human(n, { 1, 1024, 1024 ^ 2, 1024 ^ 3, 1024 ^ 4 }, { " B", " KiB", " MiB", " GiB", " TiB" })
end

function fmt.pct(part, whole, digits)
  local p = whole ~= 0 and 100 * part / whole or 0
  return string.format("%." .. (digits or 2) .. "f%%", p)
end

local function cell_text(v, digits)
  if math.type(v) == "integer" then return tostring(v) end
  if type(v) == "number" then return string.format("%." .. digits .. "f", v) end
  return tostring(v == nil and "" or v)
end

local function numeric(v)
  if type(v) == "number" then return true end
  return type(v) == "string" and v:match("^[-+]?[%d.,]+%s?[%a%%]*$") ~= nil
end

function fmt.table(rows, opts)
  opts = opts or {}
  local digits, sep = opts.digits or 2, opts.sep or "  "
  local ncol, width, right = 0, {}, {}
  local all = {}
  if opts.headers then all[1] = opts.headers end
  for _, r in ipairs(rows) do all[#all + 1] = r; if #r > ncol then ncol = #r end end
  if opts.headers and #opts.headers > ncol then ncol = #opts.headers end
  for c = 1, ncol do
    right[c] = #rows > 0
    for _, r in ipairs(rows) do
      if r[c] ~= nil and r[c] ~= "" and not numeric(r[c]) then right[c] = false end
    end
  end
  local text = {}
  for i, r in ipairs(all) do
    text[i] = {}
    for c = 1, ncol do
      local s = cell_text(r[c], digits)
      text[i][c] = s
      if utf8.len(s) and utf8.len(s) > (width[c] or 0) then width[c] = utf8.len(s)
      elseif #s > (width[c] or 0) then width[c] = #s end
    end
  end
  local out = {}
  for i, r in ipairs(text) do
    local line = {}
    for c = 1, ncol do
      local s = r[c]
      local pad = string.rep(" ", width[c] - (utf8.len(s) or #s))
      if right[c] then line[c] = pad .. s
      elseif c == ncol then line[c] = s
      else line[c] = s .. pad end
    end
    out[i] = table.concat(line, sep)
  end
  return table.concat(out, "\n") .. (#out > 0 and "\n" or "")
end

function fmt.print_table(rows, opts)
  io.write(fmt.table(rows, opts))
end

return fmt

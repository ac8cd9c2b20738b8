-- annotate-lines.lua: the hottest source lines of the hottest functions,
-- from each sample's source line (s.file and s.line, DWARF), with the text of the
-- line when the source file is there to read.
--
--   luaprof run annotate-lines -- ./prog          (built with -g)
--   luaprof run annotate-lines --functions=3 --lines=5 -i perf.data
--
-- A sample counts for the function it is in (s.sym) and for the line of
-- its address: the line of the innermost function inlined there, which
-- may lie in another file (a header) than the function's own.

local opt = luaprof.options{
  description = "the hottest source lines of the hottest functions (s.file, s.line)",
  help = [[For each of the --functions hottest functions: its samples and share,
then its --lines hottest source lines with their samples, share of the
function and the line's text.  Samples without DWARF line information
count as "??:0".]],
  { "functions", "integer", 5, "functions to show" },
  { "lines", "integer", 10, "lines per function" },
  { "source", "boolean", true, "print each line's text when its file can be read" },
  { "prefix", "string", nil, "where to read relative source paths from (default: the current directory)" },
}

local fmt = luaprof.fmt
local funcs = luaprof.map()     -- function -> samples
local lines = {}                -- function -> luaprof.map of "file:line" -> samples

function on_sample(s)
  local sym = s.sym or ("[unknown] " .. (s.dso or "?"))
  funcs:add(sym)
  local m = lines[sym]
  if not m then
    m = luaprof.map()
    lines[sym] = m
  end
  m:add(s.file and s.file .. ":" .. (s.line or 0) or "??:0")
end

local files = {}                -- path -> its lines, or false
local function source_text(srcline)
  local path, n = srcline:match("^(.*):(%d+)$")
  if not path or not opt.source then return "" end
  if files[path] == nil then
    local f = io.open((opt.prefix and path:sub(1, 1) ~= "/") and (opt.prefix .. "/" .. path) or path)
    files[path] = false
    if f then
      local t = {}
      for l in f:lines() do t[#t + 1] = l end
      f:close()
      files[path] = t
    end
  end
  local text = files[path] and files[path][tonumber(n)]
  return text and text:gsub("^%s+", ""):sub(1, 60) or ""
end

function on_end(info)
  for sym, n in funcs:sorted("value", opt.functions) do
    print(string.format("%s: %d samples, %s", sym, n, fmt.pct(n, info.samples)))
    local rows = {}
    for line, c in lines[sym]:sorted("value", opt.lines) do
      rows[#rows + 1] = { c, fmt.pct(c, n), line:match("[^/]*$"), source_text(line) }
    end
    fmt.print_table(rows, { headers = { "SAMPLES", "SHARE", "LINE", "SOURCE" } })
    print()
  end
end

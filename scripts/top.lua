-- top.lua: the hottest functions (or objects, commands, threads, source
-- lines) by samples, like `perf report --no-children --sort sym -n`.
--
--   luaprof run top [--sort=sym,dso] [--children] [--limit=ROWS] [-g] -- ./prog
--
-- Overhead is the share of the samples' periods (for cpu-clock, of the CPU
-- time) whose leaf falls in the row, Samples their count.  --sort picks the
-- columns rows are keyed by, as perf's --sort.  --children (with -g) adds
-- each row's inclusive share: the samples with the row anywhere on their
-- stack, each sample counted once per row however often the row appears on
-- it; rows are then ordered by it, as `perf report --children`.
-- C++ and Rust names are perf report's (no parameter lists, no clone
-- suffixes: libiberty without DMGL_PARAMS, as perf demangles); --demangle=
-- full keeps the whole signature (s.sym), none the raw name (s.mangled).

local opt = luaprof.options{
  description = "the hottest functions by samples, like perf report (--sort, --children)",
  help = [[Columns: Overhead (the share of the samples' periods whose leaf is in
the row), Samples, then the --sort keys.  With --children: Children (the
share of samples with the row anywhere on the call stack: record with -g),
Self (Overhead), Samples.  One table per event.  Sort keys as perf
report's: pid is per thread, printed TID:COMMAND; dso shows a perf map
(/tmp/perf-PID.map) as [JIT] tid PID; with sym, a row is a symbol (its
object and start), so functions of one name at two places (C++
overloads, a JIT function compiled again) are two rows, and rows of equal
share come in perf's order.  luaprof's own: tid (the thread id
alone) and process (the process id).]],
  { "sort", "list", { "sym" }, "the keys of a row, in order",
    choices = { "sym", "dso", "comm", "pid", "tid", "process", "srcline" } },
  { "children", "boolean", false, "add the inclusive (children) share and sort by it" },
  { "demangle", "string", "short", "C++/Rust names: short (as perf report), full, none (raw)",
    choices = { "short", "full", "none" } },
  { "limit", "integer", 20, "rows to print per event (-A ROWS works too)", min = 0 },
}
local limit = tonumber(arg[1] or "") or opt.limit

-- The rows are perf report's, grouped in C by luaprof.report (every
-- sample, no Lua per sample): a row per symbol (its object and start, as
-- perf's sort__sym_cmp, so functions of one name at two places are two
-- rows), unnamed frames per address; with --children each row on a
-- sample's stack counts once, and a function inlined at a frame of a
-- DWARF-unwound stack is a row "NAME (inlined)" of its own.
local report = luaprof.report{ sort = opt.sort, children = opt.children, demangle = opt.demangle }
local titles = { sym = "Symbol", dso = "Shared Object", comm = "Command", pid = "Pid:Command",
                 tid = "Tid", process = "Pid", srcline = "Source:Line" }

local pct = require("luaprof.fmt").pct

-- The rows come in perf report's order: by their share, then by the
-- keys' text ([k]/[.] aside: named symbols by name, then the unnamed by
-- address, as perf compares them), rows perf finds equal as perf's tree
-- of entries has them.
local function print_table(ev, t, lost)
  local headers = opt.children and { "Children", "Self", "Samples" } or { "Overhead", "Samples" }
  for _, k in ipairs(opt.sort) do headers[#headers + 1] = titles[k] end
  local rows = {}
  for i, r in ipairs(t) do
    local row = opt.children and { pct(r.children, t.total), pct(r.self, t.total), r.samples }
                or { pct(r.self, t.total), r.samples }
    for j, c in ipairs(r.cells) do
      if opt.sort[j] == "pid" then c = c .. ":" .. (report:comm(tonumber(c)) or "") end
      row[#row + 1] = c
    end
    rows[i] = row
  end
  print(string.format("# %d samples of event '%s', %d lost", t.samples, ev, lost))
  luaprof.fmt.print_table(rows, { headers = headers })
end

function on_end(info)
  local events = report:events()
  if #events == 0 then print(string.format("# 0 samples, %d lost", info.lost)) end
  for i, ev in ipairs(events) do
    if i > 1 then print() end
    print_table(ev, report:rows(ev, { order = opt.children and "children" or "self", limit = limit }),
                info.lost)
  end
end

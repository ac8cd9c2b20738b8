-- writeback.lua: the kernel's writeback of dirty pages, with its device,
-- size, reason and duration, one line each: bpftrace's writeback.bt.
--
--   luaprof run writeback -a                    (until Ctrl-C)
--   luaprof run writeback -- ./load-data        (while load-data runs)
--
-- From writeback:writeback_start and writeback:writeback_written, in the
-- kernel's flusher threads: the work is the whole system's, so the events
-- are system-wide, following a command or not (it gives the run its
-- length).  The duration runs from a device's writeback_start to its
-- writeback_written (0.000 when the start came before the run).
--
-- bpftrace's tool differs: it prints PAGES as nr_pages & 0xffff (its
-- "TODO: explain these bitmasks"), where this prints the number itself
-- (the pages still to write when the work ended: LONG_MAX less what was
-- written, for a sync), and it names reasons from a table of older
-- kernels (5 is free_more_memory there, fs_free_space since Linux 4.17):
-- this reads the names from the tracepoint's format (reason_names below),
-- as the kernel prints them.

luaprof.options{
  description = "writeback of dirty pages: device, pages, reason, duration (bpftrace's writeback)",
  help = [[One line per writeback work as it ends: the time, the device
(its backing device's name, MAJOR:MINOR), the pages still to write when
it ended, the reason (background, vmscan, sync, periodic, ...) and how
long it took in milliseconds.]],
}
luaprof.setup{ events = { "writeback:writeback_start", "writeback:writeback_written" }, all_cpus = true }

local bpftools = require "bpftools"
bpftools.snoop()
local started = {}                      -- sb_dev -> time of its writeback_start

-- The reasons' names, as the kernel's format prints them (its
-- __print_symbolic), else those of Linux 4.17 to 6.x.
local function reason_names()
  local names = { [0] = "background", "vmscan", "sync", "periodic", "laptop_timer", "fs_free_space",
                  "forker_thread", "foreign_flush" }
  for _, dir in ipairs({ "/sys/kernel/tracing", "/sys/kernel/debug/tracing" }) do
    local f = io.open(dir .. "/events/writeback/writeback_written/format")
    if f then
      local fmt = f:read("a")
      f:close()
      local sym = fmt:match("__print_symbolic%(REC%->reason,(.-%})%)")
      if sym then
        names = {}
        for n, name in sym:gmatch('{%s*(%d+)%s*,%s*"([^"]*)"%s*}') do names[tonumber(n)] = name end
      end
      break
    end
  end
  return names
end
local reasons = reason_names()

function on_start()
  print(string.format("%-9s %-8s %-8s %-16s %s", "TIME", "DEVICE", "PAGES", "REASON", "ms"))
end

on_event = {}

on_event["writeback:writeback_start"] = function(s)
  started[s.args.sb_dev] = s.time
end

on_event["writeback:writeback_written"] = function(s)
  local f = s.args
  local t0 = started[f.sb_dev]
  started[f.sb_dev] = nil
  local us = t0 and (s.time - t0) // 1000 or 0
  print(string.format("%-9s %-8s %-8d %-16s %d.%03d", bpftools.time(), f.name, f.nr_pages,
                      reasons[f.reason] or tostring(f.reason), us // 1000, us % 1000))
end

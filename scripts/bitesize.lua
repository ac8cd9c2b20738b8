-- bitesize.lua: the sizes of block I/O requests, as a histogram per
-- command: bpftrace's bitesize.bt (and BCC's).
--
--   luaprof run bitesize -a -d 10               (the whole system, for ten seconds)
--   luaprof run bitesize -- tar xf big.tar      (what tar issues)
--
-- From block:block_rq_issue, as each request goes to the device: its size
-- (bytes) under the command that was running when it was issued (the
-- tracepoint's comm, often a kernel worker for writes the kernel flushes
-- on its own).  Following a command (-- CMD, -p), the requests issued
-- while one of its threads ran.

local opt = luaprof.options{
  description = "block I/O request sizes as a histogram per command (block_rq_issue) (bpftrace's bitesize)",
  help = [[At the end, one power-of-two histogram of request sizes in bytes per
command, as bpftrace prints its maps, the command with the fewest
requests first.]],
  { "per", "string", "comm", "one histogram per command, per process (comm and pid), or in all",
    choices = { "comm", "pid", "all" } },
}
luaprof.setup{ events = { "block:block_rq_issue" } }

local bpftools = require "bpftools"
local hists = bpftools.hists()          -- key -> luaprof.hist of sizes

function on_start()
  print("Tracing block device I/O...")
end

function on_sample(s)
  local f = s.args
  local key = opt.per == "comm" and f.comm or opt.per == "pid" and string.format("%s, %d", f.comm, s.pid) or "all"
  hists[key]:add(f.bytes)
end

function on_end()
  print("\nI/O size (bytes) histograms by process name:\n")
  bpftools.print_hists(hists)
end

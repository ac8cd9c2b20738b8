-- biolatency.lua: block I/O latency as a histogram: bpftrace's
-- biolatency.bt (and BCC's).
--
--   luaprof run biolatency -a -d 10             (the whole system, for ten seconds)
--   luaprof run biolatency -- ./db-load         (the requests db-load starts)
--
-- From block:block_io_start and block:block_io_done (Linux 6.5 and later),
-- the tracepoints in blk_account_io_start and blk_account_io_done, which
-- bpftrace's tool probes with kprobes: a request is known by its device
-- and first sector from its start to its end.  The completions come on
-- any CPU, in any task: the events are system-wide, and following a
-- command (-- CMD, -p) keeps the requests one of its processes started.

local opt = luaprof.options{
  description = "block I/O latency histogram (block_io_start to block_io_done) (bpftrace's biolatency)",
  help = [[At the end, the power-of-two histogram of the requests' latencies
(from their start to their completion), as bpftrace prints its map
@usecs, or per disk with --per=disk.]],
  { "unit", "string", "us", "the histogram's unit", choices = { "us", "ms" } },
  { "per", "string", "all", "one histogram in all, or one per disk", choices = { "all", "disk" } },
  { "comm", "string", nil, "only the requests started by a thread of this command name" },
}
luaprof.setup{ events = { "block:block_io_start", "block:block_io_done" }, all_cpus = true }

local bpftools = require "bpftools"
local div = opt.unit == "us" and 1000 or 1000000
local started = {}                      -- "dev:sector" -> start time
local hists = bpftools.hists()          -- key ("" for --per=all) -> luaprof.hist

function on_start()
  print("Tracing block device I/O...")
end

on_event = {}

on_event["block:block_io_start"] = function(s)
  if s.pid == 0 or not luaprof.is_target(s.pid) or (opt.comm and s.comm ~= opt.comm) then return end
  local f = s.args
  started[f.dev .. ":" .. f.sector] = s.time
end

on_event["block:block_io_done"] = function(s)
  local f = s.args
  local key = f.dev .. ":" .. f.sector
  local t0 = started[key]
  if not t0 then return end
  started[key] = nil
  local hk = opt.per == "disk" and bpftools.disk_name(f.dev) or ""
  hists[hk]:add((s.time - t0) // div)
end

function on_end()
  print()
  bpftools.print_hists(hists, opt.unit == "us" and "usecs" or "msecs")
end

-- biosnoop.lua: block I/O requests with their disk, issuer and latency,
-- one line each as it completes: bpftrace's biosnoop.bt (and BCC's).
--
--   luaprof run biosnoop -a                     (the whole system, until Ctrl-C)
--   luaprof run biosnoop -- ./db-load           (the requests db-load starts)
--
-- From block:block_io_start and block:block_io_done (Linux 6.5 and later),
-- the tracepoints in blk_account_io_start and blk_account_io_done, which
-- bpftrace's tool probes with kprobes: a request is known by its device
-- and first sector from its start to its end.  The command and pid are
-- those running when the request started; the disk's name comes from
-- /sys/dev/block.  The completions come on any CPU, in any task: the
-- events are system-wide, and following a command (-- CMD, -p) keeps the
-- requests one of its processes started.

local opt = luaprof.options{
  description = "block I/O requests: disk, issuer, latency (block_io_start/done) (bpftrace's biosnoop)",
  help = [[One line per request as it completes: milliseconds since the first
event, the disk, the command and pid that started the request, and its
latency in whole milliseconds.]],
  { "comm", "string", nil, "only the requests started by a thread of this command name" },
}
luaprof.setup{ events = { "block:block_io_start", "block:block_io_done" }, all_cpus = true }

local bpftools = require "bpftools"
bpftools.snoop()
local started = {}                      -- "dev:sector" -> { time, pid, comm }

function on_start()
  print(string.format("%-12s %-7s %-16s %-6s %7s", "TIME(ms)", "DISK", "COMM", "PID", "LAT(ms)"))
end

on_event = {}

on_event["block:block_io_start"] = function(s)
  if s.pid == 0 or not luaprof.is_target(s.pid) or (opt.comm and s.comm ~= opt.comm) then return end
  local f = s.args
  started[f.dev .. ":" .. f.sector] = { s.time, s.pid, s.comm }
end

on_event["block:block_io_done"] = function(s)
  local f = s.args
  local key = f.dev .. ":" .. f.sector
  local r = started[key]
  if not r then return end
  started[key] = nil
  print(string.format("%-12d %-7s %-16s %-6d %7d", bpftools.elapsed_ms(s), bpftools.disk_name(f.dev), r[3], r[2],
                      (s.time - r[1]) // 1000000))
end

-- pidpersec.lua: new processes (and threads) per second, from
-- sched:sched_process_fork: bpftrace's pidpersec.bt.
--
--   luaprof run pidpersec -a                    (the whole system, until Ctrl-C)
--   luaprof run pidpersec -- ./build.sh         (what build.sh forks)
--   luaprof run pidpersec -I 10000 -a           (per 10 s)
--
-- One line per interval (-I MS, default a second) with the forks made in
-- it.  bpftrace's tool drops the forks of the last, partial second; this
-- one prints them on a last line, so that the lines add up to every fork
-- of the run.

luaprof.options{
  description = "new processes and threads per second (sched_process_fork) (bpftrace's pidpersec)",
  help = [[One line per second (-I MS for another interval): the time and the
forks of the second, in bpftrace's words ("PIDs/sec: @: N").  A thread
is a fork too (clone), as for the kernel's tracepoint.]],
}
luaprof.setup{ events = { "sched:sched_process_fork" }, interval = 1000 }

local bpftools = require "bpftools"
bpftools.snoop()
local forks = 0

function on_start()
  print("Tracing new processes...")
end

function on_sample()
  forks = forks + 1
end

function on_interval(info)
  if info.last and forks == 0 then return end
  print(string.format("%s PIDs/sec: @: %d", bpftools.time(), forks))
  forks = 0
end

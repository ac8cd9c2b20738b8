-- loads.lua: the load averages, every second: bpftrace's loads.bt.
--
--   luaprof run loads -a                        (until Ctrl-C)
--   luaprof run loads -I 5000 -- make -j8       (every 5 s while make runs)
--
-- bpftrace's tool reads the kernel's variable avenrun (kaddr("avenrun"))
-- and prints three decimals of its fixed-point values; a luaprof script
-- reads no kernel memory, so this reads /proc/loadavg, where the kernel
-- prints the same values rounded to two decimals.  (bpftrace's kaddr
-- fails where /proc/kallsyms does not give the variable's address, as on
-- the VMs luaprof's tests run on.)  It counts one event, cpu-clock, and
-- samples none: it needs no root.

luaprof.options{
  description = "load averages every second, from /proc/loadavg (bpftrace's loads)",
  help = [[One line per second (-I MS for another interval): the time and the
1, 5 and 15 minute load averages, as /proc/loadavg gives them (two
decimals: bpftrace's tool prints a third, read from kernel memory).]],
}
luaprof.setup{ events = { "cpu-clock" }, counting = true, interval = 1000 }

local bpftools = require "bpftools"
bpftools.snoop()

-- The load averages, as text: "0.52 0.58 0.59".
local function loadavg()
  local f = io.open("/proc/loadavg")
  if not f then return nil end
  local l1, l5, l15 = f:read("l"):match("^(%S+) (%S+) (%S+)")
  f:close()
  return l1 and string.format("%s %s %s", l1, l5, l15)
end

function on_start()
  print("Reading load averages...")
end

function on_interval(info)
  if info.last then return end
  print(string.format("%s load averages: %s", bpftools.time(), loadavg() or "?"))
end

-- syncsnoop.lua: calls that flush file data to disk (sync, syncfs, fsync,
-- fdatasync, sync_file_range, msync), one line each: bpftrace's
-- syncsnoop.bt (and BCC's).
--
--   luaprof run syncsnoop -a                    (every process, until Ctrl-C)
--   luaprof run syncsnoop -- ./prog             (prog and its children)
--
-- From the calls' syscalls:sys_enter_* tracepoints, as they enter.

luaprof.options{
  description = "sync, fsync, fdatasync, syncfs, sync_file_range, msync calls, one line each (bpftrace's syncsnoop)",
  help = [[One line per call as it enters: the time, the caller's pid and
command, and the call's tracepoint (EVENT, named as bpftrace names its
probe).  A storm of them explains stalls of the disk's I/O.]],
}
luaprof.setup{ events = { "syscalls:sys_enter_sync", "syscalls:sys_enter_syncfs", "syscalls:sys_enter_fsync",
                          "syscalls:sys_enter_fdatasync", "syscalls:sys_enter_sync_file_range*",
                          "syscalls:sys_enter_msync" } }

local bpftools = require "bpftools"
bpftools.snoop()

function on_start()
  print(string.format("%-9s %-6s %-16s %s", "TIME", "PID", "COMM", "EVENT"))
end

function on_sample(s)
  print(string.format("%-9s %-6d %-16s tracepoint:%s", bpftools.time(), s.pid, s.comm, s.event))
end

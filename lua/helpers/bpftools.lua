-- bpftools, a helper of the shipped scripts that port bpftrace's tools
-- (execsnoop, opensnoop, runqlat, ...: docs/bpftrace-tools.md; require
-- "bpftools"; no public module): what they share.
--
--   bpftools.snoop()          standard output line-buffered, as bpftrace
--                             prints each event's line at once (a snoop
--                             piped into grep shows each line as it comes)
--   bpftools.time()           bpftrace's time("%H:%M:%S"): the wall clock
--                             when the line is printed
--   bpftools.elapsed_ms(s)    bpftrace's elapsed / 1e6: milliseconds since
--                             the first event of the run (bpftrace counts
--                             from its own start)
--   bpftools.hists()          a table of luaprof.hist()s by key, each made
--                             when its key is first read (hists[k]:add(v))
--   bpftools.print_hists(h, name)  hists (key -> luaprof.hist) printed as
--                             bpftrace prints a map of hist()s: "@NAME[key]: "
--                             then the buckets, smallest total first; the
--                             key "" as bpftrace's one hist: "@NAME: "
--   bpftools.int(v)           v's low 32 bits as a signed int: a system
--                             call's int argument (pid_t, uid_t, int), which
--                             the syscalls tracepoints give as a 64-bit
--                             unsigned field, as bpftrace prints it with %d
--   bpftools.proc(pid, file)  /proc/PID/FILE's text, or nil (a process gone)
--   bpftools.ppid(pid), bpftools.comm(pid)   from /proc
--   bpftools.disk_name(dev)   a block device's name ("vda") from the
--                             kernel's dev_t (major << 20 | minor), or
--                             "MAJOR:MINOR" when /sys does not know it
--
-- What reads /proc does so when the sample is handled, later than
-- bpftrace reads the kernel's task in its probe: the values are those of
-- the process then, and nil once it has exited.  A process's strings are
-- read with s:str, as its event saw them (docs/scripting.md, Strings).

local M = {}

function M.snoop()
  io.stdout:setvbuf("line")
end

function M.time()
  return os.date("%H:%M:%S")
end

local first
function M.elapsed_ms(s)
  first = first or s.time
  return (s.time - first) // 1000000
end

local function new_hist(t, k)
  local h = luaprof.hist()
  rawset(t, k, h)
  return h
end

function M.hists()
  return setmetatable({}, { __index = new_hist })
end

function M.print_hists(hists, name)
  local keys, totals = {}, {}
  for k, h in pairs(hists) do
    keys[#keys + 1] = k
    totals[k] = h:count()
  end
  table.sort(keys, function(a, b)
    if totals[a] ~= totals[b] then return totals[a] < totals[b] end
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(keys) do
    if k == "" then
      print(string.format("@%s: ", name or ""))
    else
      print(string.format("@%s[%s]: ", name or "", k))
    end
    hists[k]:print()
    print()
  end
end

function M.int(v)
  return ((v & 0xffffffff) ~ 0x80000000) - 0x80000000
end

function M.proc(pid, file)
  local f = io.open(string.format("/proc/%d/%s", pid, file), "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

function M.ppid(pid)
  local st = M.proc(pid, "stat")
  -- the command sits between parentheses and may hold any byte
  return st and tonumber(st:match("%) %S+ (%d+)"))
end

function M.comm(pid)
  local c = M.proc(pid, "comm")
  return c and c:gsub("\n$", "")
end

local disks = {}
function M.disk_name(dev)
  local name = disks[dev]
  if name then return name end
  local major, minor = dev >> 20, dev & 0xfffff
  local f = io.open(string.format("/sys/dev/block/%d:%d/uevent", major, minor))
  if f then
    name = f:read("a"):match("DEVNAME=([^\n]+)")
    f:close()
  end
  name = name or string.format("%d:%d", major, minor)
  disks[dev] = name
  return name
end

return M

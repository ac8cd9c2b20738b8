-- profile, a helper of the shipped scripts (require "profile"; no public
-- module): what the profile-writing scripts (folded, flamegraph,
-- pprof, speedscope) share: their --per, --offcpu and --every options,
-- naming the root of a stack by process or thread, off-CPU waits as
-- stacks, and one file per period.
--
--   local opt = luaprof.options{ description = ..., profile.PER, profile.offcpu_option("us"),
--                                profile.EVERY, ... }
--   profile.setup(opt)                  -- -g; with --offcpu, sched_switch too;
--                                       -- with --every, on_interval every period
--   profile.folded(s, opt.per)          -- s.folded with its root named per --per
--   on_event, on_switch = profile.offcpu_events(opt, function(o, ns, stack) ... end [, "stack"])
--
-- offcpu_events (nil, nil without --offcpu) hands each wait of the run's threads
-- to the function: o as sched.offcpu gives it (tid, pid, comm,
-- state...), its length in ns, and the stack where the thread blocked: the
-- folded line (root named per --per), or with "stack" the frames (s.stack).
-- Its second value, as on_switch, ends the waits whose switch back in
-- sched_switch left out at the kernel's switch record (sched.offcpu).

local sched = require "sched"

local M = {}

M.PER = { "per", "string", "comm", "the root of each stack: the command (comm), "
          .. "comm-PID (process) or comm-PID/TID (thread)", choices = { "comm", "process", "thread" } }
-- The --offcpu option, its weight in unit (each script's own: folded
-- stacks count microseconds, speedscope nanoseconds, ...).
function M.offcpu_option(unit)
  return { "offcpu", "boolean", false, "where threads waited instead of where they ran: "
           .. "off-CPU time from sched_switch, in " .. unit .. " (system-wide events; the run's threads)" }
end

-- --every: one profile per period.  Periods are whole milliseconds.
M.EVERY = { "every", "number", nil, "write one file per period of SECONDS (0.5 too), "
            .. "named by its start time, instead of one for the run", min = 0.001, max = 86400 }

-- Whether a file can be made in the directory of out: a usage error when
-- it cannot, so that a run of --every whose files have nowhere to go stops
-- before it starts, not at its first period.  The test is making a file
-- (a name of no other: the time and a random number), then removing it.
local function check_out_dir(out)
  local dir = out:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  local probe
  repeat
    probe = string.format("%s/.luaprof-%d-%d.probe", dir, os.time(), math.random(1 << 30))
    local exists = io.open(probe, "rb")
    if exists then exists:close() end
  until not exists
  local f, err = io.open(probe, "wb")
  if not f then
    local why = err:match(": ([^:]*)$") or err
    if why == "No such file or directory" or why == "Not a directory" then
      why = "no such directory"
    end
    luaprof.usage_error(string.format("--out=%s: cannot write a file in %s: %s", luaprof.shown(out),
                                        luaprof.shown(dir), why))
  end
  f:close()
  os.remove(probe)
end

-- The period of --every in ms (nil without it); a usage error when the
-- output is standard output, which cannot hold one file per period, or a
-- directory no file can be written in.
local function every_ms(opt)
  if not opt.every then return nil end
  local ms = math.floor(opt.every * 1000 + 0.5)
  if math.abs(ms - opt.every * 1000) > 1e-6 then
    luaprof.usage_error("--every=" .. opt.every .. ": periods are whole milliseconds (0.25, 1, 60)")
  end
  if opt.out == "-" then
    luaprof.usage_error("--every writes one file per period: give --out=FILE (each period's file "
                        .. "is FILE with its start time in its name)")
  end
  if opt.out then check_out_dir(opt.out) end
  return ms
end

function M.setup(opt)
  local ms = every_ms(opt)
  if opt.offcpu then
    luaprof.setup{ events = { "sched:sched_switch" }, call_graph = true, all_cpus = true, interval = ms }
  else
    luaprof.setup{ call_graph = true, interval = ms }
  end
end

-- Periods (--every): each on_interval call ends one, whose samples the
-- script has gathered since the previous one; write(path, period) writes
-- them to path and starts afresh (nothing of a period may stay behind:
-- memory stays flat however many periods a run has).  period: index
-- (1, 2, ...), from and to (its start and end: ns since the epoch live,
-- since the first record replaying), samples (on_sample's calls in it).
--
--   local per = profile.periods(opt, function(path, period) ... end)   -- nil without --every
--   on_start(info): per:start(info);  on_interval = function(i) per:interval(i) end
--   on_end(info): per:report("samples" [, count])   -- one line: the files and their count
--
-- Periods follow on_interval's boundaries: every --every from the first
-- record, a live run's last one ending with the run (so every sample lands
-- in exactly one).  Live, a file is named by its period's start on the
-- wall clock, UTC (out.pb.gz -> out-20261127T001500Z.pb.gz, with
-- milliseconds when the period has a fraction of a second: ...T001500.250Z);
-- replaying, by its start in seconds from the recording's first record
-- (out-000012.000s.pb.gz), which carries no wall-clock time.
local Periods = {}
Periods.__index = Periods

function M.periods(opt, write)
  local ms = opt.every and math.floor(opt.every * 1000 + 0.5)
  if not ms then return nil end
  return setmetatable({ ms = ms, out = opt.out, write = write, n = 0, samples = 0 }, Periods)
end

function Periods:start(info)
  self.replay = info.file ~= nil
  -- the wall clock when the run starts, which its first record follows
  -- closely (os.time: whole seconds)
  self.wall0 = self.replay and 0 or os.time() * 1000000000
end

-- path with stamp before the extension(s) of its last component
local function stamped(path, stamp)
  local dir, base = path:match("^(.-)([^/]*)$")
  local stem, ext = base:match("^(.-)(%..*)$")
  if not stem or stem == "" then stem, ext = base, "" end
  return dir .. stem .. "-" .. stamp .. ext
end

function Periods:name(from)
  if not self.out then return nil end
  local stamp
  if self.replay then
    stamp = string.format("%010.3fs", from / 1e9)
  else
    local ms = from // 1000000
    stamp = os.date("!%Y%m%dT%H%M%S", ms // 1000)
    if self.ms % 1000 ~= 0 then stamp = stamp .. string.format(".%03d", ms % 1000) end
    stamp = stamp .. "Z"
  end
  return stamped(self.out, stamp)
end

function Periods:interval(info)
  if not info.last and info.delta ~= self.ms * 1000000 then
    io.stderr:write(string.format("luaprof: --every=%g: -I %d set another period: leave -I out "
                                  .. "(--every sets it)\n", self.ms / 1000, info.delta // 1000000))
    os.exit(255)
  end
  local from = self.wall0 + info.elapsed - info.delta
  self.n = self.n + 1
  self.samples = self.samples + info.samples
  local period = { index = self.n, from = from, to = from + info.delta, samples = info.samples }
  local path = self:name(from)
  local ok, err = pcall(self.write, path, period)
  if not ok then
    -- a full disk, the directory gone: the files before are whole (each is
    -- a temporary file renamed into place), this one is not there at all
    err = tostring(err):gsub("^[^:\n]*:%d+: ", "")       -- the writer's place in the script
    io.stderr:write(string.format("luaprof: --every: %s; stopping (the %d files before it are whole)\n",
                                  err, self.n - 1))
    os.exit(255)
  end
  self.first = self.first or period.from
  -- The period's objects are garbage now; a pprof profile holds most of
  -- its memory outside Lua's heap, which Lua's collector does not count,
  -- so left to itself it would let many pile up before collecting them.
  collectgarbage()
end

-- The line at the end: how many files, and how many samples in them.
function Periods:report(what, count)
  local per = self
  if per.n == 0 then
    io.stderr:write("luaprof: no sample: no period, no file written\n")
    return
  end
  io.stderr:write(string.format("luaprof: wrote %d %s in %d files, one per %gs period: %s ...\n",
                                count or per.samples, what, per.n, per.ms / 1000, per:name(per.first)))
end

-- The root frame for --per: comm, comm-PID or comm-PID/TID, as
-- FlameGraph's stackcollapse-perf.pl --pid and --tid name them.
function M.root(per, comm, pid, tid)
  comm = (comm or "[unknown]"):gsub("[; ]", "_")
  if per == "process" then return string.format("%s-%d", comm, pid) end
  if per == "thread" then return string.format("%s-%d/%d", comm, pid, tid) end
  return comm
end

local function rename(folded, root)
  return root .. folded:sub((folded:find(";", 1, true) or #folded + 1))
end

function M.folded(s, per)
  if per == "comm" or not per then return s.folded end
  return rename(s.folded, M.root(per, s.comm, s.pid, s.tid))
end

function M.offcpu_events(opt, fn, keep)
  if not opt.offcpu then return nil end
  local off = sched.offcpu{
    keep = keep == "stack" and function(s) return s.stack end or function(s) return s.folded end,
    on_back = function(o, t)
      local data = o.data
      if keep ~= "stack" and opt.per ~= "comm" then data = rename(data, M.root(opt.per, o.comm, o.pid, o.tid)) end
      fn(o, t - o.time, data)
    end,
  }
  return { ["sched:sched_switch"] = function(s) off:switch(s) end },
         function(t) off:switch_record(t) end
end

return M

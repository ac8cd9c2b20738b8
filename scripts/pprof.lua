-- pprof.lua: a pprof profile (gzip-compressed profile.proto) of the
-- sampled call stacks, for `go tool pprof`, Pyroscope, Parca or Grafana.
--
--   luaprof run pprof [--out=FILE] [--per=thread] -- ./prog
--   go tool pprof -top profile.pb.gz
--   luaprof run pprof -a -F 19 --every=10 --push=http://pyroscope:4040    (a fleet)
--
-- Two values per sample: "samples" (count) and, for cpu-clock and
-- task-clock, "cpu" in nanoseconds (the sample's period); for other events
-- the event's count.  With --offcpu: "waits" (count) and "offcpu"
-- (nanoseconds) per stack where threads blocked.  Locations carry their
-- object's mapping with its build-id, so a server can symbolize again.

local profile = require "profile"
local fleet = require "fleet"
local opt = luaprof.options{
  description = "a pprof profile (profile.pb.gz) of the call stacks (-g implied; --offcpu: waits)",
  help = [[--per=process or thread labels each sample with its pid, tid and
command (pprof's -tagroot=pid or -tagroot=pid,tid then splits the graph by
them), as --labels=pid,tid,comm does.  --push sends each profile (each
period's, with --every) to a Pyroscope or Parca server, from a thread of
its own: a server that is slow or down never stops the sampling; the
profiles wait for it, --push-backlog of them at most.]],
  { "out", "string", nil, "the file to write (default profile.pb.gz; with --push, none)" },
  { "labels", "list", {}, "per-sample labels", choices = { "pid", "tid", "comm", "cpu" } },
  profile.PER, profile.offcpu_option("nanoseconds"), profile.EVERY,
  table.unpack(fleet.OPTIONS),
}
if not opt.out and not opt.push then opt.out = "profile.pb.gz" end
profile.setup(opt)
local server = fleet.new(opt)

local labels = opt.labels
if opt.per ~= "comm" then labels = { "pid", "tid", "comm" } end

local p, second
local waits = 0

-- On-CPU samples go to the profile in C as the run reads them (feed =
-- "all": no Lua per sample); off-CPU waits from Lua.
local function new()
  if opt.offcpu then
    p = luaprof.pprof{ sample_types = { { "waits", "count" }, { "offcpu", "nanoseconds" } },
                           default = "offcpu" }
  else
    p = luaprof.pprof{ sample_types = { { "samples", "count" }, second },
                           period = { second[1], second[2] }, default = "samples", labels = labels,
                           feed = "all" }
  end
end

-- --every: a profile per period, each a new one
local per = profile.periods(opt, function(path, period)
  if path then p:write(path, { duration = period.to - period.from }) end
  if server then server:send(p:encode(), period.from, period.to) end
  p:close()
  new()
end)
local wall0
if per then
  function on_interval(info) per:interval(info) end
end

function on_start(info)
  local ev = info.events[1] or "cpu-clock"
  local timed = ev:match("^cpu%-clock") or ev:match("^task%-clock")
  second = timed and { "cpu", "nanoseconds" } or { ev, "count" }
  new()
  if per then per:start(info) end
  if server then
    if info.file then
      io.stderr:write("luaprof: pprof: --push sends the profiles of a live run: a replay (-i) has no "
                      .. "wall-clock time to give them; leave --push out\n")
      os.exit(255)
    end
    server:start(info)
    wall0 = os.time() * 1000000000
  end
end

on_event, on_switch = profile.offcpu_events(opt, function(o, ns, stack)
  local l = opt.per ~= "comm" and { pid = o.pid, tid = o.tid, comm = o.comm } or nil
  p:add_stack(stack, { 1, ns }, l)
  waits = waits + 1
end, "stack")

-- The file (--out), then the server's profiles: profiles still unsent at
-- the end (the wait timed out or was interrupted) are lost, which the exit
-- status says too (255), after the line of counts.
function on_end(info)
  local delivered = true
  if per then
    if opt.out then per:report(opt.offcpu and "sched_switch samples" or "samples") end
    if server then delivered = server:finish() end
  else
    if opt.out then
      p:write(opt.out, { duration = info.duration })
      io.stderr:write(string.format("luaprof: wrote %d %s to %s\n", opt.offcpu and waits or info.samples,
                                    opt.offcpu and "waits" or "samples", opt.out))
    end
    if server then
      server:send(p:encode(), wall0, wall0 + (info.duration or 0))
      delivered = server:finish()
    end
  end
  if not delivered then os.exit(255) end
end

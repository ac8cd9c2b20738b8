-- pprof.lua: a pprof profile (gzip-compressed profile.proto) of the
-- sampled call stacks, for `go tool pprof`, Pyroscope, Parca or Grafana.
--
--   luaprof run pprof [--out=FILE] [--per=thread] -- ./prog
--   go tool pprof -top profile.pb.gz
--
-- Two values per sample: "samples" (count) and, for cpu-clock and
-- task-clock, "cpu" in nanoseconds (the sample's period); for other events
-- the event's count.  With --offcpu: "waits" (count) and "offcpu"
-- (nanoseconds) per stack where threads blocked.  Locations carry their
-- object's mapping with its build-id, so a server can symbolize again.

local profile = require "profile"
local opt = luaprof.options{
  description = "a pprof profile (profile.pb.gz) of the call stacks (-g implied; --offcpu: waits)",
  help = [[--per=process or thread labels each sample with its pid, tid and
command (pprof's -tagroot=pid or -tagroot=pid,tid then splits the graph by
them), as --labels=pid,tid,comm does.]],
  { "out", "string", "profile.pb.gz", "the file to write" },
  { "labels", "list", {}, "per-sample labels", choices = { "pid", "tid", "comm", "cpu" } },
  profile.PER, profile.offcpu_option("nanoseconds"), profile.EVERY,
}
profile.setup(opt)

local labels = opt.labels
if opt.per ~= "comm" then labels = { "pid", "tid", "comm" } end

local p, second
local waits = 0

local function new()
  if opt.offcpu then
    p = luaprof.pprof.new{ sample_types = { { "waits", "count" }, { "offcpu", "nanoseconds" } },
                           default = "offcpu" }
  else
    p = luaprof.pprof.new{ sample_types = { { "samples", "count" }, second },
                           period = { second[1], second[2] }, default = "samples", labels = labels }
  end
end

-- --every: a profile per period, each a new one
local per = profile.periods(opt, function(path, period)
  p:write(path, { duration = period.to - period.from })
  new()
end)
if per then
  function on_interval(info) per:interval(info) end
end

function on_start(info)
  local ev = info.events[1] or "cpu-clock"
  local timed = ev:match("^cpu%-clock") or ev:match("^task%-clock")
  second = timed and { "cpu", "nanoseconds" } or { ev, "count" }
  new()
  if per then per:start(info) end
end

function on_sample(s)
  p:add(s)
end

on_event, on_switch = profile.offcpu_events(opt, function(o, ns, stack)
  local l = opt.per ~= "comm" and { pid = o.pid, tid = o.tid, comm = o.comm } or nil
  p:add_stack(stack, { 1, ns }, l)
  waits = waits + 1
end, "stack")

function on_end(info)
  if per then return per:report(opt.offcpu and "sched_switch samples" or "samples") end
  p:write(opt.out, { duration = info.duration })
  io.stderr:write(string.format("luaprof: wrote %d %s to %s\n", opt.offcpu and waits or info.samples,
                                opt.offcpu and "waits" or "samples", opt.out))
end

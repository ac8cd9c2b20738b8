-- pprof.lua: a pprof profile (gzip-compressed profile.proto) of the
-- sampled call stacks, for `go tool pprof`, Pyroscope, Parca or Grafana.
--
--   luaprof run pprof [--out=FILE] [--labels=pid,comm] -- ./prog
--   go tool pprof -top profile.pb.gz
--
-- Two values per sample: "samples" (count) and, for cpu-clock and
-- task-clock, "cpu" in nanoseconds (the sample's period); for other events
-- the event's count.  Locations carry their object's mapping with its
-- build-id, so a server can symbolize again if it wants to.

local opt = luaprof.options{
  description = "a pprof profile (profile.pb.gz) of the call stacks (-g implied)",
  { "out", "string", "profile.pb.gz", "the file to write" },
  { "labels", "list", {}, "per-sample labels", choices = { "pid", "tid", "comm", "cpu" } },
}
luaprof.setup{ call_graph = true }

local profile

function on_start(info)
  local ev = info.events[1] or "cpu-clock"
  local timed = ev:match("^cpu%-clock") or ev:match("^task%-clock")
  local second = timed and { "cpu", "nanoseconds" } or { ev, "count" }
  profile = luaprof.pprof.new{
    sample_types = { { "samples", "count" }, second },
    period = { second[1], second[2], 1 },
    default = "samples",
    labels = opt.labels,
  }
end

function on_sample(s)
  profile:add(s)
end

function on_end(info)
  profile:write(opt.out, { duration = info.duration })
  io.stderr:write(string.format("luaprof: wrote %d samples to %s\n", info.samples, opt.out))
end

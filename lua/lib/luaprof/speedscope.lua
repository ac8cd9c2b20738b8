-- luaprof.speedscope: profiles in speedscope's JSON format, one sampled
-- profile per thread (https://www.speedscope.app/file-format-schema.json).
--
--   local sp = luaprof.speedscope{ name = "my run", unit = "nanoseconds",
--                                  per = "thread",    -- or "process"
--                                  feed = "all" }     -- every sample, in C
--   function on_sample(s) sp:add(s) end        -- in on_sample (without feed)
--   sp:add_stack(key, name, frames, weight)     -- a stack of your own, leaf
--                                               -- first: { {sym=, dso=}, ... }
--   sp:profile_of(comm, pid, tid) -> key, name  -- the profile a thread's
--                                               -- stacks go to
--   sp:write(path)                              -- or sp:json() -> string
--
-- unit "nanoseconds" (the default) weighs each sample by s.period, the
-- time a cpu-clock or task-clock sample stands for; unit "none" counts
-- samples.  Samples keep their order within a thread (speedscope's time
-- order view), consecutive identical stacks merged into one weighted
-- sample.  A stack's frame list is built once per distinct folded stack.
-- per = "process" puts the threads of a process into one profile, named
-- "comm (pid N)"; per thread (the default) they are "comm (tid N)".
-- feed = "all": the run adds every sample itself, in C (luaprof.stacks
-- with a timeline), so no on_sample is needed and no Lua runs per
-- sample; such a profile takes no add or add_stack, and :close() stops
-- it taking samples (a profile per period: close the one written).

local json = require "luaprof.json"

local Profile = {}
Profile.__index = Profile

-- The module is the constructor: luaprof.speedscope{...}.
local function new(opts)
  opts = opts or {}
  local unit = opts.unit or "nanoseconds"
  if unit ~= "nanoseconds" and unit ~= "none" then
    error("speedscope: unit is \"nanoseconds\" or \"none\"", 2)
  end
  local per = opts.per or "thread"
  if per ~= "thread" and per ~= "process" then
    error("speedscope: per is \"thread\" or \"process\"", 2)
  end
  local fed
  if opts.feed == "all" then
    fed = luaprof.stacks{ timeline = per, weight = unit == "none" and "samples" or "period" }
  elseif opts.feed ~= nil and opts.feed ~= "script" then
    error("speedscope: feed is \"all\" or \"script\"", 2)
  end
  return setmetatable({
    name = opts.name or "luaprof", unit = unit, per = per, fed = fed,
    frames = {}, frame_index = {}, threads = {}, order = {}, stacks = {},
  }, Profile)
end

local function frame_id(self, name, file)
  local key = name .. "\0" .. (file or "")
  local id = self.frame_index[key]
  if not id then
    id = #self.frames
    self.frames[id + 1] = { name = name, file = file }
    self.frame_index[key] = id
  end
  return id
end

-- frames: leaf first, as s.stack; the result is root first, as
-- speedscope wants.
local function ids_of(self, frames)
  local ids, n = {}, #frames
  for i = n, 1, -1 do
    local f = frames[i]
    local name = f.sym or "[unknown]"
    if f.kernel then name = name .. " [k]" end
    ids[n - i + 1] = frame_id(self, name, f.dso)
  end
  return ids
end

local function thread(self, tid, name)
  local t = self.threads[tid]
  if not t then
    t = { name = name, samples = {}, weights = {}, total = 0, last = nil }
    self.threads[tid] = t
    self.order[#self.order + 1] = tid
  end
  return t
end

local function push(t, ids, weight)
  if t.last == ids then
    local n = #t.weights
    t.weights[n] = t.weights[n] + weight
  else
    t.samples[#t.samples + 1] = ids
    t.weights[#t.weights + 1] = weight
    t.last = ids
  end
  t.total = t.total + weight
end

function Profile:profile_of(comm, pid, tid)
  if self.per == "process" then return pid, string.format("%s (pid %d)", comm or "?", pid) end
  return tid, string.format("%s (tid %d)", comm or "?", tid)
end

local function not_fed(self, what)
  if self.fed then error("speedscope: " .. what .. ": this profile is fed every sample (feed = \"all\")", 3) end
end

function Profile:add(s)
  not_fed(self, "add")
  local key = s.folded
  local ids = self.stacks[key]
  if not ids then
    ids = ids_of(self, s.stack)
    self.stacks[key] = ids
  end
  local k = self.per == "process" and s.pid or s.tid
  local t = self.threads[k] or thread(self, self:profile_of(s.comm, s.pid, s.tid))
  push(t, ids, self.unit == "none" and 1 or s.period)
end

function Profile:add_stack(tid, name, frames, weight)
  not_fed(self, "add_stack")
  local t = thread(self, tid, name)
  t.name = name         -- the latest: a thread may exec
  push(t, ids_of(self, frames), weight or 1)
end

-- The profiles of a fed profile: its frames and threads as luaprof.stacks
-- kept them.
local function fed_profiles(self)
  return self.fed:frames(), self.fed:timelines()
end

function Profile:json()
  local frames, threads = self.frames, {}
  if self.fed then
    frames, threads = fed_profiles(self)
  else
    for i, tid in ipairs(self.order) do threads[i] = self.threads[tid] end
  end
  local profiles = json.array()
  for _, t in ipairs(threads) do
    profiles[#profiles + 1] = {
      type = "sampled", name = t.name, unit = self.unit,
      startValue = 0, endValue = t.total,
      samples = json.array(t.samples), weights = json.array(t.weights),
    }
  end
  return json.encode({
    ["$schema"] = "https://www.speedscope.app/file-format-schema.json",
    shared = { frames = json.array(frames) },
    profiles = profiles,
    name = self.name,
    activeProfileIndex = 0,
    exporter = "luaprof@" .. luaprof.version,
  }, { sort_keys = true })
end

function Profile:write(path)
  luaprof.write_file(path, self:json())
end

-- Stops a fed profile taking samples and frees what it holds.
function Profile:close()
  if self.fed then self.fed:close() end
end

return new

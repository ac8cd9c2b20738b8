-- cpuwalk.lua: which CPUs run threads, sampled 99 times a second, as a
-- histogram of CPU numbers: bpftrace's cpuwalk.bt.
--
--   luaprof run cpuwalk -a -d 10                (the whole system, for ten seconds)
--   luaprof run cpuwalk -- ./prog               (the CPUs prog runs on)
--   luaprof run cpuwalk -F 999 -a -d 10         (sampled 999 times a second)
--
-- From cpu-clock samples on every CPU (bpftrace's profile:hz:99 is the
-- same event): the idle task's are left out, as bpftrace's /pid/ does, so
-- a CPU's count is how often something ran there.  Following a command
-- (-- CMD, -p), its own threads' samples (luaprof.is_target): where it
-- ran.  The CPUs' timers sample wall time, as bpftrace's do (a thread's
-- own cpu-clock would count its CPU time instead).

local opt = luaprof.options{
  description = "CPUs running threads, sampled at 99 Hz, as a histogram of CPU numbers (bpftrace's cpuwalk)",
  help = [[At the end, the linear histogram of the samples' CPU numbers (the
idle task left out), as bpftrace prints its map @cpu: an uneven one shows
threads crowding some CPUs while others idle.  -F changes the rate.]],
  { "max", "integer", 1000, "the histogram's last CPU number (bpftrace's lhist max)", min = 1 },
}
luaprof.setup{ events = { "cpu-clock" }, freq = 99, all_cpus = true }

local cpus = luaprof.hist{ min = 0, max = opt.max, step = 1 }

function on_start(info)
  print(string.format("Sampling CPU at %shz...", info.freq or "?"))
end

function on_sample(s)
  if s.pid ~= 0 and s.cpu and luaprof.is_target(s.pid) then cpus:add(s.cpu) end
end

function on_end()
  print("\n@cpu: ")
  cpus:print()
  print()
end

-- luacheck configuration for luaprof's shipped Lua (scripts/, lua/lib/):
-- Lua 5.4, with the globals luaprof gives a script.
std = "lua54"
read_globals = { "luaprof" }
globals = { "on_start", "on_sample", "on_end", "on_interval", "on_event", "on_comm", "on_fork", "on_exit", "on_switch" }
max_line_length = 120

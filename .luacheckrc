-- luacheck configuration for luaprof's Lua: scripts/, lua/lib/ and
-- lua/helpers/, and the tests' Lua files (tests/lua/, tests/e2e/lua/).
-- Lua 5.4, with the globals luaprof gives a script.
std = "lua54"
read_globals = { "luaprof" }
globals = { "on_start", "on_sample", "on_end", "on_interval", "on_event", "on_comm", "on_fork", "on_exit", "on_switch", "on_key" }
max_line_length = 120
-- A script that must not compile: the test script_errors checks luaprof's
-- message for its syntax error.
exclude_files = { "tests/e2e/lua/syntax_error.lua" }

-- luaprof.options: script options parsed from the command line, and each
-- mistake's message.  luaprof.options runs once per run, so each case
-- runs luaprof (luaprof.executable) on a small script of its own.
local T = require "harness"

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -m 700 " .. dir))

local SPEC = [[
local opt = luaprof.options{
  description = "a test",
  { "limit", "integer", 20, "rows", min = 1 },
  { "ratio", "number", 0.5, "a ratio" },
  { "name", "string", "x", "a name" },
  { "on", "boolean", false, "a switch" },
  { "keys", "list", "a", "keys", choices = { "a", "b", "c" } },
}
print(luaprof.json.encode(opt, { sort_keys = true }))
os.exit(0)
]]

-- Runs luaprof run SCRIPT ARGS -i /dev/null with script text src; its
-- standard output, standard error and exit status.
local n = 0
local function run(src, args)
  n = n + 1
  local script = string.format("%s/s%d.lua", dir, n)
  local f = assert(io.open(script, "w"))
  f:write(src)
  f:close()
  local p = io.popen(string.format("%s run %s %s -i /dev/null 2>%s/err; echo \"rc=$?\"",
                                   luaprof.executable, script, args, dir))
  local out = p:read("a")
  p:close()
  local e = assert(io.open(dir .. "/err"))
  local err = e:read("a")
  e:close()
  local rc = tonumber(out:match("rc=(%d+)\n$"))
  local pat = script:gsub("%p", "%%%0")
  out = out:gsub("rc=%d+\n$", ""):gsub(pat, "SCRIPT")
  return out, (err:gsub(pat, "SCRIPT")), rc
end

local USAGE = [==[
usage: luaprof run SCRIPT [script options] [luaprof options] [-- CMD [ARGS...]]

script options:
  --limit=N                  rows (default 20)
  --ratio=X                  a ratio (default 0.5)
  --name=TEXT                a name (default x)
  --on, --no-on              a switch (default false)
  --keys=A,B,...             keys; one of: a, b, c (default a)

luaprof's own options (-e, -F, -g, -p, -a, -d, -i, -o, -I, -A): luaprof run --help
]==]

T.case("options: defaults", function()
  local out, err, rc = run(SPEC, "")
  T.eq({ out, err, rc }, { '{"keys":["a"],"limit":20,"name":"x","on":false,"ratio":0.5}\n', "", 0 })
end)

T.case("options: values given, suffixes, repeated lists, --no-", function()
  local out, err, rc = run(SPEC, "--limit=5K --ratio=1e3 --name=a=b --on --no-on --keys=b,c --keys=a")
  T.eq({ out, err, rc },
       { '{"keys":["b","c","a"],"limit":5000,"name":"a=b","on":false,"ratio":1000}\n', "", 0 })
end)

T.case("options: boolean words", function()
  T.eq(run(SPEC, "--on=yes"), '{"keys":["a"],"limit":20,"name":"x","on":true,"ratio":0.5}\n')
end)

local function bad(name, args, first_line)
  T.case("options error: " .. name, function()
    local out, err, rc = run(SPEC, args)
    T.eq({ out, err, rc }, { "", "luaprof: SCRIPT: " .. first_line .. "\n" .. USAGE, 255 })
  end)
end
bad("an unknown option", "--lim=3", "unknown option '--lim'")
bad("no value", "--name", "--name needs a value: --name=TEXT")
bad("not an integer", "--limit=ten", "--limit=ten: the value must be an integer such as 10, -3, 0x1f or 5K")
bad("below min", "--limit=0", "--limit=0: the value must be at least 1")
bad("not a number", "--ratio=x", "--ratio=x: the value must be a number such as 0.5 or 1e3")
bad("not a boolean", "--on=maybe", "--on=maybe: the value must be true or false (yes/no, on/off, 1/0)")
bad("not in the choices", "--keys=a,z",
    "--keys=a,z: the value must be chosen from the list below ('z' is not in it)")
bad("--no- of a non-boolean", "--no-limit", "unknown option '--no-limit'")

T.case("options: --help", function()
  local out, err, rc = run(SPEC, "--help")
  T.eq({ out, err, rc }, { USAGE:gsub("\n\nscript options", "\n\na test\n\nscript options"), "", 0 })
end)

T.case("options error: a script without options given one", function()
  local out, err, rc = run("local _ = 1\n", "--x=1")
  T.eq({ out, err, rc }, { "", "luaprof: SCRIPT: unknown option '--x=1': the script declares no options " ..
                               "(see luaprof run SCRIPT --help)\n", 255 })
end)

T.case("options error: a bad declaration", function()
  local _, err, rc = run('luaprof.options{ description = "d", { "n", "float", 1, "h" } }\n', "")
  T.eq(rc, 255)
  T.eq(err:match("^[^\n]*"), "luaprof: SCRIPT:1: bad argument #1 to 'options' (option 1: the type must " ..
                             "be string, integer, number, boolean or list (each option is { name, type, " ..
                             "default, help [, choices = {...}] }))")
end)

T.case("options error: usage_error at the top level", function()
  local out, err, rc = run('luaprof.options{ description = "d" }\nluaprof.usage_error("give --x")\n', "")
  T.eq({ out, err, rc }, { "", "luaprof: SCRIPT: give --x (see luaprof run SCRIPT --help)\n", 255 })
end)

os.execute("rm -rf " .. dir)
T.done()

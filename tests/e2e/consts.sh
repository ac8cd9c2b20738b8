# consts: the kernel's named constants (issue 33): luaprof.signal_name,
# luaprof.errno_name and luaprof.const's error numbers, signals and open
# flags against Python's (signal, errno, os: the same headers' values,
# O_LARGEFILE aside, which glibc makes 0 on 64-bit machines where the
# kernel's is 0100000); luaprof.open_flags of the flags openread and
# strpaths open with; luaprof.task_state of every sched_switch's
# prev_state against perf script's own prev_state=; an unknown constant
# is an error, and the table is read-only.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
command -v python3 >/dev/null || skip "no python3 for the oracle"

# the tables, as Python sees them (its errno names the aliases luaprof
# gives way: EDEADLOCK is EDEADLK)
python3 - > want <<'PY'
import errno, os, signal
for n in range(1, 32):
    print("signal", n, signal.Signals(n).name)
alias = {"EDEADLOCK": "EDEADLK", "ENOTSUP": "EOPNOTSUPP", "EWOULDBLOCK": "EAGAIN"}
for n in sorted(errno.errorcode):
    print("errno", n, alias.get(errno.errorcode[n], errno.errorcode[n]))
for name in sorted(dir(os)):
    if name.startswith("O_") and name not in ("O_LARGEFILE", "O_BINARY", "O_NOINHERIT",
            "O_SHORT_LIVED", "O_TEMPORARY", "O_RANDOM", "O_SEQUENTIAL", "O_TEXT",
            "O_EXLOCK", "O_SHLOCK", "O_NDELAY", "O_RSYNC", "O_FSYNC", "O_ASYNC", "O_EVTONLY",
            "O_SYMLINK", "O_NOFOLLOW_ANY", "O_EXEC", "O_SEARCH", "O_TTY_INIT"):
        print("const", name, getattr(os, name))
PY
cat > tables.lua <<'LUA'
for line in io.lines("want") do
  local kind, a, b = line:match("^(%S+) (%S+) (%S+)$")
  if kind == "signal" then print(kind, a, luaprof.signal_name(tonumber(a)))
  elseif kind == "errno" then print(kind, a, luaprof.errno_name(tonumber(a)))
  else print(kind, a, luaprof.const[a]) end
end
print(luaprof.open_flags(0), luaprof.open_flags(0x80000), luaprof.open_flags(0x241),
      luaprof.open_flags(0x410002), luaprof.open_flags(0x80000000))
print(pcall(function() return luaprof.const.NO_SUCH end))
print(pcall(function() luaprof.const.O_CREAT = 1 end))
os.exit(0)
LUA
expect_status 0 "$LUAPROF" run ./tables.lua -i /dev/null
head -n "$(wc -l < want)" "$TMP/out" | tr '\t' ' ' | diff want - || fail "the constants differ from Python's"
expect_grep '^O_RDONLY	O_RDONLY\|O_CLOEXEC	O_WRONLY\|O_CREAT\|O_TRUNC	O_RDWR\|O_TMPFILE	O_RDONLY\|0x80000000$' "$TMP/out"
expect_grep "^false	.*luaprof.const.NO_SUCH: no such constant" "$TMP/out"
expect_grep "^false	.*luaprof.const is read-only" "$TMP/out"

# the flags a program opens with, named
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoints' data needs root"
cat > flags.lua <<'LUA'
luaprof.setup{ events = { "syscalls:sys_enter_openat" } }
function on_sample(s) if s.comm == "openread" then print(luaprof.open_flags(s.args.flags)) end end
LUA
expect_status 0 "$LUAPROF" run ./flags.lua -- "$PROGS/openread" 3
expect_grep '^O_RDONLY\|O_CLOEXEC$' "$TMP/out"          # ld.so's
[ "$(grep -c '^O_RDONLY$' "$TMP/out")" = 3 ] || fail "openread's three O_RDONLY opens not named"

# every switch's state as perf script prints it
perf record -q -e sched:sched_switch -o sw.data -- "$PROGS/sleeper" 3 10 >/dev/null 2>&1 || fail "perf record failed"
perf script -i sw.data -F trace 2>/dev/null | sed -n 's/.*prev_state=\([^ ]*\) .*/\1/p' > perf.states
[ -s perf.states ] || fail "perf script printed no prev_state"
cat > states.lua <<'LUA'
function on_sample(s) print(luaprof.task_state(s.args.prev_state)) end
LUA
expect_status 0 "$LUAPROF" run ./states.lua -i sw.data
diff perf.states "$TMP/out" || fail "task states differ from perf script's"
exit 0

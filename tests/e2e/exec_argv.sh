# args.argv at syscalls:sys_exit_execve: the arguments of every exec of
# toolwork exec 2, the command's own, two children's (one with an
# argument of 100 characters) and one that fails (ENOENT), each whole,
# the workload exiting at once: the new program's from libc's execve
# copied by the kernel (or its stack, or /proc for the command's own,
# whose call came before the events started), the failed one's from that
# copy only (its process's stack and command line are its old program's).
# Without strings kept, a failed exec's arguments are nil, never the old
# program's.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "system call tracepoints need root here"
have_tracefs || skip "no tracefs"
cd "$TMP"
cat > argv.lua <<'LUA'
local keep = os.getenv("KEEP") == "1"
luaprof.setup{ events = { "syscalls:sys_exit_execve" },
               strings = keep and { ["syscalls:sys_exit_execve"] = true } or nil }
function on_sample(s)
  local argv = s.args.argv
  print(s.args.ret .. " " .. (argv and table.concat(argv, " ") or "nil"))
end
LUA
long=long-$(printf '%095d' 0 | tr 0 x)
KEEP=1 expect_status 0 "$LUAPROF" run ./argv.lua -- "$PROGS/toolwork" exec 2
printf '%s\n' "0 $PROGS/toolwork exec 2" "0 toolwork hold 0 arg-1 $long" "0 toolwork hold 0 arg-2 $long" \
	"-2 toolwork-missing x" > want
diff want "$TMP/out" || fail "args.argv at sys_exit_execve: not each exec's arguments"
! grep -q "could not be read" "$TMP/err" || { cat "$TMP/err"; fail "some arguments could not be read"; }
KEEP=0 expect_status 0 "$LUAPROF" run ./argv.lua -- "$PROGS/toolwork" exec 2
[ "$(tail -1 "$TMP/out")" = "-2 nil" ] || { cat "$TMP/out"; fail "without strings, a failed exec's args.argv is not nil"; }
exit 0

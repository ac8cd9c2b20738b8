# Perf maps (/tmp/perf-PID.map) are read only when they can be trusted: a
# regular file, not reached through a link, owned by root, luaprof's user
# or the process's user.  Replaying a recording of a JIT program (run as
# root, so its map is root's) with its map replaced by one owned by nobody,
# by a symbolic link to it, or by a FIFO: each is refused with one line,
# the JIT functions stay unnamed, and the FIFO hangs nothing.  The map as
# written names them.  (perf 6.1 follows the link and blocks on the FIFO.)
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "making files owned by another user needs root"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to own a file"
cd "$TMP"
pid=
trap '[ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"; rm -rf "$TMP"' EXIT
cat > names.lua <<'LUA'
local named = 0
function on_start(info) if info.pid then print("pid " .. info.pid) end end
function on_sample(s) if s.sym == "jit_first" then named = named + 1 end end
function on_end() print("named " .. named) end
LUA
expect_status 0 "$LUAPROF" run ./names.lua -F 999 -o jit.data -- "$PROGS/jit" 300 10
pid=$(awk '/^pid / {print $2}' "$TMP/out")
map=/tmp/perf-$pid.map
[ -f "$map" ] || fail "the JIT program wrote no $map"
mv "$map" real.map
# replay MSG: jit.data replayed with $map as set up; MSG is the one line
# expected ("" for none), and jit_first named only when there is none
replay() {
	timeout 20 "$LUAPROF" run ./names.lua -i jit.data > "$TMP/out" 2> "$TMP/err"
	local rc=$? named
	[ $rc = 0 ] || { cat "$TMP/err"; fail "replay with $1: exit $rc (124: it hung)"; }
	named=$(awk '/^named / {print $2}' "$TMP/out")
	if [ -z "$2" ]; then
		[ "${named:-0}" -ge 100 ] || fail "$1: jit_first named in ${named:-0} samples"
		grep -q 'perfmap' "$TMP/err" && fail "$1: $(cat "$TMP/err")"
	else
		[ "${named:-0}" = 0 ] || fail "$1: jit_first named from a map not to be trusted"
		[ "$(grep -c "^luaprof: perfmap: $map is $2: ignored" "$TMP/err")" = 1 ] ||
			{ cat "$TMP/err"; fail "$1: not one line saying the map is $2"; }
	fi
	echo "$1: jit_first named in ${named:-0} samples"
}
cp real.map "$map"
replay "root's map" ""
chown nobody "$map"
replay "nobody's map" "owned by a user other than the process's, luaprof's or root"
rm -f "$map"; ln -s "$TMP/real.map" "$map"
replay "a symbolic link" "a symbolic link"
rm -f "$map"; mkfifo "$map"
replay "a FIFO" "not a regular file"
exit 0

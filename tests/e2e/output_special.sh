# -o writes a regular file (new or existing) or, with -o -, a stream on
# standard output; anything else at the path is refused in one line
# before anything starts, and left exactly as it was (issue 31): a device
# node (luaprof record -o /dev/full used to truncate it, fail to write,
# and unlink /dev/full), a symbolic link to one (/dev/full, /dev/null), a
# FIFO, a socket, a directory, and a device or FIFO at FILE.old when FILE
# would be kept there.  Every way of writing through -o is tried: luaprof
# record, a script's run -o, a one-liner's -x -o, and -p.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
MARK=$TMP/mark
printf '#!/bin/sh\n: > "%s/ran"\nexec "%s" "$@"\n' "$TMP" "$PROGS/spin" > "$MARK"
chmod +x "$MARK"
sleep 600 & SLEEPER=$!
trap 'kill $SLEEPER 2>/dev/null; rm -rf "$TMP"' EXIT

mkdir w && cd w || fail "cannot make w"
ROOT_USER=false
[ "$(id -u)" = 0 ] && mknod full c 1 7 && mknod oldnode.data.old c 1 3 && ROOT_USER=true
ln -s /dev/full to-full
ln -s /dev/null to-null
mkfifo fifo
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock 2>/dev/null ||
	echo "(no python3: no socket case)"
mkdir dir && echo keep > dir/inside
echo earlier > oldfifo.data && mkfifo oldfifo.data.old
$ROOT_USER && echo earlier > oldnode.data

# state: everything in w, as ls -l shows it (types, device numbers, sizes,
# link targets, times) and with each file's sum, so that any change shows,
# and what /dev/full and /dev/null are.
state() {
	LC_ALL=C ls -l --time-style=+%s.%N . dir
	stat -c '%n %F %t:%T %i' /dev/full /dev/null
	find . -type f -exec md5sum {} + | sort
}
state > "$TMP/before"

# refused TARGET KIND [WHAT]: every writer through -o refuses TARGET in
# one line naming it as KIND (or WHAT entirely), runs nothing, changes
# nothing.
refused() {
	local target=$1 kind=$2 line cmd
	line=${3:-"-o $target is $kind, not a regular file"}
	for cmd in "record -e cpu-clock" "run $ROOT/scripts/top.lua -e cpu-clock" "-x cpu-clock{count()}"; do
		rm -f "$TMP/ran"
		# shellcheck disable=SC2086
		timeout 60 "$LUAPROF" $cmd -o "$target" -- "$MARK" 50 > "$TMP/out" 2> "$TMP/err"
		check_refusal "$cmd -o $target -- CMD" "$line"
		[ ! -e "$TMP/ran" ] || fail "$cmd -o $target: the command ran"
	done
	timeout 60 "$LUAPROF" record -e cpu-clock -o "$target" -p "$SLEEPER" > "$TMP/out" 2> "$TMP/err"
	check_refusal "record -o $target -p PID" "$line"
}

# check_refusal WHAT LINE: w as it was, exit 255 ($? of the run), stderr
# one line "luaprof: LINE...".
check_refusal() {
	local rc=$? what=$1 line=$2
	state > "$TMP/after"
	diff "$TMP/before" "$TMP/after" || { cat "$TMP/err"; fail "$what changed what was there"; }
	[ "$rc" = 255 ] || { cat "$TMP/err"; fail "$what exited $rc, expected 255"; }
	[ "$(wc -l < "$TMP/err")" = 1 ] && grep -qF "luaprof: $line" "$TMP/err" ||
		{ cat "$TMP/err"; fail "$what: not one line 'luaprof: $line'"; }
}

need_root() { $ROOT_USER || skip "not root: no device node made (the links to /dev/full and /dev/null stand for them)"; }
device() { need_root; refused full "a character device"; }
socket() {
	[ -S sock ] || skip "no socket made (no python3)"
	refused sock "a socket"
}
old_device() {
	need_root
	refused oldnode.data "" "cannot rename oldnode.data to oldnode.data.old, as a new recording keeps the old one: oldnode.data.old is a character device"
}

# what is allowed still works: a new file, an existing one (kept as .old)
allowed() {
	expect_status 0 "$LUAPROF" record -e cpu-clock -o new.data -- "$PROGS/spin" 50
	[ -s new.data ] || fail "no recording in new.data"
	cp new.data first.data
	expect_status 0 "$LUAPROF" record -e cpu-clock -o new.data -- "$PROGS/spin" 50
	cmp -s first.data new.data.old || fail "the first new.data was not kept as new.data.old"
}

scenario "a device" device
scenario "a link to /dev/full" refused to-full "a character device"
scenario "a link to /dev/null" refused to-null "a character device"
scenario "a FIFO" refused fifo "a FIFO"
scenario "a socket" socket
scenario "a directory" refused dir "a directory"
scenario "a FIFO at FILE.old" refused oldfifo.data "" "cannot rename oldfifo.data to oldfifo.data.old, as a new recording keeps the old one: oldfifo.data.old is a FIFO"
scenario "a device at FILE.old" old_device
scenario "a new file, an existing one" allowed
scenarios_done

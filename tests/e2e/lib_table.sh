# lib_table.sh - sourced by the bad-input tables (tests/e2e/bad_*.sh):
# every kind of bad input luaprof meets, one row each, checking the exit
# status, the one-line message, and that nothing is left behind.  A row is
# one line:
#
#   row NAME STATUS 'MESSAGE' CHECKS -- COMMAND...
#
# STATUS is an extended regex for the exit status (255, or 0|255 where
# either outcome is right).  MESSAGE is an extended regex the text of the
# first line luaprof prints on stderr must match, once its machine notices
# (no PMU, user space only) are left out ('' means stderr has nothing
# else; a regex matching '' lets it be empty).  After that line only a Lua
# traceback may follow (and, for a cut recording, the line saying where it
# was cut).  CHECKS, comma-separated (- for none):
#   norun    the command never ran ($MARK, which runs spin, leaves ./ran)
#   ran      it ran
#   noend    on_end did not run (the scripts print "on_end ..." there)
#   end      on_end ran
#   enderr   on_end ran and its info.error said what stopped the run (a
#            hook's error keeps what was gathered: issue 32)
#   nofile   no out.data was created (nor out.data.old)
#   perfok   out.data is read by perf report without a complaint
#   short    no line on stderr is over 400 characters (a long value is
#            quoted by its start, length and end: lp_show)
#   usage    the script's usage may follow the line (script options)
# Every row also checks that no process it started (all run from $TMP) is
# left, waiting up to 3 s for them to go.  COMMAND runs in the row's own
# directory ($TMP/rows/N); the shell functions here do the rows that need
# more than one command (signals, mounts, another user).  A row that
# cannot run here (not root, no perf) is skipped with the reason.  A table
# ends with table_done, which prints "N passed, N failed, N skipped" (one
# test per row for tests/run.sh).
#
# The exit statuses (docs/commands.md, "Exit status"): the command's own status
# (128+N for signal N), 255 for luaprof's own failures, and for a replay
# stopped by a signal, 128+N.  A closed output (| head) is no failure:
# luaprof stops writing, lets the command finish undisturbed, and exits
# with the command's status.
need_perf_events
LP=$LUAPROF
S=$TMP/s
SPIN=$TMP/spin
mkdir -p "$S" "$TMP/rows"
cp "$PROGS/spin" "$SPIN"
printf '#!/bin/sh\n: > ran\nexec %s "$@"\n' "$SPIN" > "$TMP/mark"
chmod +x "$TMP/mark"
printf 'not a program\n' > "$TMP/notexec"
chmod -x "$TMP/notexec"
MARK=$TMP/mark
NOTICES="no hardware 'cycles' event|kernel samples not allowed"
FOLLOWUPS='^stack traceback:|^	|cut after its last whole record'

# ---- the scripts --------------------------------------------------------
ON_END='function on_end(i) print(string.format("on_end samples=%d status=%s error=%s", i.samples, tostring(i.status), tostring(rawget(i, "error")))) end'
script() { printf '%s\n' "$2" > "$S/$1.lua"; }
script count "local n = 0
function on_sample(s) n = n + 1 end
$ON_END"
script syntax 'function on_sample(s)
  local x = = 1
end'
script err_top 'error("failure at the top level")'
script err_start "function on_start(i) error('failure in on_start') end
$ON_END"
script err_sample "local n = 0
function on_sample(s) n = n + 1 if n == 5 then error('failure in on_sample') end end
$ON_END"
script err_end 'function on_end(i) error("failure in on_end") end'
script err_switch "function on_switch(t) error('failure in on_switch') end
$ON_END"
script loop_switch "function on_switch(t) while true do end end
$ON_END"
script loop_start "function on_start(i) while true do end end
$ON_END"
script loop_sample "local n = 0
function on_sample(s)
  n = n + 1
  if n == 3 then io.open('looping', 'w'):close() while true do end end
end
$ON_END"
script loop_end 'function on_end(i) io.open("looping", "w"):close() while true do end end'
script alloc_sample "local t = {}
function on_sample(s) for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end end
$ON_END"
script alloc_top 'local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(64) .. i end'
script bad_setup 'luaprof.setup{ bogus = 1 }'
script load_dump "assert(load(string.dump(function() end)))
$ON_END"
script slow "local x, n = 0, 0
function on_sample(s) n = n + 1 for i = 1, 100000 do x = x + i end end
$ON_END"
script chatty "function on_sample(s) print(s.time, s.ip) end
function on_end(i) for k = 1, 20000 do print('on_end line', k) end end"
mkdir -p "$S/adir"


# ---- rows that need more than one command ------------------------------

# wait_file F: waits up to 20 s for F to exist.
wait_file() {
	local i
	for i in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}

# signal_loop SIG SCRIPT: a hook loops; SIG to luaprof once it does (the
# run lasts 0.5 s, so that an on_end gets its turn).
signal_loop() {
	"$LP" run "$S/$2.lua" -d 0.5 -- "$SPIN" 20000 & local p=$!
	wait_file looping || { kill -KILL $p; return 99; }
	kill -"$1" $p
	wait $p
}

# signal_record SIG: SIG to luaprof mid-run, recording to out.data.
signal_record() {
	"$LP" run "$S/count.lua" -o out.data -- "$MARK" 20000 & local p=$!
	wait_file ran && sleep 0.5
	kill -"$1" $p
	wait $p
}

# kill_command: the command is killed by SIGKILL while luaprof runs.
kill_command() {
	"$LP" run "$S/count.lua" -- "$MARK" 20000 & local p=$!
	wait_file ran && sleep 0.3
	pkill -KILL -f "^$SPIN 20000" || return 99
	wait $p
}

# attach_gone: -p of a process that has exited (a zombie) by the time
# luaprof attaches.
attach_gone() {
	"$SPIN" 0 & local z=$!
	sleep 0.3
	"$LP" run "$S/count.lua" -p $z
	local rc=$?
	wait $z
	return $rc
}

# closed_output: | head -1 with a script that prints per sample and 20000
# lines at the end; the command must run to its end (it exits 3).
closed_output() {
	"$LP" run "$S/chatty.lua" -- "$MARK" 400 3 | head -1 > head.out
	local rc=${PIPESTATUS[0]}
	[ "$(wc -l < head.out)" = 1 ] || { echo "head got $(wc -l < head.out) lines" >&2; return 99; }
	return $rc
}

# require_cwd: as root, require reads neither a .lua nor a .so module from
# the current directory, even with LUA_PATH and LUA_CPATH pointing there.
require_cwd() {
	need_root "the rule is for root" || return 77
	echo 'error("loaded evil.lua from the current directory")' > evil.lua
	echo 'not an object' > evil.so
	printf 'for _, m in ipairs{"evil"} do print((pcall(require, m)) and "loaded" or "refused") end\nfunction on_end() end\n' \
		> "$S/req.lua"
	LUA_PATH='./?.lua' LUA_CPATH='./?.so' "$LP" run "$S/req.lua" -- true > req.out || return
	cat req.out
	[ "$(cat req.out)" = refused ] || { echo "require read the current directory" >&2; return 99; }
}

# planted HOW: as root, a count.lua that would leave ./evil is planted
# where "luaprof run count" looks for it (HOW: its scripts directory, the
# file, or the home above them belong to user 65534; or a $LUAPROF_PATH
# directory anyone can write to), then count runs (or, for "list",
# "luaprof list scripts", which runs each script's top level): the
# planted file must not run.
planted() {
	need_root "plants files of user 65534" || return 77
	local d=$PWD/home/.local/share/luaprof/scripts rc
	mkdir -p "$d" open
	printf 'io.open("%s/evil", "w"):close()\n' "$PWD" > "$d/count.lua"
	case $1 in
	dir) chown 65534 "$d" ;;
	file|list) chown 65534 "$d/count.lua" ;;
	home) chown 65534 home ;;
	path) mv "$d/count.lua" open/ && chmod 777 open ;;
	esac
	if [ "$1" = list ]; then
		HOME=$PWD/home "$LP" list scripts
	else
		HOME=$PWD/home LUAPROF_PATH=$PWD/open "$LP" run count -- "$MARK" 50
	fi
	rc=$?
	[ ! -e evil ] || { echo "luaprof ran the planted count.lua" >&2; return 99; }
	return $rc
}

# bytecode HOW: count.lua precompiled (string.dump), then run as the
# script (run), or required by one (require).
bytecode() {
	printf 'local f = io.open("count.luac", "wb") f:write(string.dump(assert(loadfile("%s/count.lua")))) f:close()\n' \
		"$S" > dump.lua
	"$LP" run ./dump.lua -- true > /dev/null 2>&1 && [ -s count.luac ] ||
		{ echo "SKIP: cannot precompile count.lua" >&2; return 77; }
	if [ "$1" = run ]; then
		"$LP" run ./count.luac -- "$MARK" 50
	else
		printf 'package.path = "%s/?.luac;" .. package.path\nrequire "count"\n' "$PWD" > req.lua
		"$LP" run ./req.lua -- "$MARK" 50
	fi
}

# signal_replay: SIGINT to a replay that a slow script makes last seconds:
# it stops reading, on_end runs over what was read, exit 130.
signal_replay() {
	"$LP" record -F 4000 -o rec.data -- "$SPIN" 500 2>/dev/null || return 99
	local all rc
	all=$("$LP" run "$S/count.lua" -i rec.data | sed -n 's/^on_end samples=\([0-9]*\).*/\1/p')
	"$LP" run "$S/slow.lua" -i rec.data > slow.out & local p=$!
	sleep 0.5
	kill -INT $p
	wait $p; rc=$?
	cat slow.out
	local seen
	seen=$(sed -n 's/^on_end samples=\([0-9]*\).*/\1/p' slow.out)
	[ -n "$seen" ] && [ "$seen" -lt "$all" ] ||
		{ echo "on_end saw ${seen:-no} samples of $all: the replay did not stop" >&2; return 99; }
	return $rc
}

# empty_stdin: -i - reading a pipe that ends at once.
empty_stdin() { : | "$LP" run "$S/count.lua" -i -; }

# stdin_closed: -i - with standard input closed.
stdin_closed() { "$LP" run "$S/count.lua" -i - <&-; }

# tracefs_row CMD...: CMD when tracefs is there (as root it is mounted
# where the kernel expects it, as need_tracefs does).
tracefs_row() {
	( need_tracefs ) >/dev/null 2>&1 || { echo "SKIP: tracefs is not mounted" >&2; return 77; }
	"$@"
}

need_root() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root ($1)" >&2; return 77; }
}

# mounted OPTS CMD...: CMD with a tmpfs of OPTS mounted on ./mnt, which is
# unmounted whatever happens.
mounted() {
	need_root "mounts a tmpfs" || return 77
	local opts=$1 rc; shift
	mkdir -p mnt && mount -t tmpfs -o "$opts" luaprof-test mnt || { echo "SKIP: cannot mount a tmpfs" >&2; return 77; }
	"$@"; rc=$?
	[ -f mnt/out.data ] && cp mnt/out.data out.data
	umount mnt || umount -l mnt
	return $rc
}

# disk_full: a recording onto a 192 KiB tmpfs that fills while recording
# (500 ms at -F 20000 -g: about 900 KiB of records, the disk's size five
# times over).
disk_full() { mounted size=192k "$LP" record -F 20000 -g -o mnt/out.data -- "$MARK" 500; }

# read_only: a recording into a read-only directory.
read_only() { mounted ro "$LP" run "$S/count.lua" -o mnt/out.data -- "$MARK" 50; }

# every_full: pprof --every=0.2 into mnt (mounted small): once it fills,
# nothing but whole period files may be left there.  (On a loaded machine
# the end may say the script fell behind, near the queue's bound: that
# line is no failure's.)
every_full() {
	"$LP" run pprof --every=0.2 --out=mnt/p.pb.gz -- "$MARK" 1500 2> full.err
	local rc=$? f
	grep -v 'the script fell behind the samples' full.err >&2
	for f in mnt/*; do
		[[ $f =~ ^mnt/p-[0-9T.]+Z\.pb\.gz$ ]] && gzip -t "$f" ||
			{ echo "left in the full directory: $f" >&2; return 99; }
	done
	return $rc
}

# mlock_big: an unprivileged user asks for rings larger than it may lock.
mlock_big() {
	need_root "switches to user 65534" || return 77
	command -v setpriv >/dev/null || { echo "SKIP: no setpriv" >&2; return 77; }
	cp "$LP" "$TMP/luaprof"
	chmod -R a+rX "$TMP"
	chmod a+rwx .
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/luaprof" run "$S/count.lua" \
		-m 8192 -- "$MARK" 50
}

# foreign ARCH: a recording made on another machine (the corpus has armv7
# and i686 ones): read whole, its samples counted as perf counts them.
foreign() {
	local f
	f=$(perfdata_corpus)/perf.data.$1-3.4
	[ -f "$f" ] || { echo "SKIP: no $1 recording in the corpus" >&2; return 77; }
	command -v perf >/dev/null || { echo "SKIP: no perf" >&2; return 77; }
	"$LP" run "$S/count.lua" -i "$f" > replay.out || return
	cat replay.out
	local want
	want=$(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	grep -q "^on_end samples=$want " replay.out || { echo "perf counts $want samples" >&2; return 99; }
}

# Files made here, then replayed.
truncated() {
	perf record -q -F 2000 -o full.data -- "$SPIN" 200 2>/dev/null || { echo "SKIP: perf record failed" >&2; return 77; }
	# cut in the middle of the data section (the header's data offset and
	# size, at bytes 40 and 48), not at a share of the file: with few
	# samples (a loaded machine) the feature sections after the data are
	# most of the file
	local off size
	read -r off size < <(od -An -t u8 -j 40 -N 16 full.data)
	[ "${size:-0}" -gt 64 ] || { echo "the recording has ${size:-no} bytes of data" >&2; return 99; }
	head -c $((off + size / 2)) full.data > cut.data
	rm -f full.data
	"$LP" run "$S/count.lua" -i cut.data
}
# A recording cut inside its feature sections (after its data): its samples
# are whole, the sections past the cut are said in one line.
cut_features() {
	perf record -q -F 2000 -o full.data -- "$SPIN" 200 2>/dev/null || { echo "SKIP: perf record failed" >&2; return 77; }
	head -c $(( $(stat -c %s full.data) - 200 )) full.data > cutf.data
	rm -f full.data
	"$LP" run "$S/count.lua" -i cutf.data
}
# killed WRITER: a recording by perf record or luaprof record killed with
# SIGKILL once it holds samples, its header still saying the data has no
# size.  Its records are read up to the last whole one: samples come out.
# (perf gets 16-page rings, which it writes out at each 32 KiB: with its
# default 128 pages it wrote nothing until 256 KiB, 3-4 s of this spin.)
killed() {
	local rec=(command perf record -q -m 16)
	[ "$1" = luaprof ] && rec=("$LP" record)
	"${rec[@]}" -F 4000 -o kill.data -- "$SPIN" 8000 >/dev/null 2>&1 & local p=$! i
	# killed once it has written samples (64 KiB), however slow the machine
	for i in $(seq 60); do
		[ "$(stat -c %s kill.data 2>/dev/null || echo 0)" -gt 65536 ] && break
		sleep 0.1
	done
	sleep 0.5
	kill -KILL $p; wait $p 2>/dev/null
	pkill -KILL -f "$SPIN 8000"
	[ "$(stat -c %s kill.data 2>/dev/null || echo 0)" -gt 65536 ] ||
		{ echo "SKIP: $1 record wrote under 64 KiB in 6 s before it was killed" >&2; return 77; }
	"$LP" run "$S/count.lua" -i kill.data > kill.out || return
	cat kill.out
	local n
	n=$(sed -n 's/^on_end samples=\([0-9]*\).*/\1/p' kill.out)
	[ "${n:-0}" -gt 0 ] || { echo "no samples were read from kill.data" >&2; return 1; }
}
random_bytes() { head -c 65536 /dev/urandom > rnd.data; "$LP" run "$S/count.lua" -i rnd.data; }
empty_file() { : > empty.data; "$LP" run "$S/count.lua" -i empty.data; }
no_pmu() { [ -d /sys/bus/event_source/devices/cpu ] && { echo "SKIP: this machine has a PMU" >&2; return 77; }; "$@"; }

# ---- the machinery ------------------------------------------------------
passed=0 failed=0 skipped=0 n=0

row_fail() { echo "FAIL row '$name': $*"; failed=$((failed + 1)); }

# check_stderr MESSAGE CHECKS: the first line after the notices is
# "luaprof: " and text MESSAGE matches (stderr may be empty when MESSAGE
# matches ''), and only follow-up lines come after it (with "usage" in
# CHECKS, the script's usage too).
check_stderr() {
	local body first text= follow=$FOLLOWUPS
	[[ ,$2, == *,usage,* ]] && follow="$follow|^usage: luaprof run |^script options:|^  |^luaprof's own options|^$"
	body=$(grep -vE "$NOTICES" err)
	if [ -z "$1" ]; then
		[ -z "$body" ] || { row_fail "stderr should be empty: $(head -3 <<< "$body")"; return 1; }
		return 0
	fi
	first=$(head -1 <<< "$body")
	if [ -n "$first" ]; then
		[[ $first == "luaprof: "* ]] || { row_fail "first line '$first' is not luaprof's"; return 1; }
		text=${first#luaprof: }
	fi
	[[ $text =~ $1 ]] && { [ -n "$text" ] || [[ "" =~ ^($1)$ ]]; } ||
		{ row_fail "first line '$first' does not match '$1'"; return 1; }
	local extra
	extra=$(tail -n +2 <<< "$body" | grep -vE "$follow")
	[ -z "$extra" ] || { row_fail "more than one line: $(head -3 <<< "$extra")"; return 1; }
}

# no_stray: nothing started from $TMP still runs (3 s grace).
no_stray() {
	local i
	for i in $(seq 30); do pgrep -f "^$TMP/" >/dev/null || return 0; sleep 0.1; done
	row_fail "left running: $(pgrep -af "^$TMP/" | head -3)"
	pkill -KILL -f "^$TMP/"
	return 1
}

check() {
	case $1 in
	-|usage) ;;
	short)
		local long
		long=$(awk 'length > 400 { print NR ": " length " characters"; exit }' err)
		[ -z "$long" ] || { row_fail "stderr line $long long"; return 1; } ;;
	norun) [ ! -e ran ] || { row_fail "the command ran"; return 1; } ;;
	ran) [ -e ran ] || { row_fail "the command did not run"; return 1; } ;;
	noend) ! grep -q '^on_end' out || { row_fail "on_end ran"; return 1; } ;;
	end) grep -q '^on_end' out || { row_fail "on_end did not run"; return 1; } ;;
	enderr)
		grep -q '^on_end .* error=.' out && ! grep -q '^on_end .* error=nil$' out ||
			{ row_fail "on_end did not run with info.error: $(grep '^on_end' out | head -1)"; return 1; } ;;
	nofile) [ ! -e out.data ] && [ ! -e out.data.old ] || { row_fail "out.data was left"; return 1; } ;;
	perfok)
		[ -s out.data ] || { row_fail "no out.data"; return 1; }
		perf report -i out.data --stats > perf.out 2> perf.err || { row_fail "perf cannot read out.data: $(head -2 perf.err)"; return 1; }
		! grep -qiE 'warning|error|failed' perf.err || { row_fail "perf complains: $(head -2 perf.err)"; return 1; }
		grep -qE 'SAMPLE events: +[1-9]' perf.out || { row_fail "no samples in out.data"; return 1; } ;;
	*) row_fail "unknown check $1"; return 1 ;;
	esac
}

row() {
	name=$1
	local want=$2 msg=$3 checks=$4 rc c
	shift 5
	n=$((n + 1))
	local dir=$TMP/rows/$n
	mkdir -p "$dir"
	pushd "$dir" >/dev/null || exit 1
	"$@" > out 2> err; rc=$?
	if [ $rc = 77 ] && grep -q '^SKIP: ' err; then
		echo "skip row '$name': $(sed -n 's/^SKIP: //p' err | head -1)"
		skipped=$((skipped + 1))
		popd >/dev/null
		return
	fi
	local before=$failed
	[[ $rc =~ ^($want)$ ]] || row_fail "exit status $rc, expected $want; stderr: $(head -3 err)"
	[ $failed != "$before" ] || check_stderr "$msg" "$checks"
	for c in ${checks//,/ }; do
		[ $failed != "$before" ] || check "$c"
	done
	no_stray
	[ $failed != "$before" ] || { passed=$((passed + 1)); echo "ok   row '$name'"; }
	popd >/dev/null
}

# table_done: the summary line and the test's status.
table_done() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ $failed = 0 ]
}

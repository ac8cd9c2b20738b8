# luaprof top (scripts/live.lua), the live view, driven in a real terminal:
# tmux runs it in a pane, send-keys types, capture-pane reads the screen.
# - a workload with one hot function (spin: spin_iters) is the top row by
#   the second refresh (the title says the time of its refresh);
# - c shows the children (inclusive) columns of a -g run, v cycles the
#   view to commands, where the workload's command is the row;
# - q ends it with exit 0, and the terminal is as it was found: the same
#   stty -g before and after, the alternate screen left, the cursor shown;
# - so do Ctrl-C, Ctrl-Z (taken again at fg), a script's error and a
#   crash;
# - without -g, c says that children need call stacks;
# - with stdout not a terminal: one table per interval, each of its own
#   samples (its rows add up to its title's count), and all the tables
#   add up to the run's samples, as perf script counts them in the run's
#   recording (-o); -p and the default (-a) print tables too.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v tmux >/dev/null || skip "tmux is not installed (tests/install-deps.sh test installs it)"
cd "$TMP"

SOCK=$TMP/tmux.sock
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
tm -f /dev/null new-session -d -s t -x 120 -y 30 "env -i PATH=$PATH TERM=xterm HOME=$HOME bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
tm set-option -t t remain-on-exit on >/dev/null
# new_pane: each case in a session of its own, whatever the one before
# left in its pane (the server stays when it has none between them)
tm set-option -s exit-empty off >/dev/null
new_pane() {
	tm kill-session -t t 2>/dev/null
	tm new-session -d -s t -x 120 -y 30 "env -i PATH=$PATH TERM=xterm HOME=$HOME bash --norc --noprofile" ||
		fail "tmux cannot start a session"
	tm set-option -t t remain-on-exit on >/dev/null
}

screen() { tm capture-pane -p -t t; }
# until_screen PATTERN: until the pane shows a line matching PATTERN (a
# guard of 30 s against a hung run, not a timing assertion).
until_screen() {
	local i
	for i in $(seq 300); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	screen; fail "the screen never showed '$1'"
}
flag() { tm display-message -p -t t "#{$1}"; }

# The shell in the pane notes the terminal's modes, runs luaprof top (or
# luaprof ARGS: run_luaprof_in_pane), and notes them again with the exit
# status.
run_luaprof_in_pane() {
	rm -f "$TMP/stty.after"
	tm send-keys -t t "clear; stty -g > $TMP/stty.before; $LUAPROF $* 2> $TMP/top.err; echo EXIT=\$? > $TMP/exit; stty -g > $TMP/stty.after" Enter
}
run_in_pane() { run_luaprof_in_pane top "$@"; }
# given_back WHAT STATUS: the run in the pane ended with STATUS and left
# the terminal as it found it.
given_back() {
	local i
	for i in $(seq 300); do [ -s "$TMP/stty.after" ] && break; sleep 0.1; done
	[ -s "$TMP/stty.after" ] || { screen; fail "$1: luaprof did not end"; }
	grep -qx "EXIT=$2" "$TMP/exit" || { screen; cat "$TMP/top.err"; fail "$1: $(cat "$TMP/exit"), expected EXIT=$2"; }
	cmp -s "$TMP/stty.before" "$TMP/stty.after" ||
		fail "$1: the terminal's modes changed: $(cat "$TMP/stty.before") before, $(cat "$TMP/stty.after") after"
	[ "$(flag alternate_on)" = 0 ] || fail "$1: the alternate screen was not left"
	[ "$(flag cursor_flag)" = 1 ] || fail "$1: the cursor was left hidden"
}

# --- a -g run of spin: the hot function, children, commands, q ---
with_g() {
	new_pane
	run_in_pane -g -I 1000 -- "$PROGS/spin" 120000
	until_screen '^cpu-clock'
	[ "$(flag alternate_on)" = 1 ] || fail "luaprof top did not take the alternate screen"
	# Every refresh's screen until the second: spin_iters is the top row by then.
	seen=
	for i in $(seq 300); do
		s=$(screen)
		t=$(echo "$s" | sed -n '1s/.* \([0-9]*\.[0-9]\) s$/\1/p')
		top=$(echo "$s" | awk '/^ *Overhead/ {getline; print; exit}')
		if [ -n "$t" ] && awk -v t="$t" 'BEGIN {exit !(t >= 1.5)}'; then
			echo "$top" | grep -q '\[\.\] spin_iters$' || { echo "$s"; fail "spin_iters is not the top row at the refresh of $t s"; }
			seen=1
			break
		fi
		sleep 0.1
	done
	[ -n "$seen" ] || { screen; fail "no second refresh came"; }
	echo "$s" | grep -qE '^cpu-clock, 4000 Hz: [0-9]+ samples/s, [0-9]+ lost \| functions, decaying \| [0-9.]+ s$' ||
		{ echo "$s"; fail "the title line is not event, rate, samples/s, lost"; }
	echo "$s" | grep -qE '^ +[0-9.]+% +[0-9]+ +spin +\[\.\] spin_iters$' ||
		{ echo "$s"; fail "no spin_iters row with its object"; }

	tm send-keys -t t c
	until_screen '^ *Children +Self +Samples +Shared Object +Symbol'
	until_screen '^ +[0-9.]+% +[0-9.]+% +[0-9]+ +spin +\[\.\] spin_iters$'
	tm send-keys -t t v
	until_screen '^ *Children +Self +Samples +Shared Object *$'
	tm send-keys -t t v
	until_screen '^ *Children +Self +Samples +Command *$'
	until_screen '^ +[0-9.]+% +[0-9.]+% +[0-9]+ +spin *$'
	until_screen '\| commands, children, decaying \|'

	tm send-keys -t t q
	given_back q 0
	! screen | grep -q 'spin_iters' || { screen; fail "the live view was drawn on the main screen"; }
	wait_gone "$PROGS/spin 120000" || fail "the workload was left running"
}

# --- without -g, c answers that children need stacks; q still exits 0 ---
without_g() {
	new_pane
	run_in_pane -I 1000 -- "$PROGS/spin" 120000
	until_screen '^ *Overhead +Samples'
	tm send-keys -t t c
	until_screen '^children need call stacks: run with -g'
	tm send-keys -t t q
	given_back "q without -g" 0
}

# --- Ctrl-C ends the run as any SIGINT (the command's 130) ---
ctrl_c() {
	new_pane
	run_in_pane -I 1000 -- "$PROGS/spin" 120000
	until_screen '^ *Overhead +Samples'
	tm send-keys -t t C-c
	given_back Ctrl-C 130
}

# --- Ctrl-Z gives the terminal back while stopped, fg takes it again ---
# (the shell's list goes on when the job stops: $? is then 128+SIGTSTP)
ctrl_z() {
	new_pane
	run_in_pane -I 1000 -- "$PROGS/spin" 120000
	until_screen '^ *Overhead +Samples'
	tm send-keys -t t C-z
	given_back Ctrl-Z 148
	tm send-keys -t t fg Enter
	until_screen '^ *Overhead +Samples'
	[ "$(flag alternate_on)" = 1 ] || fail "fg: the alternate screen was not taken again"
	tm send-keys -t t q
	for i in $(seq 300); do [ "$(flag alternate_on)" = 0 ] && break; sleep 0.1; done
	[ "$(flag alternate_on)" = 0 ] || fail "q after fg: the alternate screen was not left"
	tm send-keys -t t "stty -g > $TMP/stty.fg" Enter
	for i in $(seq 300); do [ -s "$TMP/stty.fg" ] && break; sleep 0.1; done
	cmp -s "$TMP/stty.before" "$TMP/stty.fg" || fail "q after fg: the terminal's modes changed"
}

# --- a script's error: the terminal is given back before its line ---
script_error() {
	new_pane
	cat > broken.lua <<'EOT'
luaprof.setup{ interval = 200 }
function on_start() luaprof.term.start() end
function on_key() end
function on_interval() error("broken on purpose") end
EOT
	run_luaprof_in_pane run ./broken.lua -- "$PROGS/spin" 120000
	given_back "a script error" 255
	expect_grep 'broken\.lua:4: broken on purpose' "$TMP/top.err"
}

# --- a crash (SIGSEGV): given back, then the signal's own action ---
crash() {
	new_pane
	cat > crash.lua <<'EOT'
luaprof.setup{ interval = 200 }
function on_start() luaprof.term.start() end
function on_key() end
function on_interval() os.execute("kill -SEGV " .. io.open("/proc/self/stat"):read("n")) end
EOT
	# (a sanitized build's handler, which luaprof's hands the signal on to,
	# reports it and exits 1)
	run_luaprof_in_pane run ./crash.lua -- "$PROGS/spin" 120000
	given_back "a crash" "$([ "${SANITIZED:-0}" = 1 ] && echo 1 || echo 139)"
}

# --- not a terminal: one table per interval ---
tables() {
	expect_status 0 "$LUAPROF" top -I 300 --limit=100000 -o rec.data -- "$PROGS/spin" 1500
	awk '/^# / {n++} END {exit !(n >= 2)}' "$TMP/out" || { cat "$TMP/out"; fail "fewer than two tables"; }
	# each table: its rows' Samples add up to its title's count; spin_iters
	# tops every table of more than a handful of samples
	awk '
		/^# / { if (t) check(); t = $0; want = $4; sum = 0; first = ""; next }
		/^Overhead/ { next }
		NF >= 5 { sum += $2; if (first == "") first = $NF; next }
		function check() {
			if (sum != want) { print "table \"" t "\": rows add up to " sum; bad = 1 }
			if (want > 20 && first != "spin_iters") { print "table \"" t "\": top row " first; bad = 1 }
		}
		END { if (t) check(); exit bad }' "$TMP/out" || fail "a table is not its interval's samples"
	grep -qE "^# [0-9.]+ s: [0-9]+ samples of event 'cpu-clock', 4000 Hz, [0-9]+ samples/s, [0-9]+ lost$" "$TMP/out" ||
		{ cat "$TMP/out"; fail "no table title with event, rate, samples/s and lost"; }
	ours=$(awk '/^# / {n += $4} END {print n}' "$TMP/out")
	theirs=$(perf script -i rec.data -F ip 2>/dev/null | wc -l)
	[ "$ours" = "$theirs" ] || fail "the tables hold $ours samples, perf script counts $theirs in the recording"
}

# replaying the recording: the rate is the recording's, as perf evlist
# reads it, and the tables hold the same samples
replay() {
	[ -s rec.data ] || fail "no rec.data: the tables case did not record it"
	theirs=$(perf script -i rec.data -F ip 2>/dev/null | wc -l)
	hz=$(perf evlist -i rec.data -v 2>/dev/null | sed -n 's/.*sample_freq }: \([0-9]*\),.* freq: 1,.*/\1/p' | head -1)
	[ -n "$hz" ] || fail "perf evlist shows no sample_freq for rec.data"
	expect_status 0 "$LUAPROF" top -I 300 --limit=100000 -i rec.data
	expect_grep "^# [0-9.]+ s: [0-9]+ samples of event 'cpu-clock', $hz Hz, " "$TMP/out"
	[ "$(awk '/^# / {n += $4} END {print n}' "$TMP/out")" = "$theirs" ] || fail "the replay's tables do not hold the recording's samples"
}

# the command line: luaprof top is a command, its help is the script's
top_help() {
	expect_status 0 "$LUAPROF" top --help
	expect_grep '^usage: luaprof run live ' "$TMP/out"
}
bogus() {
	expect_status 255 "$LUAPROF" bogus
	expect_grep "^luaprof: unknown command 'bogus': the commands are .*'luaprof top \.\.\.'" "$TMP/err"
}
nothing() {
	expect_status 255 "$LUAPROF" run live
	expect_grep '^luaprof: nothing to profile: give a command after --, -p PID or -a$' "$TMP/err"
}

# -p and the whole system (the default) print tables too
attached() {
	"$PROGS/spin" 4000 &
	spin=$!
	trap 'kill $spin 2>/dev/null' EXIT
	expect_status 0 "$LUAPROF" top -I 300 -d 1 -p "$spin"
	expect_grep '^ +[0-9.]+% +[0-9]+ +spin +\[\.\] spin_iters$' "$TMP/out"
}
system_wide() {
	"$PROGS/spin" 4000 &
	spin=$!
	trap 'kill $spin 2>/dev/null' EXIT
	expect_status 0 "$LUAPROF" top -I 300 -d 1 --view=comm
	expect_grep '^ +[0-9.]+% +[0-9]+ +spin *$' "$TMP/out"
}

scenario "a -g run: top row, c, v, q" with_g
scenario "without -g: c needs stacks" without_g
scenario "Ctrl-C" ctrl_c
scenario "Ctrl-Z, fg" ctrl_z
scenario "a script's error" script_error
scenario "a crash" crash
scenario "not a terminal: one table per interval" tables
scenario "replaying: the recording's rate" replay
scenario "top --help" top_help
scenario "an unknown command" bogus
scenario "nothing to profile" nothing
scenario "-p" attached
scenario "the whole system" system_wide
scenarios_done

# Source lines and inlined frames: a function forced inline (mix, in an
# -O2 -g build) shows, in a --call-graph dwarf run, as the leaf frame
# marked inlined, its caller outer() next (all samples in outer but 5%: a
# few land in outer's own instructions); without a stack copy (no -g, or
# frame pointers) s.stack has no inlined frame, as perf adds them to the
# stacks it unwinds only; s.file and s.line point into mix()'s body either way.
# For every frame of the program in a --call-graph dwarf recording, the
# function and file:line chain equals what addr2line -f -i prints for the
# same address.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
cp "$ROOT/tests/progs/inlined.c" "$ROOT/tests/progs/chain.c" .
cc -O2 -g -no-pie -o inlined inlined.c && cc -O2 -g -no-pie -o chain chain.c || fail "cannot build the workloads"
body=$(awk '/always_inline/ {s = NR} s && /^}/ {print s + 1, NR - 1; exit}' inlined.c)
# inlined_run WANT ARGS...: the outer() samples of a run (WANT: all, or
# none, show mix() inlined); s.file:s.line in mix()'s body in all but 5%
inlined_run() {
	local want=$1
	shift
	expect_status 0 "$LUAPROF" run "$CHECKS/inlined.lua" -A ${body% *} -A ${body#* } -F 999 "$@" -- ./inlined 300
	read -r _ n _ inl _ src < "$TMP/out"
	[ "${n:-0}" -ge 100 ] || fail "$*: only ${n:-0} samples in outer()"
	if [ "$want" = all ]; then
		[ $((inl * 100)) -ge $((n * 95)) ] || fail "$*: $inl of $n samples in outer() show mix() inlined then outer()"
	else
		[ "$inl" = 0 ] || fail "$*: $inl of $n samples in outer() show an inlined mix() (perf shows none)"
	fi
	[ $((src * 100)) -ge $((n * 95)) ] || fail "$*: $src of $n samples in outer() have s.file:s.line in mix()'s body (lines $body)"
	echo "outer() ($*): $n samples, $inl with mix() inlined, $src with s.file:s.line in its body"
}
# check_addr2line BIN DATA: every address's blocks against addr2line's
check_addr2line() {
	"$LUAPROF" run "$CHECKS/srclines.lua" -A "$TMP/$1" -i "$2" > ours 2>err || { cat err; fail "luaprof -i $2 failed"; }
	local addrs
	addrs=$(awk 'prev == "--" || NR == 1 {print} {prev = $0}' ours | grep -v '^--$')
	[ "$(echo "$addrs" | wc -w)" -ge 3 ] || fail "$1: only $(echo "$addrs" | wc -w) distinct addresses"
	for a in $addrs; do
		echo "$a"
		addr2line -f -i -e "$1" "0x$a" | sed 's/ (discriminator [0-9]*)$//'
		echo "--"
	done > theirs
	diff theirs ours > diff.txt || { head -20 diff.txt; fail "$1: source frames differ from addr2line -f -i"; }
	echo "$1: $(echo "$addrs" | wc -w) addresses as addr2line -f -i prints them"
}

# a recording of each program, every frame as addr2line -f -i names it
addr2line_inlined() {
	command -v addr2line >/dev/null || skip "addr2line (binutils) is not installed: nothing to compare with"
	"$LUAPROF" record --call-graph dwarf -F 999 -o inl.data -- ./inlined 200 >/dev/null 2>&1 || fail "luaprof record failed"
	check_addr2line inlined inl.data
}

addr2line_chain() {
	command -v addr2line >/dev/null || skip "addr2line (binutils) is not installed: nothing to compare with"
	"$LUAPROF" record --call-graph dwarf -F 999 -o chain.data -- ./chain qsort 6 >/dev/null 2>&1 || fail "luaprof record failed"
	check_addr2line chain chain.data
}

scenario "--call-graph dwarf: mix() inlined" inlined_run all --call-graph dwarf
scenario "no stack copy: no inlined frame" inlined_run none
scenario "-g: no inlined frame" inlined_run none -g
scenario "addr2line, inlined" addr2line_inlined
scenario "addr2line, chain" addr2line_chain
scenarios_done

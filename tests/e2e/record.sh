# luaprof record writes perf.data that perf reads without a warning and
# agrees with luaprof on, function by function; perf.data is the default
# name and an existing file is kept as perf.data.old; a live run -o and a
# later replay of its file print the same table.  The build-id tables list
# exactly the objects samples landed in (callchains aside), as perf
# record's: a library loaded at run time and busy is among them.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to read the recordings with"
cd "$TMP"
# perf_agrees FILE: perf script reads FILE without a warning, perf report
# and luaprof agree on it function by function, and its build-id table
# lists exactly the objects samples landed in.
perf_agrees() {
	local f=$1
	[ -s "$f" ] || fail "no $f: the case that records it failed"
	perf script -i "$f" > /dev/null 2> "$TMP/perf.err" || fail "perf script cannot read $f: $(cat "$TMP/perf.err")"
	[ ! -s "$TMP/perf.err" ] || fail "perf script warns on $f: $(head -3 "$TMP/perf.err")"
	perf_symtable -i "$f" > theirs
	"$LUAPROF" run "$CHECKS/symcount.lua" -i "$f" 2>/dev/null | grep -v ' \[?\] ' | sum_plt | sort > ours
	diff theirs ours > diff.txt || { head diff.txt; fail "perf report and luaprof disagree on $f"; }
	[ -s ours ] || fail "no named samples in $f"
	build_ids_are_hits "$f" exact
}

# perf.data by default; an existing one kept as perf.data.old.
default_name() {
	expect_status 0 "$LUAPROF" record -g -F 2000 -- "$PROGS/syscalls" 1500
	[ -s perf.data ] || fail "luaprof record wrote no perf.data"
	expect_status 0 "$LUAPROF" record -F 2000 -- "$PROGS/leafs" 80
	[ -s perf.data.old ] || fail "the earlier perf.data was not kept as perf.data.old"
}

# when FILE.old cannot be made, nothing is run and FILE is left as it was
old_unmade() {
	mkdir -p keep/k.data.old/full && echo earlier > keep/k.data
	expect_status 255 "$LUAPROF" record -o keep/k.data -- "$PROGS/leafs" 10
	expect_grep '^luaprof: cannot rename keep/k.data to keep/k.data.old, as a new recording keeps the old one: keep/k.data.old is a directory' "$TMP/err"
	[ "$(cat keep/k.data)" = earlier ] || fail "keep/k.data was changed though it could not be kept"
}

# A library loaded at run time and busy: among the build-ids.
dlopened() {
	expect_status 0 "$LUAPROF" record -g -F 2000 -o dl.data -- "$PROGS/dlopen" "$PROGS/libdlwork.so" 200
	perf_agrees dl.data
	grep -qx "$(build_id_of "$PROGS/libdlwork.so") $PROGS/libdlwork.so" "$TMP/bids" ||
		{ cat "$TMP/bids"; fail "dl.data has no build-id for libdlwork.so, where its samples are"; }
}

# A live run -o and the replay of its file print the same table.
live_and_replay() {
	expect_status 0 "$LUAPROF" run "$ROOT/scripts/top.lua" -o live.data -- "$PROGS/leafs" 80
	cp "$TMP/out" live.txt
	expect_status 0 "$LUAPROF" run "$ROOT/scripts/top.lua" -i live.data
	diff live.txt "$TMP/out" || fail "the live table and the replay of its recording differ"
}

scenario "perf.data by default, the old one kept" default_name
scenario "FILE.old cannot be made" old_unmade
scenario "perf reads perf.data (-g)" perf_agrees perf.data
scenario "perf reads perf.data.old" perf_agrees perf.data.old
scenario "a library loaded at run time" dlopened
scenario "a live run -o and its replay" live_and_replay
scenarios_done

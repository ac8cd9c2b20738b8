# Separate debug information: a program stripped of its symbols and DWARF
# is named, functions and lines, from its debuglink file (beside it, then
# in .debug/), from a build-id tree under --symfs (replaying), and by
# functions from MiniDebugInfo (.gnu_debugdata) alone.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
for t in objcopy strip xz nm; do command -v $t >/dev/null || skip "$t is not installed: cannot make the test's objects"; done
cd "$TMP"
cc -O2 -g -o full "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
# named LABEL MIN% [LINES]: of the user samples in $TMP/out, at least MIN%
# are chain_leaf's; with LINES, with chain.c lines too
named() {
	local total leaf
	total=$(awk '{n += $1} END {print n + 0}' "$TMP/out")
	leaf=$(awk -v l="${3:-}" '$2 == "chain_leaf" && (l == "" || $3 ~ /^chain\.c:[0-9]+$/) {n += $1} END {print n + 0}' "$TMP/out")
	[ "$total" -ge 100 ] || fail "$1: only $total user samples"
	[ $((leaf * 100)) -ge $((total * $2)) ] || { sort -rn "$TMP/out" | head -5; fail "$1: $leaf of $total samples named chain_leaf${3:+ with chain.c lines}"; }
	echo "$1: $leaf of $total samples named chain_leaf${3:+ at chain.c lines}"
}

# linked DIR: DIR/chain, stripped, with a debuglink to DIR/chain.debug
linked() {
	mkdir -p "$1/.debug"
	objcopy --only-keep-debug full "$1/chain.debug"
	strip --strip-all -o "$1/chain" full
	objcopy --add-gnu-debuglink="$1/chain.debug" "$1/chain"
}

# 1. debuglink, beside the object
beside() {
	linked dl
	"$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- dl/chain 300 > "$TMP/out" 2>/dev/null || fail "run failed"
	named "debuglink" 90 lines
}

# ... and in .debug/ beside it
in_debug_dir() {
	linked dl2
	mv dl2/chain.debug dl2/.debug/chain.debug
	"$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- dl2/chain 300 > "$TMP/out" 2>/dev/null || fail "run failed"
	named "debuglink in .debug/" 90 lines
}

# a debug file whose CRC does not match is not used
wrong_crc() {
	linked dl3
	rm dl3/chain.debug
	cc -O1 -g -o other "$ROOT/tests/progs/chain.c" && objcopy --only-keep-debug other dl3/.debug/chain.debug
	"$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- dl3/chain 300 > "$TMP/out" 2>/dev/null || fail "run failed"
	! grep -q ' chain_leaf ' "$TMP/out" || fail "a debuglink file with the wrong CRC was used"
}

# 2. build-id tree under --symfs, replaying a recording of the stripped program
symfs() {
	strip --strip-all -o chain full
	bid=$(build_id_of chain)
	[ -n "$bid" ] || skip "cc writes no build-id here"
	"$LUAPROF" record -F 999 -o rec.data -- ./chain 300 >/dev/null 2>&1 || fail "luaprof record failed"
	mkdir -p "symfs$TMP" "symfs/usr/lib/debug/.build-id/${bid:0:2}"
	cp chain "symfs$TMP/chain"
	objcopy --only-keep-debug full "symfs/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	"$LUAPROF" run "$CHECKS/leafsrc.lua" -i rec.data > "$TMP/out" 2>/dev/null || fail "replay failed"
	! grep -q ' chain_leaf ' "$TMP/out" || fail "the stripped program was named without --symfs"
	"$LUAPROF" run "$CHECKS/leafsrc.lua" --symfs symfs -i rec.data > "$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "replay --symfs failed"; }
	named "build-id tree under --symfs" 90 lines
	! grep -q 'is not a directory' "$TMP/err" || fail "--symfs of a directory was said not to be one"
}

# a --symfs that is no directory is refused, in one line (tests/e2e/bad_values.sh)
symfs_missing() {
	"$LUAPROF" record -F 999 -o rec2.data -- ./full 100 >/dev/null 2>&1 || fail "luaprof record failed"
	expect_status 255 "$LUAPROF" run "$CHECKS/leafsrc.lua" --symfs no-such-symfs -i rec2.data
	[ "$(cat "$TMP/err")" = "luaprof: --symfs no-such-symfs: No such file or directory (--symfs DIR looks for /usr/lib/x.so as DIR/usr/lib/x.so)" ] ||
		{ cat "$TMP/err"; fail "--symfs of no directory is not refused in one line"; }
}

# 3. MiniDebugInfo only, made as Fedora makes it
mini_debuginfo() {
	nm -D full --format=posix --defined-only | awk '{print $1}' | sort > dynsyms
	nm full --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ {print $1}' | sort > funcsyms
	comm -13 dynsyms funcsyms > keep
	objcopy --only-keep-debug full mini
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep mini
	xz -f mini
	strip --strip-all -R .comment -o minichain full
	objcopy --add-section .gnu_debugdata=mini.xz minichain
	"$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- ./minichain 300 > "$TMP/out" 2>/dev/null || fail "run failed"
	named "MiniDebugInfo" 90
}

scenario "debuglink beside the object" beside
scenario "debuglink in .debug/" in_debug_dir
scenario "debuglink with the wrong CRC" wrong_crc
scenario "build-id tree under --symfs" symfs
scenario "--symfs of no directory" symfs_missing
scenario "MiniDebugInfo" mini_debuginfo
scenarios_done

# --call-graph dwarf on a program that runs its text from a second mapping
# of its own file (tests/progs/remap.c, built without PIE, as Debian's node
# is; node 20 runs its text from such a copy): luaprof replays perf's
# recording without reading freed memory, and each sample's stack is the
# one perf script shows (the copy's samples end at the copy, as perf's do:
# an ET_EXEC file can only be at its own addresses).  Before, the second
# report of the file made libdwfl free the module reported first, and the
# Ebl the unwinder's state had taken from it: a later walk read it freed
# (it aborted in libdwfl's state_alloc on node's recordings).  Under the
# sanitizers (SANITIZED=1) freed memory is filled, so that read fails
# every time.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
[ "${SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:max_free_fill_size=4096:free_fill_byte=170"
cd "$TMP"
cc -O1 -g -no-pie -fomit-frame-pointer -o remap "$ROOT/tests/progs/remap.c" || fail "cannot build remap.c without PIE"
perf record -q --call-graph dwarf -F 999 -o remap.data -- ./remap 150 >/dev/null 2>perr ||
	fail "perf record --call-graph dwarf failed: $(head -2 perr)"
expect_status 0 "$LUAPROF" run folded -i remap.data
grep -q '^remap;.*;main;remapped_work ' "$TMP/out" || fail "no stack through main to the original remapped_work"
grep -q '^remap;remapped_work ' "$TMP/out" || fail "no sample in the copy of remapped_work"
perf script -i remap.data --no-inline -F ip,sym 2>/dev/null | awk '
	NF == 0 { if (n) print s; s = ""; n = 0; next }
	{ s = s (n ? ";" : "") $2; n++ } END { if (n) print s }' > theirs
expect_status 0 "$LUAPROF" run "$CHECKS/stacks.lua" -i remap.data
cp "$TMP/out" ours
[ "$(wc -l < theirs)" -ge 100 ] || fail "only $(wc -l < theirs) samples"
diff theirs ours > stacks.diff || { head -6 stacks.diff; fail "stacks differ from perf script's"; }
echo "$(wc -l < ours) stacks as perf script's"

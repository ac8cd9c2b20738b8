# The kallsyms copy a recording leaves in ~/.debug (perf's build-id
# cache) holds the kernel's real addresses: it is written 0600, in
# directories made 0700 for it (perf: 0755 both).  A copy cut short is
# not trusted: a replay refuses it in one line and, the recorded kernel
# running since that boot, names every kernel frame from /proc/kallsyms
# as the whole copy did; so for a copy cut in the middle of a line, one
# cut between lines before _etext, and the first of these again, now read
# through the kallsyms table cache (~/.cache/luaprof), which keeps the
# verdict.  Before, such a copy named the few frames its first lines
# cover and left the others unnamed without a word.
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(awk 'NR==1{print $1}' /proc/kallsyms)" != 0000000000000000 ] ||
	skip "kallsyms hides addresses here: no kernel symbols to copy"
expect_status 0 "$LUAPROF" record -o "$TMP/k.data" -- "$PROGS/syscalls" 2000
copy=$(ls "$HOME"/.debug/\[kernel.kallsyms\]/*/kallsyms 2>/dev/null | head -1)
[ -n "$copy" ] || fail "luaprof record left no kallsyms copy in ~/.debug"

# the modes
[ "$(stat -c %a "$copy")" = 600 ] || fail "the kallsyms copy has mode $(stat -c %a "$copy"), not 600"
for d in "$(dirname "$copy")" "$HOME/.debug/[kernel.kallsyms]"; do
	[ "$(stat -c %a "$d")" = 700 ] || fail "$d has mode $(stat -c %a "$d"), not 700"
done
elf=$(find "$HOME/.debug" -name elf -type f | head -1)
[ -z "$elf" ] || [ "$(stat -c %a "$elf")" = 755 ] || fail "an object's copy is not 0755 as perf's: $elf"

replay() {
	expect_status 0 "$LUAPROF" run "$CHECKS/kernel_names.lua" -i "$TMP/k.data"
	cp "$TMP/out" "$TMP/$1.txt"
	cp "$TMP/err" "$TMP/$1.err"
}
replay whole
read -r _ kernel _ unnamed < "$TMP/whole.txt"
[ "$kernel" -gt 100 ] || { cat "$TMP/whole.txt"; fail "only $kernel kernel samples"; }
grep -q 'kallsyms' "$TMP/whole.err" && fail "the whole copy was refused: $(cat "$TMP/whole.err")"

cp "$copy" "$TMP/copy.whole"
# refused CASE WHY: the copy as cut is not used (one line saying WHY),
# and the frames are named as from the whole copy
refused() {
	replay "$1"
	[ "$(grep -c 'kallsyms' "$TMP/$1.err")" = 1 ] || { cat "$TMP/$1.err"; fail "$1: not one line about the copy"; }
	expect_grep "^luaprof: \[kernel\.kallsyms\]: .*/kallsyms is not used: $2; reading /proc/kallsyms \(the recorded kernel is running\)$" "$TMP/$1.err"
	cmp -s "$TMP/whole.txt" "$TMP/$1.txt" ||
		{ head -3 "$TMP/$1.txt"; fail "$1: the frames are not named as from the whole copy"; }
}
size=$(stat -c %s "$copy")
# a third of the file, in the middle of a line (moved one byte on when the
# cut falls just after a newline)
cut=$((size / 3))
[ "$(head -c "$cut" "$TMP/copy.whole" | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ] && cut=$((cut + 1))
head -c "$cut" "$TMP/copy.whole" > "$copy"
refused midline 'it ends in the middle of a line \(cut short\)'
refused midline_cached 'it ends in the middle of a line \(cut short\)'
# 2000 whole lines: the kernel's text cut short
head -n 2000 "$TMP/copy.whole" > "$copy"
refused lines "it has no _etext line \(cut short inside the kernel's symbols\)"
cp "$TMP/copy.whole" "$copy"
replay again
cmp -s "$TMP/whole.txt" "$TMP/again.txt" || fail "the whole copy put back names frames otherwise"
grep -q 'kallsyms' "$TMP/again.err" && fail "the whole copy put back was refused"
echo "kernel samples $kernel; copies cut at byte $cut and at line 2000 of $size bytes refused, the names kept"

# Samples taken inside execve after its COMM (issue 24 #5): the kernel
# stamps COMM exec when the new image takes over, yet samples still in
# execve after it carry the old image's user frame (__GI___execve in the
# old libc).  perf keeps the maps at COMM exec (the new image's MMAPs
# replace what they overlap); luaprof dropped them and printed
# [unknown].  A shell exec'ing /bin/true many times is recorded by perf
# with -g; script's text must be perf script's, byte for byte.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
cd "$TMP"
# after_exec FILE: samples of a thread after its COMM exec whose user frame
# is __GI___execve, in perf script --show-task-events' text
after_exec() {
	perf script -i "$1" --show-task-events 2>/dev/null | awk '
		/PERF_RECORD_COMM exec/ {split($2, a, "/"); done[$2] = 1; next}
		/cpu-clock/ {in_s = ($2 in done); next}
		in_s && /__GI___execve/ {n++; in_s = 0}
		END {print n + 0}'
}
n=0
for try in 1 2 3; do
	perf record -q -g -F 10000 -o ex.data -- sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i + 1)); done' \
		>/dev/null 2>&1 || fail "perf record failed"
	n=$(after_exec ex.data)
	[ "$n" -gt 0 ] && break
done
[ "$n" -gt 0 ] || skip "no sample fell in execve after its COMM in 3 recordings"
perf script -i ex.data > perf.txt 2>/dev/null || fail "perf script failed"
"$LUAPROF" run script -i ex.data > our.txt 2>&1 || fail "luaprof script failed"
cmp -s perf.txt our.txt || { diff perf.txt our.txt | head -20; fail "script differs from perf script"; }
echo "$(grep -c cpu-clock our.txt) samples as perf script's, $n in execve after their COMM"

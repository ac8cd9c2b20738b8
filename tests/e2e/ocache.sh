# A replay naming the frames of a program of 1,500 functions keeps the
# program's symbol table (PLT stubs included) in ~/.cache/luaprof/objects
# (the file 0600); the next replay reads it, and top, top --children and
# folded print byte for byte what they print with no cache at all; the
# program rebuilt at its path is read again (its new names shown), and a
# damaged cache file is passed over and written whole again.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
# many.c: 1,500 functions, each called through a table in a loop, each
# calling libc through the PLT; NAME is their prefix
program() {
	{
		echo '#include <stdlib.h>'
		echo '#include <string.h>'
		for i in $(seq 0 1499); do
			echo "__attribute__((noinline)) int $1_$i(const char *s) { return (int)strlen(s) + abs($i); }"
		done
		echo 'static int (*const fns[])(const char *) = {'
		for i in $(seq 0 1499); do echo "$1_$i,"; done
		echo '};'
		echo 'int main(int c, char **v) { long n = atol(v[1]), t = 0; (void)c;'
		echo '  for (long r = 0; r < n; r++) for (int i = 0; i < 1500; i++) t += fns[i]("abcdefgh");'
		echo '  return t == 42; }'
	} > many.c
	cc -O0 -fno-builtin -fno-omit-frame-pointer -o many many.c || fail "cannot build many.c"
}
program lp_first
perf record -q -e cpu-clock -F 4000 -g -o many.data -- ./many 3000 2>/dev/null ||
	fail "perf record of ./many failed"
cache=$HOME/.cache/luaprof/objects
reports() {      # reports NAME ENV...: top, top --children and folded into NAME.txt
	local name=$1; shift
	: > "$name.txt"
	for r in "top" "top --children" "folded"; do
		# shellcheck disable=SC2086
		expect_status 0 env "$@" "$LUAPROF" run $r -i many.data
		cat "$TMP/out" >> "$name.txt"
	done
}
reports none XDG_CACHE_HOME=/nonexistent/cache
[ ! -e "$cache" ] || fail "a replay with no usable cache directory wrote $cache"
grep -q 'lp_first_' none.txt || { head none.txt; fail "the program's functions are not named"; }
reports cold
files=$(ls "$cache" 2>/dev/null | wc -l)
[ "$files" -ge 1 ] || fail "no file in $cache after the first replay"
file=$(grep -l lp_first_ "$cache"/* | head -1)
[ -n "$file" ] || fail "no cache file holds the program's names"
[ "$(stat -c %a "$file")" = 600 ] || fail "the cache file has mode $(stat -c %a "$file")"
size=$(stat -c %s "$file")
reports warm
for r in cold warm; do
	cmp -s none.txt $r.txt || { diff none.txt $r.txt | head; fail "the $r replay's reports differ from the uncached one's"; }
done
# the file cut in half: read from the program again, the same reports,
# the cache file whole again
truncate -s $((size / 2)) "$file"
reports damaged
cmp -s none.txt damaged.txt || fail "a damaged cache file changed the reports"
[ "$(stat -c %s "$file")" = "$size" ] || fail "the damaged cache file was not written again"
# the program rebuilt (other names) at the same path: read again
program lp_second
perf record -q -e cpu-clock -F 4000 -g -o many.data -- ./many 3000 2>/dev/null ||
	fail "perf record of the rebuilt ./many failed"
reports rebuilt
grep -q lp_first_ rebuilt.txt && fail "the rebuilt program's frames carry the old names"
grep -q lp_second_ rebuilt.txt || fail "the rebuilt program's frames are not named"
reports rebuilt_none XDG_CACHE_HOME=/nonexistent/cache
cmp -s rebuilt_none.txt rebuilt.txt || fail "after the rebuild, the cached replay differs from the uncached"
echo "cache file $size bytes; $(grep -c . none.txt) report lines the same"

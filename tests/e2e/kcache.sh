# A replay naming kernel frames from the recording's kallsyms copy keeps
# the parsed table in ~/.cache/luaprof/kallsyms (directories 0700, the file
# 0600); the next replay reads it and names every kernel frame as the
# first did; a damaged cache file is passed over for the copy and written
# whole again; with no HOME (nowhere to keep it) the names are the same.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(awk 'NR==1{print $1}' /proc/kallsyms)" != 0000000000000000 ] ||
	skip "kallsyms hides addresses here: no kernel symbols to name or cache"
expect_status 0 "$LUAPROF" record -o "$TMP/k.data" -- "$PROGS/syscalls" 2000
copy=$(ls "$HOME"/.debug/\[kernel.kallsyms\]/*/kallsyms 2>/dev/null | head -1)
[ -n "$copy" ] || fail "luaprof record left no kallsyms copy in ~/.debug"
[ "$(stat -c %s "$copy")" -ge 1048576 ] || skip "this kernel's kallsyms has under 1 MiB: not cached"
cache=$HOME/.cache/luaprof/kallsyms
replay() {
	expect_status 0 "$LUAPROF" run "$CHECKS/kernel_names.lua" -i "$TMP/k.data"
	cp "$TMP/out" "$TMP/$1.txt"
}
replay cold
kernel=$(awk '$1 == "kernel" {print $2}' "$TMP/cold.txt")
[ "$kernel" -gt 100 ] || { cat "$TMP/cold.txt"; fail "only $kernel kernel samples"; }
# unnamed in the kernel's maps ("? ?" is in none: a BPF program another
# process loaded meanwhile, which the recording has no KSYMBOL of)
grep -q '^[0-9]* ? \[' "$TMP/cold.txt" && { cat "$TMP/cold.txt"; fail "unnamed kernel frames"; }
files=$(ls "$cache" 2>/dev/null | wc -l)
[ "$files" = 1 ] || { ls -la "$cache"; fail "$files files in $cache after the first replay, not 1"; }
file=$cache/$(ls "$cache")
[ "$(stat -c %a "$file")" = 600 ] || fail "the cache file has mode $(stat -c %a "$file")"
for d in "$HOME/.cache" "$HOME/.cache/luaprof" "$cache"; do
	[ "$(stat -c %a "$d")" = 700 ] || fail "$d has mode $(stat -c %a "$d")"
done
size=$(stat -c %s "$file")
replay warm
cmp -s "$TMP/cold.txt" "$TMP/warm.txt" || { diff "$TMP/cold.txt" "$TMP/warm.txt" | head; fail "the replay from the cache named kernel frames differently"; }
# cut in half: parsed again, the same names, the file whole again
truncate -s $((size / 2)) "$file"
replay damaged
cmp -s "$TMP/cold.txt" "$TMP/damaged.txt" || fail "a damaged cache changed the names"
[ "$(stat -c %s "$file")" = "$size" ] || fail "the damaged cache file was not written again"
# nowhere to keep it: the same names
expect_status 0 env -u HOME -u XDG_CACHE_HOME PERF_BUILDID_DIR="$HOME/.debug" \
	"$LUAPROF" run "$CHECKS/kernel_names.lua" -i "$TMP/k.data"
cmp -s "$TMP/cold.txt" "$TMP/out" || fail "without a cache directory the names differ"
echo "kernel samples $kernel, cache file $size bytes"

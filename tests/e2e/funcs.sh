# funccount and funclatency on calls (fc_one, fc_two, fc_three called
# 1000, 2000 and 3000 times; then nap, a 2 ms nanosleep, ten times), run
# under a name of its own (other tests run it too, and -a sees them):
# - funccount OBJECT:fc_* counts 1000/2000/3000 exactly, live and with -a
#   (counted in the kernel: nothing is lost), and from a recording of the
#   three uprobes' samples; with -I the intervals' counts add up to the
#   total; attached with -p to a run of ten 50 ms naps held at a gate
#   until luaprof has attached (lib.sh's gated), all 10 naps;
# - funclatency OBJECT:nap --unit=ms: exactly 10 calls, none under 2 ms (a
#   sleep never ends early) and at least 6 in the [2, 4) bucket (a wake-up
#   may be late by milliseconds on a loaded machine, so not all ten need
#   be); the same from a recording of the two probes; attached with -p to
#   ten 50 ms naps (gated), all 10 calls, each at least 32 ms (the [32, 64) bucket
#   or above);
# - a missing pattern, object or function: one line naming the script and
#   its --help (luaprof.usage_error), exit 255, the command not started.
. "$(dirname "$0")/lib.sh"
need_perf_events
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
[ "$(id -u)" = 0 ] || skip "uprobes need root here"
cd "$TMP"
C=calls$$
cp "$PROGS/calls" "$C"
P=$TMP/$C
counts() { awk '$1 ~ /^fc_/ {print $1, $2}' "$1" | sort | tr '\n' ' '; }
want="fc_one 1000 fc_three 3000 fc_two 2000 "
expect_status 0 "$LUAPROF" run funccount --pattern="./$C:fc_*" -- "./$C"
[ "$(counts "$TMP/out")" = "$want" ] || { cat "$TMP/out"; fail "funccount: not 1000/2000/3000"; }
grep -q '^nap ' "$TMP/out" && fail "funccount counted nap, which fc_* does not match"
expect_status 0 "$LUAPROF" run funccount -A "$P:fc_*" -a -- "./$C"
[ "$(counts "$TMP/out")" = "$want" ] || { cat "$TMP/out"; fail "funccount -a: not 1000/2000/3000"; }
expect_status 0 "$LUAPROF" record -e "uprobe:$P:fc_one,uprobe:$P:fc_two,uprobe:$P:fc_three" -o fc.data -- "./$C"
expect_status 0 "$LUAPROF" run funccount -A "$P:fc_*" -i fc.data
[ "$(counts "$TMP/out")" = "$want" ] || { cat "$TMP/out"; fail "funccount -i: not 1000/2000/3000"; }
expect_status 0 "$LUAPROF" run funccount -A "$P:nap" -I 100 -- "./$C" 1000 50
awk '/^[0-9.]+ s:$/ {i = 1} /^[0-9]+ functions of/ {i = 0; t = 1} $1 == "nap" {if (t) total = $2; else sum += $2}
	END {exit !(sum == 10 && total == 10)}' "$TMP/out" || { cat "$TMP/out"; fail "funccount -I: the intervals' naps do not add up to the 10"; }
gated "./$C" 0 50
attach_gated 0 "$LUAPROF" run funccount -A "$P:nap"
n=$(awk '$1 == "nap" {print $2}' "$TMP/out")
[ "${n:-0}" = 10 ] || { cat "$TMP/out"; fail "funccount -p: $n naps, expected 10"; }

# funclatency: the histogram's rows "[lo, hi) count |...|"
rows() { awk '/^\[/ {gsub(/[\[\),]/, " "); print $1, $3}' "$1"; }
check_naps() {          # check_naps FILE: 10 calls, none under 2 ms, >= 6 in [2, 4)
	grep -q 'count: 10$' "$1" || { cat "$1"; fail "$2: not 10 calls of nap"; }
	rows "$1" | awk '$1 < 2 && $2 > 0 {bad = 1} $1 == 2 {two = $2} END {exit bad || two < 6}' ||
		{ cat "$1"; fail "$2: a nap under 2 ms, or fewer than 6 in [2, 4) ms"; }
}
expect_status 0 "$LUAPROF" run funclatency --func="./$C:nap" --unit=ms -- "./$C" 10 2
check_naps "$TMP/out" funclatency
expect_status 0 "$LUAPROF" record -e "uprobe:$P:nap,uretprobe:$P:nap" -o lat.data -- "./$C" 10 2
expect_status 0 "$LUAPROF" run funclatency -A "$P:nap" --unit=ms -i lat.data
check_naps "$TMP/out" "funclatency -i"
expect_status 0 "$LUAPROF" run funclatency -A "$P:nap" --unit=ms --per=thread -a -- "./$C" 10 2
check_naps "$TMP/out" "funclatency -a --per=thread"
grep -q "^Function = nap $C " "$TMP/out" || fail "funclatency --per=thread: no histogram named for the thread"
gated "./$C" 0 50
attach_gated 0 "$LUAPROF" run funclatency -A "$P:nap" --unit=ms
n=$(sed -n 's/.*count: \([0-9]*\)$/\1/p' "$TMP/out")
[ "${n:-0}" = 10 ] || { cat "$TMP/out"; fail "funclatency -p: $n calls, expected 10"; }
rows "$TMP/out" | awk '$1 < 32 && $2 > 0 {bad = 1} END {exit bad}' || { cat "$TMP/out"; fail "funclatency -p: a 50 ms nap under 32 ms"; }
# what the scripts were given, refused before anything runs: one line
# naming the script and its --help, exit 255, the command not started
one_line() {
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "$2: not one line"; }
	expect_grep "^luaprof: $1: .*\(see luaprof run $1 --help\)$" "$TMP/err"
}
rm -f started
expect_status 255 "$LUAPROF" run funccount -- touch started
one_line funccount "funccount without a pattern"
expect_grep 'give the functions as --pattern=OBJECT:GLOB' "$TMP/err"
expect_status 255 "$LUAPROF" run funccount --pattern=./nosuch:x -- touch started
one_line funccount "funccount on a missing object"
expect_grep "no object './nosuch'" "$TMP/err"
expect_status 255 "$LUAPROF" run funccount --pattern="./$C:zz_*" -- touch started
one_line funccount "funccount matching nothing"
expect_grep "no function of .* matches 'zz_\*'" "$TMP/err"
expect_status 255 "$LUAPROF" run funclatency --func=libc:no_such_function -- touch started
one_line funclatency "funclatency of a missing function"
expect_grep "no function 'no_such_function' in .*libc" "$TMP/err"
[ -e started ] && fail "a refused script's command was started"
exit 0

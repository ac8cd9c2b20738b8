# statsnoop beside bpftrace's statsnoop.bt on toolwork stat (stat, lstat,
# statfs, statx and newfstatat of files found and missing, by their system
# call numbers).  luaprof's statsnoop follows newfstatat too, what glibc's
# stat() makes since 2.33, which the .bt misses: run with the .bt's calls
# (--calls=statfs,statx,newstat,newlstat), the same rows in the same order
# (pid, command, error, path), every path demanded; run as it is, at the
# same time, those rows and the newfstatat ones (toolwork's of
# DIR/exists among them).  luaprof keeps each path at the event
# (statsnoop.lua's path_of: s:str); toolwork makes its calls by their
# numbers (glibc makes none of stat, lstat, statfs), on paths in static
# buffers, and its last on a page not yet faulted in: no libc wrapper's
# probe copies them, so the thread that drains the rings reads them from
# the process microseconds after each call, and a process that exits at
# once can beat it on a loaded machine: toolwork stays a while after its
# last call (TOOLWORK_LINGER).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
mkdir work
bt_start "$(bt_tool statsnoop)"
TOOLWORK_LINGER=300 "$LUAPROF" run statsnoop -- "$PROGS/toolwork" stat "$TMP/work" > all.out 2> all.err &
all=$!
TOOLWORK_LINGER=300 expect_status 0 "$LUAPROF" run statsnoop --calls=statfs,statx,newstat,newlstat -- \
	"$PROGS/toolwork" stat "$TMP/work"
cp "$TMP/out" lp.out
wait $all || { cat all.out all.err; fail "luaprof run statsnoop (all calls) failed"; }
pid=$(awk '$2 == "toolwork" {print $1; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no row of toolwork"; }
n=$(awk -v p="$pid" '$1 == p' lp.out | wc -l)
bt_stop "^$pid +toolwork " "$n"
rows() { awk -v p="$1" -v OFS='\t' '$1 == p {path = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ ?/, "", path); print $2, $3, path}' "$2"; }
rows "$pid" lp.out > lp.rows
rows "$pid" "$BT_OUT" > bt.rows
for want in "0	$TMP/work/exists" "2	$TMP/work/missing" "0	$TMP/work"; do
	grep -qxF "toolwork	$want" lp.rows || { cat lp.out; fail "luaprof has no row '$want'"; }
done
# every path read (an empty one is one: ld.so's fstat by fd, AT_EMPTY_PATH)
! grep -q "could not be read" "$TMP/err" all.err || { cat "$TMP/err" all.err; fail "luaprof could not read some paths"; }
python3 "$ROOT/tests/e2e/btrows.py" --unread=NONE bt.rows lp.rows > cmp.txt 2>&1 ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "statsnoop's rows differ from statsnoop.bt's: $(tail -1 cmp.txt)"; }
# all the calls: more rows, the .bt's calls' among them in their order
apid=$(awk '$2 == "toolwork" {print $1; exit}' all.out)
rows "$apid" all.out > all.rows
[ "$(wc -l < all.rows)" -gt "$(wc -l < lp.rows)" ] || { cat all.out; fail "statsnoop has no more rows with newfstatat"; }
[ "$(grep -cxF "toolwork	0	$TMP/work/exists" all.rows)" -gt "$(grep -cxF "toolwork	0	$TMP/work/exists" lp.rows)" ] ||
	{ cat all.out; fail "statsnoop has no newfstatat of $TMP/work/exists"; }
echo "statsnoop: $(cat cmp.txt), as statsnoop.bt prints them; $(($(wc -l < all.rows) - $(wc -l < lp.rows))) more with newfstatat"
exit 0

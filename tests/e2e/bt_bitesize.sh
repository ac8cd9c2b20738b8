# bitesize beside bpftrace's bitesize.bt on toolwork bio (a 16 MiB file
# written and fsync'd, then O_DIRECT reads of it: 8 of 4 KiB, 4 of 16 KiB,
# 2 of 64 KiB, 1 of 256 KiB): the same histogram of request sizes for
# toolwork, bucket by bucket (bpftrace's maps hold the kernel's counts at
# the event, read at Ctrl-C: nothing is left in flight), with the reads'
# sizes among them.  toolwork runs as tw-bitesize (TOOLWORK_NAME), so that
# another test's toolwork bio beside it is not counted.
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool bitesize)"
TOOLWORK_NAME=tw-bitesize expect_status 0 "$LUAPROF" run bitesize -- "$PROGS/toolwork" bio "$TMP"
cp "$TMP/out" lp.out
bt_stop
# the non-empty buckets of @[tw-bitesize]: "[4K, 8K) 9" lines
hist() { awk '/^@\[tw-bitesize\]: $/ {on = 1; next} on && /^$/ {on = 0}
	on {sub(/ +\|.*$/, ""); c = $NF; sub(/ +[0-9]+$/, ""); if (c > 0) print $0, c}' "$1"; }
hist lp.out > lp.hist
hist "$BT_OUT" > bt.hist
[ -s lp.hist ] || { cat lp.out; fail "luaprof has no histogram of toolwork's requests"; }
for b in '[4K, 8K)' '[16K, 32K)' '[64K, 128K)' '[256K, 512K)'; do
	grep -qF "$b" lp.hist || { cat lp.hist; fail "luaprof's histogram has no request in $b, where toolwork reads"; }
done
bt_same "bitesize's histogram of toolwork differs from bitesize.bt's" bt.hist lp.hist
echo "bitesize: toolwork's $(awk '{n += $NF} END {print n}' lp.hist) requests in the buckets bitesize.bt has"
exit 0

# opensnoop beside bpftrace's opensnoop.bt on toolwork open (open and
# openat of files found, missing, created, relative to a directory fd, one
# of a 100-character name): the same rows in the same order (pid,
# command, fd, error, path), the dynamic loader's opens included, every
# path demanded.  luaprof keeps each path at the event (opensnoop.lua's
# path_of: s:str): the kernel copies the ones passed to libc's open64 and
# openat64; toolwork's two raw open system calls (SYS_open, which glibc
# no longer makes) pass static buffers, and its last openat a page not
# yet faulted in, which the kernel's copy at libc's call cannot read:
# those are read from the process by the thread that drains the rings,
# microseconds after the call, and a process that exits at once can beat
# it on a loaded machine, so toolwork stays a while after its last call
# (TOOLWORK_LINGER).  What luaprof does better: bpftrace's strings are 64
# bytes, so it prints the first 63 characters of the long paths; luaprof
# prints them whole.  (bpftrace reads the path at the call's return,
# after the kernel copied it: a page the process had not touched yet is
# no matter here.)
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
mkdir work
bt_start "$(bt_tool opensnoop)"
TOOLWORK_LINGER=300 expect_status 0 "$LUAPROF" run opensnoop -- "$PROGS/toolwork" open "$TMP/work"
cp "$TMP/out" lp.out
pid=$(awk '$2 == "toolwork" {print $1; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no row of toolwork"; }
n=$(awk -v p="$pid" '$1 == p' lp.out | wc -l)
bt_stop "^$pid +toolwork " "$n"
rows() { awk -v p="$pid" -v OFS='\t' '$1 == p {path = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ ?/, "", path); print $1, $2, $3, $4, path}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
long=long-$(printf '%095d' 0 | tr 0 x)
# toolwork's opens, each with its path
for want in "3	0	$TMP/work/exists" "-1	2	$TMP/work/missing" "3	0	$TMP/work/created" "4	0	exists" \
	"-1	2	missing" "4	0	$long" "3	0	$TMP/work/$long"; do
	grep -qF "toolwork	$want" lp.rows || { cat lp.out; fail "luaprof has no row '$want'"; }
done
! grep -q "could not be read" "$TMP/err" || { cat "$TMP/err"; fail "luaprof could not read some paths"; }
python3 "$ROOT/tests/e2e/btrows.py" --unread=NONE bt.rows lp.rows > cmp.txt 2>&1 ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "opensnoop's rows differ from opensnoop.bt's: $(tail -1 cmp.txt)"; }
read_long=$(grep -cF "$long" lp.rows)
grep -q " $read_long strings bpftrace truncated" cmp.txt ||
	fail "bpftrace did not cut the $read_long long paths luaprof read: $(tail -1 cmp.txt)"
echo "opensnoop: $(cat cmp.txt), as opensnoop.bt prints them"
exit 0

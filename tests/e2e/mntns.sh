# A process in another mount namespace (as in a container) runs a program
# that exists only there: its functions and lines are read through
# /proc/PID/root, while it runs.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
unshare -m true 2>/dev/null || skip "cannot make a mount namespace here (unshare -m failed)"
cd "$TMP"
cc -O2 -g -o chain "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
mkdir ns
"$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- unshare -m sh -c \
	"mount -t tmpfs none '$TMP/ns' && cp '$TMP/chain' '$TMP/ns/chain' && exec '$TMP/ns/chain' 300" \
	> out 2>err || { cat err; fail "luaprof run failed"; }
[ ! -e ns/chain ] || fail "the namespace's tmpfs is visible outside it"
total=$(awk '$2 != "?" || 1 {n += $1} END {print n + 0}' out)
leaf=$(awk '$2 == "chain_leaf" && $3 ~ /^chain\.c:[0-9]+$/ {n += $1} END {print n + 0}' out)
[ "$total" -ge 100 ] && [ $((leaf * 100)) -ge $((total * 80)) ] ||
	{ sort -rn out | head; fail "$leaf of $total samples named chain_leaf at chain.c lines"; }
echo "$leaf of $total samples named chain_leaf at chain.c lines, from inside the namespace"

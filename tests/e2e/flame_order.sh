# A flame graph is the same SVG however its stacks come: frames of one
# name under one parent but of another kind (a user and a kernel
# [unknown], f and f_[i]) are drawn in one order (by the name with its
# annotation), where they once took the order a Lua table's iteration
# gave them, which changes from run to run (its hash seed): the same
# recording drew a different SVG each time.
# test: check
. "$(dirname "$0")/lib.sh"
cd "$TMP"
{
	for c in a b c d e f g h; do
		echo "$c;[unknown] 3"
		echo "$c;[unknown]_[k] 7"
		echo "$c;work;f 2"
		echo "$c;work;f_[i] 5"
		echo "$c;work;f_[k] 1"
	done
} > ties.folded
cat > draw.lua <<'EOT'
io.write(luaprof.flamegraph.svg(luaprof.folded.read("ties.folded"), { title = "ties" }))
os.exit(0)
EOT
for i in 1 2 3 4 5 6; do
	expect_status 0 "$LUAPROF" run ./draw.lua -i /dev/null
	cp "$TMP/out" "svg$i"
	grep -q '\[unknown\]' "svg$i" || fail "no frame drawn"
	cmp -s svg1 "svg$i" || fail "run $i drew another SVG than run 1 from the same stacks"
done
echo "six runs drew one SVG of stacks with frames of one name and other kinds"

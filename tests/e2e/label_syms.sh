# A sizeless label inside a function (issue 24 #2): tests/progs/asmlabel's
# inner_label, a NOTYPE global of size 0 in the middle of label_host.
# luaprof names every sample in label_host's bytes label_host, with the
# offset from label_host, as perf did for node's builtins; perf's own pick
# between the function and a label inside it depends on the shape of its
# symbol tree (docs/perf-differences.md), so perf script's text is compared
# with each "inner_label+OFF" it prints rewritten as the function's
# "label_host+OFF'": every other byte of the two outputs is equal.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
cd "$TMP"
bin=$PROGS/asmlabel
perf record -q -F 999 -o al.data -- "$bin" 300 >/dev/null 2>&1 || fail "perf record failed"
sym() { readelf -sW "$bin" | awk -v n="$1" '$8 == n {print $2, $3, $4; exit}'; }
read -r host hsize htype <<< "$(sym label_host)"
read -r label lsize ltype <<< "$(sym inner_label)"
[ "$htype" = FUNC ] && [ "$ltype" = NOTYPE ] && [ "$lsize" = 0 ] ||
	fail "asmlabel's symbols are not a function and a sizeless label: $htype $ltype $lsize"
perf script -i al.data > perf.txt 2>/dev/null || fail "perf script failed"
python3 - "$host" "$hsize" "$label" perf.txt > want.txt <<'PY' || fail "cannot rewrite perf's names"
import re, sys
host, size, label = int(sys.argv[1], 16), int(sys.argv[2]), int(sys.argv[3], 16)
def fix(m):
    off = label - host + int(m.group(1), 16)
    return "label_host+0x%x" % off if off < size else m.group(0)
for line in open(sys.argv[4]):
    sys.stdout.write(re.sub(r"\binner_label\+0x([0-9a-f]+)", fix, line))
PY
"$LUAPROF" run script -i al.data > our.txt 2>&1 || fail "luaprof script failed"
[ -s perf.txt ] || fail "perf script printed nothing"
diff want.txt our.txt > d.out || { head -20 d.out; fail "script's symbols differ from perf's, the label read as the function"; }
n=$(grep -c 'inner_label+' perf.txt)
echo "$(wc -l < our.txt) samples as perf's; $n that perf gave the label named by the function"

# s.folded lines parse as folded stacks (frames ; separated, a count at the
# end), rooted at the command name, ending at the sampled leaf.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/fold_lines.lua" -g -F 1000 -- "$PROGS/leafs" 150
python3 - "$TMP/out" <<'PY' || fail "folded output did not check"
import re, sys
line_re = re.compile(r'^([^;\n]+(?:;[^;\n]+)*) (\d+)$')
total = good = 0
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    m = line_re.match(line)
    if not m:
        sys.exit("not a folded line: %r" % line)
    frames = m.group(1).split(";")
    if frames[0] != "leafs":
        sys.exit("root is %r, expected the comm 'leafs'" % frames[0])
    if frames[-1] in ("leaf_a", "leaf_b"):
        total += 1
        if frames[-4:-1] == ["recurse", "recurse", "work"] and "main;run;recurse" in m.group(1):
            good += 1
if total < 200 or good < total * 0.995:
    sys.exit("leaf stacks: %d, well-formed: %d" % (total, good))
print("folded: %d leaf stacks (%d complete), rooted at leafs and ending main;run;recurse...;work;leaf" % (total, good))
PY

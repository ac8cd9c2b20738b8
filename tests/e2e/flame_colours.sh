# Flame graph colours by frame kind, from luaprof's own stacks as from
# folded files.  luaprof's folded stacks carry FlameGraph's annotations
# (stackcollapse-perf.pl --all with inlined frames): _[k] kernel, _[j] JIT
# (a frame named by /tmp/perf-PID.map), _[i] inlined; luaprof run
# flamegraph draws each kind in its own family of hues: user warm (0-50),
# JIT green (95-130), inlined teal (170-195), kernel blue (205-240).
# - tests/progs/jit: jit_first and jit_second are _[j] in the folded
#   stacks and green in the SVG, main warm;
# - tests/progs/inlined (-O2 -g, --call-graph dwarf: inlined frames come with unwound stacks only, as perf): mix(), forced inline into outer(), is
#   outer;mix_[i] and teal, outer warm;
# - a folded file without annotations names JIT code as perf maps do
#   (node's JS:*, python -X perf's py::): drawn green, not warm.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
# kinds SVG: one line per frame: KIND HUE NAME (KIND: data-k, HUE of its fill)
kinds() {
	python3 - "$1" <<'PY'
import colorsys, re, sys
svg = open(sys.argv[1]).read()
for k, name, r, g, b in re.findall(r'<g class="f" data-d="\d+" data-k="(\w)"><title>(.*?) \([^<]*</title>'
                                   r'<rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg):
    h, l, s = colorsys.rgb_to_hls(int(r) / 255, int(g) / 255, int(b) / 255)
    print(k, round(h * 360), name)
PY
}
# hues KINDS: every frame's hue lies in its kind's band (but an unknown
# frame's, grey: a kernel one in a BPF program another test loaded)
hues() {
	awk '$3 == "[unknown]" { next }
	     $1 == "u" && ($2 < 0 || $2 > 50) || $1 == "j" && ($2 < 95 || $2 > 130) ||
	     $1 == "i" && ($2 < 170 || $2 > 195) || $1 == "k" && ($2 < 205 || $2 > 240) { print; bad = 1 }
	     END { exit bad }' "$1" || fail "frames coloured outside their kind's hues ($1)"
}
# kind_of KINDS NAME: the kind of the frame named NAME (the first one)
kind_of() { awk -v n="$2" '{ k = $1; h = $2; $1 = $2 = ""; sub(/^  /, "") } $0 == n { print k; exit }' "$1"; }

# JIT
jit() {
	trap 'rm -f "/tmp/perf-$(cat jit.pid 2>/dev/null).map"' EXIT
	expect_status 0 "$LUAPROF" run folded -F 999 -o jit.data --out=jit.folded -- \
		sh -c 'echo $$ > jit.pid; exec "$0" 200 200' "$PROGS/jit"
	for f in jit_first jit_second; do
		grep -q ";main;${f}_\[j\] [0-9]*$" jit.folded || { cat jit.folded; fail "folded: no main;${f}_[j]"; }
	done
	expect_status 0 "$LUAPROF" run flamegraph -i jit.data --out=jit.svg
	kinds jit.svg > jit.kinds
	[ "$(kind_of jit.kinds jit_first)" = j ] && [ "$(kind_of jit.kinds jit_second)" = j ] ||
		{ grep jit_ jit.kinds; fail "the JIT functions are not drawn as JIT"; }
	[ "$(kind_of jit.kinds main)" = u ] || fail "main is not drawn as user code"
	hues jit.kinds
	echo "jit: jit_first_[j], jit_second_[j] in the folded stacks, green in the SVG ($(grep -c '^j ' jit.kinds) JIT frames)"
}

# inlined
inlined() {
	cp "$ROOT/tests/progs/inlined.c" .
	cc -O2 -g -no-pie -o inlined inlined.c || fail "cannot build the workload"
	expect_status 0 "$LUAPROF" run folded --call-graph dwarf -F 999 -o inl.data --out=inl.folded -- ./inlined 300
	grep -q ';outer;mix_\[i\] [0-9]*$' inl.folded || { sort -k2 -n inl.folded | tail -3; fail "folded: no outer;mix_[i]"; }
	expect_status 0 "$LUAPROF" run flamegraph -i inl.data --out=inl.svg
	kinds inl.svg > inl.kinds
	[ "$(kind_of inl.kinds mix)" = i ] || { grep -w mix inl.kinds; fail "mix() is not drawn as inlined"; }
	[ "$(kind_of inl.kinds outer)" = u ] || fail "outer() is not drawn as user code"
	grep -qs '^k ' jit.kinds inl.kinds && echo "kernel frames: $(cat jit.kinds inl.kinds 2>/dev/null | grep -c '^k ') drawn blue"
	hues inl.kinds
	echo "inlined: outer;mix_[i] in the folded stacks, teal in the SVG"
}

# a folded file from elsewhere, without annotations
other_folded() {
	printf '%s\n' 'node;main;JS:*fib /app/fib.js:1:13 5' 'python3;_PyEval_EvalFrameDefault;py::fib:/app/fib.py 3' \
		'prog;main;work 4' 'prog;main;do_syscall_64_[k] 2' > other.folded
	cat > draw.lua <<'LUA'
function on_end() luaprof.flamegraph.write("other.svg", luaprof.folded.read("other.folded")) end
LUA
	[ -s jit.data ] || fail "no jit.data: the JIT case made no recording to replay"
	expect_status 0 "$LUAPROF" run ./draw.lua -i jit.data
	kinds other.svg > other.kinds
	[ "$(kind_of other.kinds 'JS:*fib /app/fib.js:1:13')" = j ] || { cat other.kinds; fail "JS:* is not drawn as JIT"; }
	[ "$(kind_of other.kinds 'py::fib:/app/fib.py')" = j ] || { cat other.kinds; fail "py:: is not drawn as JIT"; }
	[ "$(kind_of other.kinds work)" = u ] && [ "$(kind_of other.kinds do_syscall_64)" = k ] ||
		{ cat other.kinds; fail "work/do_syscall_64 not drawn as user/kernel"; }
	hues other.kinds
	echo "folded file: JS:* and py:: frames drawn as JIT"
}

scenario "JIT frames" jit
scenario "inlined frames" inlined
scenario "a folded file from elsewhere" other_folded
scenarios_done

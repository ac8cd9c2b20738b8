# s.ustack and s.kstack (the one-liners' ustack and kstack, made in C)
# are, sample for sample, the text the one-liners built in Lua from
# s.stack before: a newline, then "    sym+symoff" per frame of that kind
# ("    0x..." when unnamed, "    func+0" for an inlined function), ""
# when there is none.  On perf's -g recording of faults (kernel frames
# under page faults among user ones) and its --call-graph dwarf
# recording of inlined (mix() inlined into outer(): inlined frames on
# the unwound stacks), every sample is compared; the -g recording must
# have samples with kernel frames, the dwarf one some with inlined
# frames, so that every branch is met.  ustack(2) and kstack(1)
# of a one-liner are the first lines of them.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: no recording to read"
cd "$TMP"
cat > ref.lua <<'LUA'
local function text(x, kernel)
  local out = { "\n" }
  for _, f in ipairs(x.stack) do
    if (f.kernel and true or false) == kernel then
      out[#out + 1] = "    " .. (f.sym and (f.sym .. "+" .. (f.symoff or 0)) or
                                string.format("0x%x", f.ip)) .. "\n"
    end
  end
  return #out > 1 and table.concat(out) or ""
end
local n, bad, user, kern, inl = 0, 0, 0, 0, 0
function on_sample(s)
  n = n + 1
  local u, k = s.ustack, s.kstack
  if u ~= text(s, false) or k ~= text(s, true) or s.ustack ~= u then
    bad = bad + 1
    if bad <= 3 then io.stderr:write("sample ", n, ":", u, "|", text(s, false), "|", k, "\n") end
  end
  if u ~= "" then user = user + 1 end
  if k ~= "" then kern = kern + 1 end
  for _, f in ipairs(s.stack) do
    if f.inlined then inl = inl + 1 break end
  end
end
function on_end() print(string.format("samples %d differ %d user %d kernel %d inlined %d", n, bad, user, kern, inl)) end
LUA
# compare NAME: every sample of NAME.data; sets USER, KERN, INL
compare() {
	"$LUAPROF" run ref.lua -i "$1.data" > "$1.out" 2> "$1.err" || { cat "$1.err"; fail "$1: the script failed"; }
	read -r _ n _ bad _ USER _ KERN _ INL < "$1.out"
	[ "$n" -ge 100 ] || fail "$1: $n samples, expected 100 or more"
	[ "$bad" = 0 ] || { cat "$1.err"; fail "$1: $bad of $n samples' s.ustack or s.kstack differ from s.stack's text"; }
	[ "$USER" -gt 0 ] || fail "$1: no sample with user frames"
}
fp() {
	perf record -q -g -e cpu-clock -F 2000 -o fp.data -- "$PROGS/faults" 32 >/dev/null 2>&1 ||
		fail "perf record -g failed"
	compare fp
	[ "$KERN" -gt 0 ] || fail "fp: no sample with kernel frames"
}
dwarf() {
	perf record -q --call-graph dwarf -e cpu-clock -F 1000 -o dw.data -- "$PROGS/inlined" >/dev/null 2>&1 ||
		fail "perf record --call-graph dwarf failed"
	compare dw
	[ "$INL" -gt 0 ] || fail "dw: no sample with inlined frames"
}
# ustack(2), kstack(1): the first lines of the texts
firsts() {
	[ -s fp.data ] || fail "no fp.data: the -g case did not make it"
	expect_status 0 "$LUAPROF" -x 'cpu-clock { count(ustack(2), kstack(1)) }' -i fp.data
	cp "$TMP/out" two.txt
	expect_status 0 "$LUAPROF" -x 'cpu-clock { count(s.ustack, s.kstack) }' -i fp.data
	# every key of the first is the first 2 / 1 lines of one of the second
	python3 - two.txt "$TMP/out" <<'PY' || fail "ustack(2) and kstack(1) are not the first lines of s.ustack and s.kstack"
import re, sys
def keys(path):
    text = open(path).read()
    return [(m.group(1), int(m.group(2))) for m in re.finditer(r"@\[(.*?)\]: (\d+)\n", text, re.S)]
short, full = keys(sys.argv[1]), keys(sys.argv[2])
def cut(t, k):
    lines = t.split("\n")
    return "\n".join(lines[:k + 1]) + ("\n" if len(lines) > k + 1 else "")
want = {}
for key, n in full:
    u, _, k = key.partition(", ")
    want[(cut(u, 2), cut(k, 1))] = want.get((cut(u, 2), cut(k, 1)), 0) + n
got = {}
for key, n in short:
    u, _, k = key.partition(", ")
    got[(u, k)] = got.get((u, k), 0) + n
sys.exit(0 if got == want and sum(got.values()) > 100 else 1)
PY
}
scenario "-g: kernel and user frames" fp
scenario "--call-graph dwarf: inlined frames" dwarf
scenario "ustack(2), kstack(1)" firsts
scenarios_done

# A workload busy in system calls: kernel frames are marked kernel, in
# [kernel.kallsyms], and named when kallsyms is readable.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/named.lua" -- "$PROGS/syscalls" 2000
read -r kernel named < <(awk '$1=="kernel" {print $2, $4}' "$TMP/out")
[ "$kernel" -gt 100 ] || { cat "$TMP/out"; fail "only $kernel kernel samples"; }
if [ "$(awk 'NR==1{print $1}' /proc/kallsyms)" = 0000000000000000 ]; then
	expect_grep "kernel addresses are hidden" "$TMP/err"
	skip "kallsyms hides addresses here: kernel frames were unnamed, as they must be"
fi
[ $((named * 100)) -ge $((kernel * 95)) ] || fail "only $named of $kernel kernel samples are named"
# -g: the stack holds kernel frames (leaf first) and then the user frames
cat > "$TMP/k.lua" <<'LUA'
local mixed = 0
function on_sample(s)
  local st = s.stack
  if #st > 2 and st[1].kernel and not st[#st].kernel then
    local seen_user = false
    for _, f in ipairs(st) do
      if not f.kernel then seen_user = true elseif seen_user then error("kernel frame after a user frame") end
    end
    mixed = mixed + 1
  end
end
function on_end() print("mixed " .. mixed) end
LUA
expect_status 0 "$LUAPROF" run "$TMP/k.lua" -g -- "$PROGS/syscalls" 2000
expect_grep '^mixed [1-9][0-9]+' "$TMP/out"

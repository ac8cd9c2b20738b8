# luaprof.report (issue 35): perf report's rows in C for a user's own
# script.  A script with no on_sample (feed = "all": the run adds every
# sample in C) prints the same rows, shares and order as the shipped top
# it is the engine of, with and without --children; feed = "script" adds
# only the samples on_sample passes (rep:add(s)), here those of one
# thread.  Bad options are one clear error each.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
cd "$TMP"
perf record -q -g -F 4000 -o fp.data -- "$PROGS/faults" 64 >/dev/null 2>&1 || fail "perf record failed"

cat > rows.lua <<'EOT'
local children = arg[1] == "children"
local rep = luaprof.report{ sort = { "sym" }, children = children }
function on_end()
  for _, ev in ipairs(rep:events()) do
    local t = rep:rows(ev, { order = children and "children" or "self", limit = 20 })
    print(ev, t.samples, #rep:rows(ev) >= #t)
    for _, r in ipairs(t) do
      print(children and luaprof.fmt.pct(r.children, t.total) or "", luaprof.fmt.pct(r.self, t.total),
            r.samples, r.cells[1])
    end
  end
end
EOT
# rows MODE: rows.lua's rows (self or children) are top's
rows() {
	mode=$1
	"$LUAPROF" run ./rows.lua -A "$mode" -i fp.data > "$mode.txt" 2> err || fail "rows.lua ($mode) failed: $(cat err)"
	flag=; [ $mode = children ] && flag=--children
	"$LUAPROF" run top $flag -i fp.data > top.txt 2> err || fail "top failed: $(cat err)"
	# top's table, its columns split on runs of two spaces or more
	n=$(awk 'NR > 2' top.txt | wc -l)
	[ "$n" -gt 0 ] || fail "top printed no rows: $(cat top.txt)"
	awk 'NR > 2 { sub(/^ +/, ""); n = split($0, c, /  +/); out = c[1]
	              for (i = 2; i <= n; i++) out = out "\t" c[i]; print out }' top.txt > want.txt
	awk -F'\t' 'NR > 1 { out = $1 ~ /%/ ? $1 "\t" $2 "\t" $3 "\t" $4 : $2 "\t" $3 "\t" $4; print out }' \
		"$mode.txt" > got.txt
	diff want.txt got.txt > d || fail "luaprof.report ($mode) differs from top: $(head -20 d)"
	head -1 "$mode.txt" | grep -q "	true$" || fail "rows(ev) without order is not every row: $(head -1 "$mode.txt")"
}

feed_script() {
	cat > one.lua <<'EOT'
local rep = luaprof.report{ feed = "script" }
local tid, n = nil, 0
function on_sample(s)
  tid = tid or s.tid
  if s.tid == tid then rep:add(s); n = n + 1 end
end
function on_end()
  local t = rep:rows(rep:events()[1])
  print(t.samples == n, n > 0)
end
EOT
	"$LUAPROF" run ./one.lua -i fp.data > out.txt 2> err || fail "feed = script failed: $(cat err)"
	[ "$(cat out.txt)" = "true	true" ] || fail "feed = script: $(cat out.txt)"
}

sort_twice() {
	echo 'luaprof.report{ sort = { "sym", "sym" } }' > bad1.lua
	expect_status 255 "$LUAPROF" run ./bad1.lua -i fp.data
	expect_grep "sort= has sym twice" "$TMP/err"
}
sort_unknown() {
	echo 'luaprof.report{ sort = { "symbol" } }' > bad2.lua
	expect_status 255 "$LUAPROF" run ./bad2.lua -i fp.data
	expect_grep "invalid option 'symbol'" "$TMP/err"
}
add_fed_all() {
	echo 'local r = luaprof.report{} function on_sample(s) r:add(s) end' > bad3.lua
	expect_status 255 "$LUAPROF" run ./bad3.lua -i fp.data
	expect_grep 'fed every sample' "$TMP/err"
}

scenario "feed = all: top's rows" rows self
scenario "feed = all: top --children's rows" rows children
scenario "feed = script" feed_script
scenario "sort= with a key twice" sort_twice
scenario "sort= with an unknown key" sort_unknown
scenario "rep:add with feed = all" add_fed_all
scenarios_done

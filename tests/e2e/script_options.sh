# Scripts describe themselves: luaprof.options declares options whose
# values come from --name=value after the script's name; --help prints
# them; mistakes stop the run before anything starts, listing the valid
# options; -A/arg still works; bare names are looked up in LUAPROF_PATH,
# ~/.local/share/luaprof/scripts, then luaprof's own scripts, never in the
# current directory; require finds modules next to the script and in
# luaprof's library; luaprof list scripts shows them all.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
export HOME=$TMP/home
mkdir -p "$TMP/dir1" "$TMP/dir2" "$HOME/.local/share/luaprof/scripts" "$TMP/cwd"
cat > "$TMP/dir1/opts.lua" <<'LUA'
local opt = luaprof.options{
  description = "prints its options",
  help = "Every type of option, for the test.",
  { "limit", "integer", 20, "rows", min = 0 },
  { "ratio", "number", 0.5, "a ratio" },
  { "name", "string", "x", "a name", choices = { "x", "y" } },
  { "flag", "boolean", false, "a flag" },
  { "keys", "list", "a,b", "keys" },
  { "note", "string", nil, "a note" },
  { "sort", "list", "x", "sort keys", choices = { "x", "y" } },
}
local keys = table.concat(opt.keys, "+")
print(string.format("limit=%s ratio=%s name=%s flag=%s keys=%s note=%s arg1=%s helper=%s map=%s",
  math.type(opt.limit) .. ":" .. opt.limit, opt.ratio, opt.name, tostring(opt.flag), keys,
  tostring(opt.note), tostring(arg[1]), require("helper").answer, tostring(luaprof.map ~= nil)))
LUA
echo 'return { answer = 42 }' > "$TMP/dir1/helper.lua"
# Scripts of the same name in LUAPROF_PATH and in ~/.local/share, and one
# in the current directory.
printf 'luaprof.options{ description = "from dir2" }\nprint("dir2")\n' > "$TMP/dir2/same.lua"
printf 'luaprof.options{ description = "from home" }\nprint("home")\n' > "$HOME/.local/share/luaprof/scripts/same.lua"
printf 'luaprof.options{ description = "from home too" }\nprint("home2")\n' > "$HOME/.local/share/luaprof/scripts/mine.lua"
printf 'print("cwd")\n' > "$TMP/cwd/here.lua"
cd "$TMP/cwd"

# Defaults, then every type from the command line; -A still fills arg[].
values() {
	expect_status 0 "$LUAPROF" run "$TMP/dir1/opts.lua" -- true
	expect_grep '^limit=integer:20 ratio=0.5 name=x flag=false keys=a\+b note=nil arg1=nil helper=42 map=true$' "$TMP/out"
	expect_status 0 "$LUAPROF" run "$TMP/dir1/opts.lua" --limit=5K --ratio=2.5 --name=y --flag \
		--keys=c --keys=d,e --note=hi -A one -F 99 -- true
	expect_grep '^limit=integer:5000 ratio=2.5 name=y flag=true keys=c\+d\+e note=hi arg1=one ' "$TMP/out"
	expect_status 0 "$LUAPROF" run "$TMP/dir1/opts.lua" --flag=yes --no-flag -- true
	expect_grep ' flag=false ' "$TMP/out"
}

# --help: the description, the help text and every option.
help_text() {
	expect_status 0 "$LUAPROF" run "$TMP/dir1/opts.lua" --help
	expect_grep '^prints its options$' "$TMP/out"
	expect_grep '^Every type of option, for the test.$' "$TMP/out"
	expect_grep '^  --limit=N +rows \(default 20\)$' "$TMP/out"
	expect_grep '^  --name=TEXT +a name; one of: x, y \(default x\)$' "$TMP/out"
	expect_grep '^  --flag, --no-flag +a flag \(default false\)$' "$TMP/out"
	expect_grep '^  --keys=A,B,... +keys \(default a,b\)$' "$TMP/out"
	! [ -s "$TMP/err" ] || fail "--help wrote to stderr: $(cat "$TMP/err")"
}

# Mistakes: one line naming it, then the valid options; exit 255; nothing run.
mistakes() {
	for bad in "--limt=3:unknown option '--limt'" "--limit=ten:--limit=ten: the value must be an integer" \
		   "--limit=-5:--limit=-5: the value must be at least 0" "--limit:--limit needs a value: --limit=N" "--name=z:--name=z: the value must be one of" \
		   "--ratio=nan:--ratio=nan: the value must be a number" "--flag=maybe:--flag=maybe: the value must be true or false" \
		   "--sort=y,bogus:--sort=y,bogus: the value must be chosen from the list below \\('bogus' is not in it\\)" \
		   "--Bad:'--Bad' is not an option"; do
		expect_status 255 "$LUAPROF" run "$TMP/dir1/opts.lua" "${bad%%:*}" -- "$PROGS/spin" 1
		expect_grep "^luaprof: .*opts.lua: ${bad#*:}" "$TMP/err"
		expect_grep '^  --limit=N +rows' "$TMP/err"
		! [ -s "$TMP/out" ] || fail "${bad%%:*}: the script ran"
	done
}

# A script declaring no options refuses them; a bad declaration names its line.
no_options() {
	echo 'function on_sample() end' > "$TMP/dir1/plain.lua"
	expect_status 255 "$LUAPROF" run "$TMP/dir1/plain.lua" --x=1 -- true
	expect_grep "unknown option '--x=1': the script declares no options" "$TMP/err"
}

bad_declaration() {
	printf 'luaprof.options{ description = "d", { "output", "string", "a", "h" } }\n' > "$TMP/dir1/reserved.lua"
	expect_status 255 "$LUAPROF" run "$TMP/dir1/reserved.lua" -- true
	expect_grep "reserved.lua:1: bad argument #1 to 'options' \(option 1: --output is luaprof's own option" "$TMP/err"
	printf 'luaprof.options{ description = "d", { "n", "integer", "x", "h" } }\n' > "$TMP/dir1/badspec.lua"
	expect_status 255 "$LUAPROF" run "$TMP/dir1/badspec.lua" -- true
	expect_grep "badspec.lua:1: bad argument #1 to 'options' \(option 1: the default does not have the option's type" "$TMP/err"
}

# luaprof's long options stay luaprof's after the script: --duration here.
long_options() {
	expect_status 0 "$LUAPROF" run "$TMP/dir1/opts.lua" --limit=1 --duration 0.2 -- "$PROGS/spin" 5
}

# Bare names: LUAPROF_PATH first, then ~/.local/share/luaprof/scripts, then
# the checkout's scripts/; never the current directory.
bare_names() {
	LUAPROF_PATH=$TMP/dir2 expect_status 0 "$LUAPROF" run same -- true
	expect_grep '^dir2$' "$TMP/out"
	expect_status 0 "$LUAPROF" run same.lua -- true
	expect_grep '^home$' "$TMP/out"
	expect_status 0 "$LUAPROF" run count -- true
	expect_grep '^total: ' "$TMP/out"
	expect_status 255 "$LUAPROF" run here -- true
	expect_grep "no script 'here' in .*; a file in the current directory is run as ./here" "$TMP/err"
	expect_status 0 "$LUAPROF" run ./here.lua -- true
	expect_grep '^cwd$' "$TMP/out"
}

# require never reads the current directory, even for a script run from it.
require_cwd() {
	echo 'error("loaded from the current directory")' > "$TMP/cwd/evil.lua"
	printf 'print(pcall(require, "evil"))\n' > "$TMP/dir1/req.lua"
	expect_status 0 "$LUAPROF" run "$TMP/dir1/req.lua" -- true
	expect_grep "^false	module 'evil' not found" "$TMP/out"
	! grep -q "$TMP/cwd" "$TMP/out" || fail "require searched the current directory"
}

# luaprof list scripts: every script found, once, with its description.
list_scripts() {
	LUAPROF_PATH=$TMP/dir2 expect_status 0 "$LUAPROF" list scripts
	expect_grep "^$TMP/dir2:$" "$TMP/out"
	expect_grep '^  same +from dir2$' "$TMP/out"
	expect_grep '^  mine +from home too$' "$TMP/out"
	expect_grep '^  top +the hottest functions by samples' "$TMP/out"
	for s in count top flamegraph folded pprof speedscope; do expect_grep "^  $s +[a-z]" "$TMP/out"; done
	[ "$(grep -c '^  same ' "$TMP/out")" = 1 ] || fail "a shadowed script is listed twice"
}

# The profile scripts' --offcpu says each one's own unit.
offcpu_units() {
	for su in folded:microseconds flamegraph:microseconds speedscope:nanoseconds pprof:nanoseconds; do
		expect_status 0 "$LUAPROF" run "${su%%:*}" --help
		expect_grep "^  --offcpu, --no-offcpu .*off-CPU time from sched_switch, in ${su#*:} " "$TMP/out"
	done
}

scenario "defaults, then every type" values
scenario "--help" help_text
scenario "mistakes" mistakes
scenario "a script declaring no options" no_options
scenario "a bad declaration" bad_declaration
scenario "luaprof's long options after the script" long_options
scenario "bare names" bare_names
scenario "require never reads the current directory" require_cwd
scenario "luaprof list scripts" list_scripts
scenario "--offcpu's units" offcpu_units
scenarios_done

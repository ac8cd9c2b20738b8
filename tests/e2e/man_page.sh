# The man page (docs/luaprof.1) names everything a user can type or
# define: every option --help lists, every command, every hook the VM
# calls (lua/host/lhooks.c's lp_hook_names, and on_event), every key of
# luaprof.setup (lua/host/lsetup.c's keys) and every shipped script
# (luaprof list scripts).  Each list comes from where luaprof itself takes
# it, so a new option, hook, key or script fails this test until the page
# has it.  The check is run once more on the page with --symfs taken out,
# and must fail there: a check that cannot fail checks nothing.
# test: check
. "$(dirname "$0")/lib.sh"
cd "$TMP"

# what the page must name, one per line
"$LUAPROF" --help > help.txt 2>&1 || fail "luaprof --help failed"
{
	grep -oE -- '(^|[ ,])--[a-z][a-z-]+' help.txt | sed 's/^[ ,]*//' | sort -u
	grep -oE -- '^  -[a-zA-Z],' help.txt | tr -d ' ,'
	printf '%s\n' 'luaprof run' 'luaprof record' 'luaprof stat' 'luaprof top' \
		'luaprof list scripts' 'luaprof list --fields' 'luaprof -x'
	sed -n '/hook_names\[LP_HOOK_N\] = {/,/};/p' "$ROOT/lua/host/lhooks.c" | grep -oE '"on_[a-z_]+"' | tr -d '"'
	echo on_event
	grep -oE '\{ "[a-z_]+", set_[a-z_]+,' "$ROOT/lua/host/lsetup.c" | sed -E 's/\{ "([a-z_]+)".*/\1=/'
	"$LUAPROF" list scripts | sed -n 's/^  \([^ ]*\) .*/script \1/p'
} > want.txt
[ "$(grep -c '^on_' want.txt)" -ge 9 ] && [ "$(grep -c '=$' want.txt)" -ge 9 ] &&
	[ "$(grep -c '^script ' want.txt)" -ge 20 ] && [ "$(grep -c '^--' want.txt)" -ge 20 ] ||
	fail "the lists of options, hooks, keys and scripts came out short: $(tr '\n' ' ' < want.txt)"

# missing PAGE: the lines of want.txt that the page (roff, read as text)
# does not name; a script must be named in bold (.B NAME or \fBNAME\fR).
missing() {
	sed -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/\\&//g' "$1" > page.txt
	local w
	while IFS= read -r w; do
		case $w in
		script\ *) grep -qE "^\.BR? ${w#script }( |\$)|\\\\fB${w#script }\\\\f" page.txt ||
				echo "$w" ;;
		luaprof\ *) sed -e 's/\\f[BIRP]//g' -e 's/^\.[A-Z]* //' page.txt | tr -s ' \n' '  ' |
				grep -qF -- "$w" || echo "$w" ;;
		*) sed 's/\\f[BIRP]//g' page.txt | grep -qF -- "$w" || echo "$w" ;;
		esac
	done < want.txt
}

missing "$ROOT/docs/luaprof.1" > missing.txt
[ -s missing.txt ] && fail "docs/luaprof.1 does not name: $(tr '\n' ' ' < missing.txt)"
sed '/symfs/d' "$ROOT/docs/luaprof.1" > removed.1
missing removed.1 > missing.txt
grep -qx -- '--symfs' missing.txt || fail "the check did not notice --symfs taken out of the page"
echo "the man page names all $(wc -l < want.txt) options, commands, hooks, setup keys and scripts"

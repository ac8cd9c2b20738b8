# funccount and funclatency given a missing pattern, object or function:
# refused before anything runs, in one line naming the script and its
# --help (luaprof.usage_error), exit 255, the command not started.  Rules
# and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"

# refused SCRIPT WHAT PATTERN ARGS...: luaprof run SCRIPT ARGS -- touch
# started is refused in one line (WHAT), matching PATTERN, and the command
# is not started.
refused() {
	local script=$1 what=$2 pattern=$3
	shift 3
	rm -f started
	expect_status 255 "$LUAPROF" run "$script" "$@" -- touch started
	one_line "$script" "$what"
	expect_grep "$pattern" "$TMP/err"
	! [ -e started ] || fail "a refused script's command was started"
}

scenario "funccount without a pattern" refused funccount "funccount without a pattern" \
	'give the functions as --pattern=OBJECT:GLOB'
scenario "funccount on a missing object" refused funccount "funccount on a missing object" \
	"no object './nosuch'" --pattern=./nosuch:x
scenario "funccount matching nothing" refused funccount "funccount matching nothing" \
	"no function of .* matches 'zz_\*'" --pattern="./$C:zz_*"
scenario "funclatency of a missing function" refused funclatency "funclatency of a missing function" \
	"no function 'no_such_function' in .*libc" --func=libc:no_such_function
scenarios_done

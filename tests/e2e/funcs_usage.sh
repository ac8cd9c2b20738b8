# funccount and funclatency given a missing pattern, object or function:
# refused before anything runs, in one line naming the script and its
# --help (luaprof.usage_error), exit 255, the command not started.  Rules
# and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
rm -f started
expect_status 255 "$LUAPROF" run funccount -- touch started
one_line funccount "funccount without a pattern"
expect_grep 'give the functions as --pattern=OBJECT:GLOB' "$TMP/err"
expect_status 255 "$LUAPROF" run funccount --pattern=./nosuch:x -- touch started
one_line funccount "funccount on a missing object"
expect_grep "no object './nosuch'" "$TMP/err"
expect_status 255 "$LUAPROF" run funccount --pattern="./$C:zz_*" -- touch started
one_line funccount "funccount matching nothing"
expect_grep "no function of .* matches 'zz_\*'" "$TMP/err"
expect_status 255 "$LUAPROF" run funclatency --func=libc:no_such_function -- touch started
one_line funclatency "funclatency of a missing function"
expect_grep "no function 'no_such_function' in .*libc" "$TMP/err"
[ -e started ] && fail "a refused script's command was started"
exit 0

/*
 * lview.c - the one check of the views handed to hooks (s, t of
 * on_switch, s.args), which expire when their call returns (lp.h,
 * lp_view_next): whether a view is the running call's, and the one error
 * when it is not.  Apart from the views themselves (lsample.c, lswitch.c,
 * ltrace.c), so that any binding taking a sample (s:str, pprof:add,
 * read_string) checks it without depending on them.
 */
#include <stdint.h>

#include <lauxlib.h>

#include "lp.h"

unsigned lp_view_tag(lua_State *L, int idx)
{
	return lua_type(L, idx) == LUA_TLIGHTUSERDATA ?
	       (uintptr_t)lua_touserdata(L, idx) & LP_VIEW_TAG : 0;
}

/* What a view used after its call says, by its kind. */
static const char *const expired_msg[] = {
	[LP_VIEW_SAMPLE] = "this sample's view expired when its on_sample returned: copy the "
			   "fields you need (local x = s.sym)",
	[LP_VIEW_EVENT] = "this sample's view expired when its on_event handler returned: copy "
			  "the fields you need (local x = s.sym)",
	[LP_VIEW_SWITCH] = "this switch record's view expired when its on_switch returned: copy "
			   "the fields you need (local x = t.tid)",
	[LP_VIEW_ARGS] = "s.args used outside on_sample: copy the fields you need into your own "
			 "table while on_sample runs",
};

int lp_view_expired(lua_State *L, unsigned kind, int arg)
{
	const char *msg = expired_msg[kind <= LP_VIEW_ARGS && kind ? kind : LP_VIEW_SAMPLE];
	return arg ? luaL_argerror(L, arg, msg) : luaL_error(L, "%s", msg);
}

struct lp_run *lp_view_check(lua_State *L, int idx)
{
	struct lp_run *run = lp_get_run(L);
	const void *ud = lua_touserdata(L, idx);
	if (ud && lp_view_is_current(run, ud))
		return run;
	unsigned tag = lp_view_tag(L, idx);
	if (tag == LP_VIEW_SAMPLE || tag == LP_VIEW_EVENT)
		lp_view_expired(L, tag, idx);
	luaL_typeerror(L, idx, LP_SAMPLE_MT);
	return NULL;
}


/*
 * list.h - internal to lua/: `luaprof list`, what this machine offers.
 */
#ifndef LP_LIST_H
#define LP_LIST_H

/* luaprof list [GROUP | PATTERN] and luaprof list --fields TRACEPOINT;
 * argv[0] is "list".  Prints to stdout; returns the exit status (0, or 255
 * after one line on stderr). */
int lp_list_main(int argc, char **argv);

/* luaprof list --attr EVENTS (attr.c): each event's perf_event_attr as
 * `luaprof run -e EVENTS -- CMD` would open it, printed as perf record -vv
 * prints its own.  Returns the exit status. */
int lp_list_attr(const char *events);

/* `luaprof list scripts` (listscripts.c): every script found, in search
 * order (a name found again later is shadowed and not listed), with its
 * description.  Returns the exit status. */
int lp_list_scripts(void);

#endif

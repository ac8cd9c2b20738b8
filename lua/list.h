/*
 * list.h - internal to lua/: `luaprof list`, what this machine offers.
 */
#ifndef LP_LIST_H
#define LP_LIST_H

/* luaprof list [GROUP | PATTERN] and luaprof list --fields TRACEPOINT;
 * argv[0] is "list".  Prints to stdout; returns the exit status (0, or 255
 * after one line on stderr). */
int lp_list_main(int argc, char **argv);

#endif

/*
 * cli.h - internal to lua/cmd: parsing luaprof's command line into the
 * run's settings (host/settings.h).
 */
#ifndef LP_CLI_H
#define LP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "settings.h"


/* Parses argv into cli.  Returns 0 to go on, 1 when it printed help or the
 * version (exit 0), or -1 after printing one line about what is wrong.
 * Settings the command line leaves out stay unset (0) until lp_cli_finish,
 * so that the script's luaprof.setup (lsetup.c) can fill them first. */
int lp_cli_parse(struct lp_cli *cli, int argc, char **argv);

/* Fills what neither the command line nor the script set with the
 * defaults: -F 4000, 256 ring pages, perf's default event (not for -i).
 * Call once the script's top level has run.  Returns 0, or -1 after
 * printing one line. */
int lp_cli_finish(struct lp_cli *cli);

void lp_cli_free(struct lp_cli *cli);

/* Whether name (n bytes) is one of luaprof's own long options ("output",
 * "duration", ...): a script option may not take such a name. */
bool lp_cli_long_option(const char *name, size_t n);

#endif

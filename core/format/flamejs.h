/*
 * flamejs.h - internal to core/format: the flame graph's style sheet
 * and script (flamejs.c), embedded in every SVG.
 */
#ifndef LP_FLAMEJS_H
#define LP_FLAMEJS_H

extern const char lp_flame_css[];
extern const char lp_flame_js[];

#endif

/*
 * flame_int.h - internal to core/format: the flame graph's style sheet
 * and script (flamejs.c), embedded in every SVG.
 */
#ifndef LP_FLAME_INT_H
#define LP_FLAME_INT_H

extern const char lp_flame_css[];
extern const char lp_flame_js[];

#endif

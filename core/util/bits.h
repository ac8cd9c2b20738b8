/*
 * bits.h - internal: counting bits.
 *
 * lp_popcount() is __builtin_popcountll where the compiler has the popcnt
 * instruction to hand (-mpopcnt, -march=native), else the same count in a
 * few arithmetic instructions, inline: the builtin without the instruction
 * is a call into libgcc's table-driven __popcountdi2, a call for every
 * record a replay decodes (docs/performance.md, "Measured choices in the
 * code").
 */
#ifndef LP_BITS_H
#define LP_BITS_H

#include <stdint.h>

static inline unsigned lp_popcount(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
	return (unsigned)__builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

#endif

/*
 * probe_int.h - internal to core/probe/: helpers its files share.
 */
#ifndef LP_PROBE_INT_H
#define LP_PROBE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <libelf.h>

/* The file offset of vaddr, from the PT_LOAD whose file bytes hold it;
 * false when no segment has it in its file bytes (.bss, or nowhere). */
bool lp_elf_vaddr_offset(Elf *e, uint64_t vaddr, uint64_t *off);

#endif

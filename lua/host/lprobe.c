/*
 * lprobe.c - what probes and groups add to a sample: s.args, s.retval and
 * s.values.
 *
 *   s.args    a uprobe's first six integer arguments (System V x86-64:
 *             rdi, rsi, rdx, rcx, r8, r9, whole 64-bit registers), or a
 *             USDT probe's arguments decoded from its note's specs (each
 *             sized and signed as the spec says); a value that cannot be
 *             read is nil
 *   s.retval  a uretprobe's return value (rax)
 *   s.values  a group's counter values read with the sample: name -> value
 *
 * Values come from the sample's user registers (PERF_SAMPLE_REGS_USER),
 * its copy of the user stack, and for a USDT memory operand outside that
 * copy the live process's memory (process_vm_readv: its value when the
 * sample is read, a moment after the probe fired).
 */
#include <asm/perf_regs.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/event.h"
#include "luaprof/probe.h"

static const unsigned arg_regs[6] = {
	PERF_REG_X86_DI, PERF_REG_X86_SI, PERF_REG_X86_DX,
	PERF_REG_X86_CX, PERF_REG_X86_R8, PERF_REG_X86_R9,
};

static void push_usdt_args(lua_State *L, struct lp_run *run, const struct lp_usdt_probe *p)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	lua_createtable(L, p->nr_args, 0);
	for (int i = 0; i < p->nr_args; i++) {
		int64_t v;
		if (lp_usdt_arg_value(&p->args[i], s, run->live.on ? (pid_t)s->pid : 0, &v))
			continue;
		lua_pushinteger(L, (lua_Integer)v);
		lua_rawseti(L, -2, i + 1);
	}
}

void lp_probe_push_args(lua_State *L, struct lp_run *run)
{
	const struct lp_event_spec *e = run->view.spec;
	const struct lp_sample *s = &run->view.rec->u.sample;
	if (!e || (e->probe != LP_PROBE_UPROBE && e->probe != LP_PROBE_USDT)) {
		lua_pushnil(L);
		return;
	}
	if (e->probe == LP_PROBE_USDT && e->usdt) {
		push_usdt_args(L, run, e->usdt);
		return;
	}
	lua_createtable(L, 6, 0);
	for (int i = 0; i < 6; i++) {
		uint64_t v;
		if (lp_sample_reg(s, arg_regs[i], &v))
			continue;
		lua_pushinteger(L, (lua_Integer)v);
		lua_rawseti(L, -2, i + 1);
	}
}

void lp_probe_push_retval(lua_State *L, struct lp_run *run)
{
	const struct lp_event_spec *e = run->view.spec;
	uint64_t v;
	if (e && e->probe == LP_PROBE_URETPROBE &&
	    !lp_sample_reg(&run->view.rec->u.sample, PERF_REG_X86_AX, &v))
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnil(L);
}

/* The index of the leader of event i's group. */
static size_t leader_of(const struct lp_run *run, size_t i)
{
	while (i > 0 && !run->live.specs[i].group_leader && run->live.specs[i - 1].group == run->live.specs[i].group)
		i--;
	return i;
}

void lp_probe_push_values(lua_State *L, struct lp_run *run)
{
	const struct lp_event_spec *e = run->view.spec;
	const struct lp_sample *s = &run->view.rec->u.sample;
	uint64_t nr = lp_sample_group_nr(s);
	if (!e || !e->group || !nr) {
		lua_pushnil(L);
		return;
	}
	size_t lead = leader_of(run, (size_t)(e - run->live.specs));
	lua_createtable(L, 0, (int)(nr < 16 ? nr : 16));
	for (uint64_t i = 0; i < nr && lead + i < run->live.nr_specs; i++) {
		uint64_t v, id;
		const struct lp_event_spec *m = &run->live.specs[lead + i];
		if (m->group != e->group || lp_sample_group_value(s, i, &v, &id))
			break;
		lua_pushinteger(L, (lua_Integer)v);
		lua_setfield(L, -2, m->name);
	}
}

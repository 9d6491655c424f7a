// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Can SLUB's per-CPU fast paths trust this CPU? They swap a CPU's free
 * list and its generation with one 128-bit compare-and-exchange, which
 * must be atomic against an interrupt on the same CPU: an interrupt
 * that allocates from the same cache between its compare and its store
 * takes the object the interrupted task takes too, and a free list
 * breaks (docs/testbed.md, "CPU model").
 *
 * With CMPXCHG16B the kernel uses the instruction: task context and a
 * timer pinned to the same CPU both add one to a 128-bit counter with
 * it for CX_NS, and any add lost says it is not atomic here. Without
 * it the kernel emulates the operation between pushf/cli and popf, so
 * what must hold is that cli keeps interrupts off; in a Xen PV kernel
 * it does not (Xen emulates a PV kernel's cli as a no-op, its
 * interrupts being event upcalls). That is checked directly: the timer
 * must not fire inside a cli section. A run the timer never
 * interrupted says nothing, and is reported as such.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>
#include <asm/asm.h>
#include "testpeer.h"

/* Long enough for thousands of timer interrupts even under TCG. */
#define CX_NS (500 * NSEC_PER_MSEC)
#define CX_PERIOD_NS (20 * NSEC_PER_USEC)
/* The cli section's busy wait, in pause loops: milliseconds under TCG. */
#define CX_CLI_SPINS 4000000

/* 128 bits the instruction swaps at once; only the low half counts */
struct cx128 {
	u64 lo, hi;
} __aligned(16);

static struct cx128 cx_counter;
static struct hrtimer cx_timer;
static u64 cx_ticks;		/* the timer's, on the CPU under test */
static bool cx_stop, cx_add_in_tick;

/*
 * Not LOCK-prefixed, as the per-CPU form the kernel uses. On a miss the
 * instruction loads what it found into old.
 */
static bool cx_cmpxchg16b(struct cx128 *p, struct cx128 *old,
			  const struct cx128 *new)
{
	bool ok;

	asm volatile("cmpxchg16b %[mem]"
		     CC_SET(z)
		     : CC_OUT(z) (ok), [mem] "+m" (*p),
		       "+a" (old->lo), "+d" (old->hi)
		     : "b" (new->lo), "c" (new->hi)
		     : "memory");
	return ok;
}

static void cx_add(void)
{
	struct cx128 old = cx_counter, new;	/* may tear: checked */

	do {
		new.lo = old.lo + 1;
		new.hi = old.hi;
	} while (!cx_cmpxchg16b(&cx_counter, &old, &new));
}

static enum hrtimer_restart cx_tick(struct hrtimer *t)
{
	if (cx_add_in_tick)
		cx_add();
	WRITE_ONCE(cx_ticks, cx_ticks + 1);
	if (READ_ONCE(cx_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(CX_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On this CPU (preemption off): the timer, firing every CX_PERIOD_NS. */
static void cx_timer_start(bool add)
{
	cx_ticks = 0;
	cx_stop = false;
	cx_add_in_tick = add;
	hrtimer_init(&cx_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	cx_timer.function = cx_tick;
	hrtimer_start(&cx_timer, ns_to_ktime(CX_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void cx_timer_stop(void)
{
	WRITE_ONCE(cx_stop, true);
	hrtimer_cancel(&cx_timer);
}

static int cx_instruction(char *out, size_t len)
{
	u64 task = 0, total, got, end;

	cx_counter.lo = 0;
	cx_counter.hi = 0;
	cx_timer_start(true);
	end = ktime_get_ns() + CX_NS;
	while (ktime_get_ns() < end) {
		cx_add();
		task++;
	}
	cx_timer_stop();
	got = cx_counter.lo;
	total = task + cx_ticks;
	if (!cx_ticks)
		return snprintf(out, len, "noirq");
	if (got == total)
		return snprintf(out, len, "ok");
	return snprintf(out, len, "lost%llu/%llu", total - got, total);
}

/* Ticks seen inside one cli section; the kernel's emulation needs 0. */
static u64 cx_cli_section(void)
{
	u64 before, after;
	unsigned long spins = CX_CLI_SPINS;

	asm volatile("pushfq\n\t"
		     "cli\n\t"
		     "mov %[ticks], %[before]\n"
		     "1:\tpause\n\t"
		     "dec %[spins]\n\t"
		     "jnz 1b\n\t"
		     "mov %[ticks], %[after]\n\t"
		     "popfq"
		     : [before] "=&r" (before), [after] "=&r" (after),
		       [spins] "+r" (spins)
		     : [ticks] "m" (cx_ticks)
		     : "memory", "cc");
	return after - before;
}

static int cx_emulation(char *out, size_t len)
{
	u64 seen, end = ktime_get_ns() + CX_NS;

	cx_timer_start(false);
	/* the timer must be seen to fire first, or the section says nothing */
	while (!READ_ONCE(cx_ticks) && ktime_get_ns() < end)
		cpu_relax();
	seen = READ_ONCE(cx_ticks) ? cx_cli_section() : 0;
	cx_timer_stop();
	if (!cx_ticks)
		return snprintf(out, len, "noirq");
	if (!seen)
		return snprintf(out, len, "ok");
	return snprintf(out, len, "cli-unmasked%llu", seen);
}

int xfab_tp_cx_check(char *out, size_t len)
{
	int rc;

	/* one CPU for the whole run: the counter and the timer are its */
	get_cpu();
	if (boot_cpu_has(X86_FEATURE_CX16))
		rc = cx_instruction(out, len);
	else
		rc = cx_emulation(out, len);
	put_cpu();
	return rc;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The two-level budget of xfab_budget.h. */
#include "xfab_budget.h"

static const char *const budget_why_names[XFAB_BUDGET_NR] = {
	[XFAB_BUDGET_OK] = "ok",
	[XFAB_BUDGET_DEV] = "device",
	[XFAB_BUDGET_ALL] = "backend",
};

const char *xfab_budget_why_name(int why)
{
	if (why < 0 || why >= XFAB_BUDGET_NR)
		return "unknown";
	return budget_why_names[why];
}

/* Would held + n pass bound? In 64 bits: a huge n must not wrap to fit. */
static bool budget_over(u32 held, u32 n, u32 bound)
{
	return (u64)held + n > bound;
}

int xfab_budget_take(u32 *dev, u32 *all, u32 n, u32 dev_max, u32 all_max)
{
	if (!n)
		return XFAB_BUDGET_OK;	/* nothing fits even past a bound */
	if (budget_over(*dev, n, dev_max))
		return XFAB_BUDGET_DEV;
	if (budget_over(*all, n, all_max))
		return XFAB_BUDGET_ALL;
	*dev += n;
	*all += n;
	return XFAB_BUDGET_OK;
}

/* One count down by n, at 0 at the least; false if it held less. */
static bool budget_sub(u32 *held, u32 n)
{
	bool ok = *held >= n;

	*held = ok ? *held - n : 0;
	return ok;
}

bool xfab_budget_put(u32 *dev, u32 *all, u32 n)
{
	bool dev_ok = budget_sub(dev, n);
	bool all_ok = budget_sub(all, n);

	return dev_ok && all_ok;
}

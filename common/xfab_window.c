// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Read-only window index (xfab_window.h): the frame list's check, the
 * peer-frame table and its lookup. No allocation here: the caller owns
 * the arrays.
 */
#include "xfab_window.h"

int xfab_win_check_frames(const u64 *frames, u32 n, u32 *bad)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (frames[i] > XFAB_WIN_MAX_FRAME ||
		    (i && frames[i] <= frames[i - 1])) {
			*bad = i;
			return -EINVAL;
		}
	}
	return 0;
}

u32 xfab_win_slots(u32 n)
{
	u32 s = 2;

	while (s < 2ull * n) {
		if (s >= 0x80000000u)
			return 0;
		s <<= 1;
	}
	return s;
}

/*
 * Fibonacci hashing: the frame times 2^64 / phi, top bits. A PV peer's
 * frames come in long runs of consecutive numbers, which this spreads
 * evenly over the table.
 */
static u32 slot_of(const struct xfab_win *w, u64 frame)
{
	return (u32)((frame * 0x9e3779b97f4a7c15ull) >> w->shift);
}

/* Fill the peer-frame table; linear probing, the longest probe kept. */
int xfab_win_index(struct xfab_win *w)
{
	u32 i, h, d, mask = w->slots - 1, need = xfab_win_slots(w->n);

	if (!need || w->slots < need || (w->slots & mask))
		return -EINVAL;
	w->shift = 64;
	for (i = w->slots; i > 1; i >>= 1)
		w->shift--;
	w->max_probe = 0;
	for (i = 0; i < w->slots; i++)
		w->slot[i] = 0;
	for (i = 0; i < w->n; i++) {
		h = slot_of(w, w->peer[i]);
		for (d = 0; w->slot[(h + d) & mask]; d++)
			;
		w->slot[(h + d) & mask] = i + 1;
		if (d > w->max_probe)
			w->max_probe = d;
	}
	return 0;
}

int xfab_win_find_peer(const struct xfab_win *w, u64 frame, u32 *entry)
{
	u32 h, d, e, mask = w->slots - 1;

	if (!w->n || !w->slots)
		return -ENOENT;
	h = slot_of(w, frame);
	/* no entry sits further than max_probe from its home slot */
	for (d = 0; d <= w->max_probe; d++) {
		e = w->slot[(h + d) & mask];
		if (!e)
			return -ENOENT;
		if (w->peer[e - 1] == frame) {
			*entry = e - 1;
			return 0;
		}
	}
	return -ENOENT;
}

int xfab_win_span(const struct xfab_win *w, u64 frame, u32 off, u32 len,
		  u32 *entry)
{
	if (off >= XFAB_PAGE_SIZE || len > XFAB_PAGE_SIZE - off)
		return -EINVAL;
	return xfab_win_find_peer(w, frame, entry);
}

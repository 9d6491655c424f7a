// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Read-only window index (xfab_window.h): checks, the two indexes and
 * both lookups. No allocation here: the caller owns the arrays.
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

/* Heap sort of entry numbers by local frame: no recursion, no libc. */
static void sift_down(u32 *a, const u64 *key, u32 root, u32 n)
{
	u32 child, t;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && key[a[child + 1]] > key[a[child]])
			child++;
		if (key[a[root]] >= key[a[child]])
			return;
		t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
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
static int hash_peers(struct xfab_win *w)
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

int xfab_win_index(struct xfab_win *w)
{
	u32 i, t;

	for (i = 0; i < w->n; i++)
		w->by_local[i] = i;
	for (i = w->n / 2; i-- > 0;)
		sift_down(w->by_local, w->local, i, w->n);
	for (i = w->n; i-- > 1;) {
		t = w->by_local[0];
		w->by_local[0] = w->by_local[i];
		w->by_local[i] = t;
		sift_down(w->by_local, w->local, 0, i);
	}
	for (i = 1; i < w->n; i++)
		if (w->local[w->by_local[i]] == w->local[w->by_local[i - 1]])
			return -EINVAL;
	return hash_peers(w);
}

/* First position in [0, n) whose key is >= @frame (n if none). */
static u32 lower_bound(const u64 *key, const u32 *perm, u32 n, u64 frame)
{
	u32 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (key[perm[mid]] < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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

int xfab_win_find_local(const struct xfab_win *w, u64 frame, u32 *entry)
{
	u32 i = lower_bound(w->local, w->by_local, w->n, frame);

	if (i == w->n || w->local[w->by_local[i]] != frame)
		return -ENOENT;
	*entry = w->by_local[i];
	return 0;
}

int xfab_win_span(const struct xfab_win *w, u64 frame, u32 off, u32 len,
		  u32 *entry)
{
	if (off >= XFAB_PAGE_SIZE || len > XFAB_PAGE_SIZE - off)
		return -EINVAL;
	return xfab_win_find_peer(w, frame, entry);
}

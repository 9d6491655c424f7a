// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Read-only window index (xfab_window.h): checks, the reverse index and
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
	return 0;
}

/* First position in [0, n) whose key is >= @frame (n if none). */
static u32 lower_bound(const u64 *key, const u32 *perm, u32 n, u64 frame)
{
	u32 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (key[perm ? perm[mid] : mid] < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int xfab_win_find_peer(const struct xfab_win *w, u64 frame, u32 *entry)
{
	u32 i = lower_bound(w->peer, NULL, w->n, frame);

	if (i == w->n || w->peer[i] != frame)
		return -ENOENT;
	*entry = i;
	return 0;
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

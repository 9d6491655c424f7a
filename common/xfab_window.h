/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The index of a read-only window over another appliance-group member's
 * memory (the Xen of xen-patches/ lets members map each other read-only).
 * The window holds one local page per peer frame it maps. A PV peer
 * names its pages by machine frame, so the drivers look windows up both
 * ways: from a frame the peer sent to the local page mapping it, and
 * from a local page (in an skb or a bio) back to the peer's frame.
 *
 * Entries are built once, from the hypervisor's frame list of the peer,
 * and dropped whole (leave, the peer's death, unload): no per-entry
 * removal. Both lookups take constant time, since the datapath makes
 * one per slot or fragment: a peer frame through an open-addressing
 * table, a local page through a tag the window keeps in the page
 * itself (xfab_win_tag()).
 */
#ifndef XFAB_WINDOW_H
#define XFAB_WINDOW_H

#include "xfab_types.h"

/* Frames above this are not RAM on any x86-64 host (52-bit addresses). */
#define XFAB_WIN_MAX_FRAME ((1ull << 40) - 1)

struct xfab_win {
	u32 n;		/* entries */
	u64 *peer;	/* [n] the peer's frames, strictly ascending */
	u32 *slot;	/* [slots] entry + 1 of a peer frame, 0 if free */
	u32 slots;	/* a power of two, at least 2n: xfab_win_slots() */
	u32 shift;	/* 64 - log2(slots), set by xfab_win_index() */
	u32 max_probe;	/* the longest probe any entry needed, ditto */
};

/*
 * The table size a window of @n entries needs: the smallest power of two
 * at least 2n (at least 2), so that it is at most half full and a lookup
 * probes few slots. 0 when that does not fit in a u32.
 */
u32 xfab_win_slots(u32 n);

/*
 * Check a peer frame list before mapping anything: strictly ascending
 * (so no frame twice) and within XFAB_WIN_MAX_FRAME. Returns 0, or
 * -EINVAL with *bad set to the first offending index.
 */
int xfab_win_check_frames(const u64 *frames, u32 n, u32 *bad);

/*
 * Build the peer-frame table once peer[] is filled (and checked as
 * above) and slot[] has the room xfab_win_slots(n) gives (a larger power
 * of two will do). Returns -EINVAL if the table is too small.
 */
int xfab_win_index(struct xfab_win *w);

/* Entry of peer frame @frame, or -ENOENT: at most max_probe + 1 reads. */
int xfab_win_find_peer(const struct xfab_win *w, u64 frame, u32 *entry);

/*
 * May a reader take @len bytes at @off of peer frame @frame through the
 * window? The frame must be mapped and the span within its page (no
 * wrap). Returns the entry's number, or -ENOENT / -EINVAL.
 */
int xfab_win_span(const struct xfab_win *w, u64 frame, u32 off, u32 len,
		  u32 *entry);

/*
 * A window page's tag: the peer's domain id and the entry's number, in
 * one word the page carries while it maps the peer's frame (Linux: the
 * struct page's private word). The top 16 bits are a mark, so that most
 * words of pages that are not a window's decode to nothing; a word that
 * happens to carry the mark only names an entry, which the caller then
 * compares with the page it holds.
 */
#define XFAB_WIN_TAG_MARK 0xfab5ull

static inline u64 xfab_win_tag(u16 peer, u32 entry)
{
	return XFAB_WIN_TAG_MARK << 48 | (u64)peer << 32 | entry;
}

/* The peer and entry of @tag, or -ENOENT when it carries no mark. */
static inline int xfab_win_untag(u64 tag, u16 *peer, u32 *entry)
{
	if (tag >> 48 != XFAB_WIN_TAG_MARK)
		return -ENOENT;
	*peer = (u16)(tag >> 32);
	*entry = (u32)tag;
	return 0;
}

#endif /* XFAB_WINDOW_H */

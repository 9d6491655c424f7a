// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The xenbus decisions. Backend: what each frontend state asks for
 * (netif publishes its rings with Connected, blkif with Initialised), and
 * that walking step by step from any backend state reaches any reachable
 * target in a few steps, connecting only on InitWait -> Connected and
 * tearing down whenever it leaves Connected.
 */
#include "xfab_test.h"
#include "../../common/xfab_xenbus.h"

TEST(xenbus_target_netif_and_blkif)
{
	static const struct {
		int fe, ready, want;
	} t[] = {
		{ XFAB_XS_INITIALISING, XFAB_XS_CONNECTED, XFAB_XS_INITWAIT },
		{ XFAB_XS_INITIALISED, XFAB_XS_CONNECTED, XFAB_XS_INITWAIT },
		{ XFAB_XS_CONNECTED, XFAB_XS_CONNECTED, XFAB_XS_CONNECTED },
		{ XFAB_XS_INITIALISING, XFAB_XS_INITIALISED, XFAB_XS_INITWAIT },
		{ XFAB_XS_INITIALISED, XFAB_XS_INITIALISED, XFAB_XS_CONNECTED },
		{ XFAB_XS_CONNECTED, XFAB_XS_INITIALISED, XFAB_XS_CONNECTED },
		{ XFAB_XS_CLOSING, XFAB_XS_CONNECTED, XFAB_XS_CLOSING },
		{ XFAB_XS_CLOSED, XFAB_XS_INITIALISED, XFAB_XS_CLOSED },
	};
	unsigned int i;
	bool gone;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ASSERT_EQ(xfab_be_target(t[i].fe, t[i].ready, true, &gone),
			  t[i].want);
		ASSERT_FALSE(gone);
	}
}

TEST(xenbus_target_gone_and_bad)
{
	bool gone;

	ASSERT_EQ(xfab_be_target(XFAB_XS_CLOSED, XFAB_XS_CONNECTED, false,
				 &gone), XFAB_XS_CLOSED);
	ASSERT_TRUE(gone);
	ASSERT_EQ(xfab_be_target(XFAB_XS_UNKNOWN, XFAB_XS_CONNECTED, true,
				 &gone), XFAB_XS_CLOSED);
	ASSERT_TRUE(gone);
	ASSERT_EQ(xfab_be_target(XFAB_XS_INITWAIT, XFAB_XS_CONNECTED, true,
				 &gone), -1);
	ASSERT_EQ(xfab_be_target(7, XFAB_XS_CONNECTED, true, &gone), -1);
	ASSERT_EQ(xfab_be_target(-3, XFAB_XS_CONNECTED, true, &gone), -1);
}

/* Walk like the drivers do; count connects and disconnects on the way. */
static int walk(int cur, int target, int *connects, int *disconnects,
		int *steps)
{
	enum xfab_be_work w;
	int next;

	*connects = *disconnects = *steps = 0;
	while ((next = xfab_be_step(cur, target, &w)) != cur) {
		if (w == XFAB_BE_CONNECT) {
			(*connects)++;
			if (cur != XFAB_XS_INITWAIT || next != XFAB_XS_CONNECTED)
				return -1;
		}
		if (w == XFAB_BE_DISCONNECT) {
			(*disconnects)++;
			if (cur != XFAB_XS_CONNECTED)
				return -1;
		}
		cur = next;
		if (++*steps > 4)
			return -1;
	}
	return cur;
}

TEST(xenbus_step_reaches_targets)
{
	static const int be[] = { XFAB_XS_INITWAIT, XFAB_XS_CONNECTED,
				  XFAB_XS_CLOSING, XFAB_XS_CLOSED };
	int c, d, n;
	unsigned int i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++) {
			int end = walk(be[i], be[j], &c, &d, &n);

			/* Closed does not go back to Closing: it stays. */
			if (be[i] == XFAB_XS_CLOSED && be[j] == XFAB_XS_CLOSING)
				ASSERT_EQ(end, XFAB_XS_CLOSED);
			else
				ASSERT_EQ(end, be[j]);
			ASSERT_EQ(c, be[j] == XFAB_XS_CONNECTED &&
				     be[i] != XFAB_XS_CONNECTED);
			ASSERT_EQ(d, be[i] == XFAB_XS_CONNECTED &&
				     be[j] != XFAB_XS_CONNECTED);
		}
	}
	/* Connected -> InitWait is the long way round. */
	ASSERT_EQ(walk(XFAB_XS_CONNECTED, XFAB_XS_INITWAIT, &c, &d, &n),
		  XFAB_XS_INITWAIT);
	ASSERT_EQ(n, 3);
	/* Closing is not left for Connected without passing Closed/InitWait. */
	ASSERT_EQ(walk(XFAB_XS_CLOSING, XFAB_XS_CONNECTED, &c, &d, &n),
		  XFAB_XS_CONNECTED);
	ASSERT_EQ(n, 3);
}

TEST(xenbus_step_stays_put_where_it_must)
{
	enum xfab_be_work w;

	ASSERT_EQ(xfab_be_step(XFAB_XS_INITWAIT, XFAB_XS_INITIALISING, &w),
		  XFAB_XS_INITWAIT);
	ASSERT_EQ(xfab_be_step(XFAB_XS_CLOSED, XFAB_XS_CLOSING, &w),
		  XFAB_XS_CLOSED);
	ASSERT_EQ(xfab_be_step(XFAB_XS_INITIALISING, XFAB_XS_CONNECTED, &w),
		  XFAB_XS_INITIALISING);
	ASSERT_EQ(w, XFAB_BE_PUBLISH);
}

/*
 * The frontend half. A backend's states in order, each with the work and
 * the state the frontend must answer with, from Initialising; the walk
 * publishes as the drivers do (Closed first when asked, then the rest).
 */
struct fe_seen {
	int be;
	enum xfab_fe_work work;
	int closes, now;	/* Closed published, state after */
};

/* The index of the first step that differs from s, or -1. */
static int fe_walk(const struct fe_seen *s, unsigned int n, int ready,
		   bool online)
{
	enum xfab_fe_work w;
	int cur = XFAB_XS_INITIALISING;
	unsigned int i;
	bool close;

	for (i = 0; i < n; i++) {
		cur = xfab_fe_step(s[i].be, cur, ready, online, &w, &close);
		if (w != s[i].work || close != !!s[i].closes ||
		    cur != s[i].now) {
			fprintf(stderr, "  step %u: work %d close %d state %d\n",
				i, w, close, cur);
			return (int)i;
		}
	}
	return -1;
}

TEST(fe_step_netif_backend_reload)
{
	static const struct fe_seen s[] = {
		{ XFAB_XS_INITWAIT, XFAB_FE_CONNECT, 0, XFAB_XS_CONNECTED },
		{ XFAB_XS_CONNECTED, XFAB_FE_REFRESH, 0, XFAB_XS_CONNECTED },
		/* a backend rebinding to our rings: left alone */
		{ XFAB_XS_INITWAIT, XFAB_FE_NOTHING, 0, XFAB_XS_CONNECTED },
		{ XFAB_XS_CLOSING, XFAB_FE_HOLD, 1, XFAB_XS_CLOSED },
		{ XFAB_XS_CLOSED, XFAB_FE_HOLD, 0, XFAB_XS_INITIALISING },
		{ XFAB_XS_CLOSED, XFAB_FE_NOTHING, 0, XFAB_XS_INITIALISING },
		{ XFAB_XS_INITWAIT, XFAB_FE_CONNECT, 0, XFAB_XS_CONNECTED },
	};

	ASSERT_EQ(fe_walk(s, sizeof(s) / sizeof(s[0]), XFAB_XS_CONNECTED, true),
		  -1);
}

TEST(fe_step_blkif_connect_resize_detach)
{
	static const struct fe_seen s[] = {
		{ XFAB_XS_CONNECTED, XFAB_FE_NOTHING, 0, XFAB_XS_INITIALISING },
		{ XFAB_XS_INITWAIT, XFAB_FE_CONNECT, 0, XFAB_XS_INITIALISED },
		{ XFAB_XS_INITWAIT, XFAB_FE_NOTHING, 0, XFAB_XS_INITIALISED },
		{ XFAB_XS_CONNECTED, XFAB_FE_GO_LIVE, 0, XFAB_XS_CONNECTED },
		{ XFAB_XS_CONNECTED, XFAB_FE_REFRESH, 0, XFAB_XS_CONNECTED },
		{ XFAB_XS_CLOSING, XFAB_FE_DETACH, 1, XFAB_XS_CLOSED },
		/* detached: Closed stays Closed */
		{ XFAB_XS_CLOSED, XFAB_FE_DETACH, 0, XFAB_XS_CLOSED },
	};

	ASSERT_EQ(fe_walk(s, sizeof(s) / sizeof(s[0]), XFAB_XS_INITIALISED,
			  false), -1);
}

TEST(fe_step_coalesced_watch_and_waiting)
{
	enum xfab_fe_work w;
	bool close;

	/* Closing then InitWait seen with Closed coalesced away */
	ASSERT_EQ(xfab_fe_step(XFAB_XS_INITWAIT, XFAB_XS_CLOSED,
			       XFAB_XS_INITIALISED, true, &w, &close),
		  XFAB_XS_INITIALISED);
	ASSERT_EQ(w, XFAB_FE_CONNECT);
	/* a backend that goes before we connected, device online */
	ASSERT_EQ(xfab_fe_step(XFAB_XS_CLOSING, XFAB_XS_INITIALISING,
			       XFAB_XS_CONNECTED, true, &w, &close),
		  XFAB_XS_INITIALISING);
	ASSERT_EQ(w, XFAB_FE_NOTHING);
	ASSERT_FALSE(close);
	/* ... and the same detached */
	ASSERT_EQ(xfab_fe_step(XFAB_XS_CLOSED, XFAB_XS_INITIALISING,
			       XFAB_XS_CONNECTED, false, &w, &close),
		  XFAB_XS_CLOSED);
	ASSERT_EQ(w, XFAB_FE_DETACH);
	ASSERT_TRUE(close);
}

/* Every backend value, sane or not, from every state: rules that hold. */
TEST(fe_step_any_input)
{
	static const int ready[] = { XFAB_XS_CONNECTED, XFAB_XS_INITIALISED };
	enum xfab_fe_work w;
	int be, cur, next;
	unsigned int r, on;
	bool close;

	for (r = 0; r < 2; r++)
	for (on = 0; on < 2; on++)
	for (be = -2; be <= 9; be++)
	for (cur = XFAB_XS_INITIALISING; cur <= XFAB_XS_CLOSED; cur++) {
		next = xfab_fe_step(be, cur, ready[r], on, &w, &close);
		ASSERT_GE(next, XFAB_XS_INITIALISING);
		ASSERT_LE(next, XFAB_XS_CLOSED);
		if (be < XFAB_XS_INITWAIT || be > XFAB_XS_CLOSED ||
		    be == XFAB_XS_INITIALISED) {
			ASSERT_EQ(w, XFAB_FE_NOTHING);
			ASSERT_EQ(next, cur);
		}
		if (w == XFAB_FE_NOTHING || w == XFAB_FE_REFRESH)
			ASSERT_EQ(next, cur);
		if (close)
			ASSERT_TRUE(w == XFAB_FE_HOLD || w == XFAB_FE_DETACH);
		ASSERT_FALSE(close && cur == XFAB_XS_CLOSED);
		/* only a device still online waits for another backend */
		if (w == XFAB_FE_DETACH)
			ASSERT_EQ(next, XFAB_XS_CLOSED);
		if (w == XFAB_FE_CONNECT)
			ASSERT_EQ(next, ready[r]);
		if (next == XFAB_XS_CONNECTED && cur != XFAB_XS_CONNECTED)
			ASSERT_TRUE(w == XFAB_FE_CONNECT ||
				    w == XFAB_FE_GO_LIVE);
	}
}

/*
 * A scripted frontend directory for xfab_ring_refs_read(): each key has
 * up to four answers given in turn (the last repeats), so a key can
 * change between two reads, as a hostile frontend can make it. An answer
 * is a number, ABSENT or JUNK. Every read is counted per key.
 */
#define ABSENT (-1LL)
#define JUNK (-2LL)
struct fake_key {
	const char *name;
	long long answers[4];
	unsigned int nr_answers, reads;
};
struct fake_dir {
	struct fake_key keys[20];
	unsigned int nr;
};

static struct fake_key *fake_find(struct fake_dir *d, const char *key)
{
	unsigned int i;

	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->keys[i].name, key))
			return &d->keys[i];
	return NULL;
}

static int fake_read(void *ctx, const char *key, u32 *val)
{
	struct fake_key *k = fake_find(ctx, key);
	long long a;

	if (!k)
		return 0;
	a = k->answers[k->reads < k->nr_answers ? k->reads : k->nr_answers - 1];
	k->reads++;
	if (a == ABSENT)
		return 0;
	if (a == JUNK)
		return -EINVAL;
	*val = (u32)a;
	return 1;
}

static void fake_set(struct fake_dir *d, const char *name, long long a0,
		     long long a1)
{
	struct fake_key *k = &d->keys[d->nr++];

	k->name = name;
	k->answers[0] = a0;
	k->answers[1] = a1;
	k->nr_answers = 2;
	k->reads = 0;
}

static const char *const ref_keys[16] = {
	"ring-ref0", "ring-ref1", "ring-ref2", "ring-ref3", "ring-ref4",
	"ring-ref5", "ring-ref6", "ring-ref7", "ring-ref8", "ring-ref9",
	"ring-ref10", "ring-ref11", "ring-ref12", "ring-ref13", "ring-ref14",
	"ring-ref15",
};

/* refs[] starts as garbage: what the function leaves must be its own. */
static int refs_read(struct fake_dir *root, struct fake_dir *dir, u32 max,
		     u32 *refs, u32 *nr, const char **why)
{
	struct xfab_kv r = { fake_read, root }, d = { fake_read, dir };
	unsigned int i;

	for (i = 0; i < 16; i++)
		refs[i] = 0xdeadbeef;
	*nr = 99;
	*why = NULL;
	return xfab_ring_refs_read(&r, &d, max, refs, nr, why);
}

TEST(ring_refs_single_and_multi_page)
{
	struct fake_dir root = { .nr = 0 }, dir = { .nr = 0 };
	const char *why;
	u32 refs[16], nr, i;

	fake_set(&dir, "ring-ref", 8, 8);
	ASSERT_EQ(refs_read(&root, &dir, 4, refs, &nr, &why), 0);
	ASSERT_EQ(nr, 1);
	ASSERT_EQ(refs[0], 8);
	ASSERT_EQ(refs[1], 0);

	fake_set(&root, "ring-page-order", 2, 2);
	for (i = 0; i < 4; i++)
		fake_set(&dir, ref_keys[i], 100 + i, 100 + i);
	ASSERT_EQ(refs_read(&root, &dir, 4, refs, &nr, &why), 0);
	ASSERT_EQ(nr, 4);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(refs[i], 100 + i);
	for (; i < 16; i++)
		ASSERT_EQ(refs[i], 0);
	ASSERT_EQ(fake_find(&root, "ring-page-order")->reads, 1);
}

TEST(ring_refs_hostile_keys)
{
	struct fake_dir root = { .nr = 0 }, dir = { .nr = 0 };
	const char *why;
	u32 refs[16], nr, i;

	/* order above what we offer, and junk */
	fake_set(&root, "ring-page-order", 3, 3);
	for (i = 0; i < 8; i++)
		fake_set(&dir, ref_keys[i], 1, 1);
	ASSERT_EQ(refs_read(&root, &dir, 2, refs, &nr, &why), -EINVAL);
	ASSERT_TRUE(why != NULL);
	root.keys[0].answers[0] = root.keys[0].answers[1] = JUNK;
	root.keys[0].reads = 0;
	ASSERT_EQ(refs_read(&root, &dir, 4, refs, &nr, &why), -EINVAL);
	ASSERT_EQ(nr, 0);
	/* a ref missing half way: nothing half-filled is left behind */
	root.keys[0].answers[0] = root.keys[0].answers[1] = 3;
	dir.keys[5].answers[0] = dir.keys[5].answers[1] = ABSENT;
	ASSERT_EQ(refs_read(&root, &dir, 4, refs, &nr, &why), -EINVAL);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(refs[i], 0);
	/* no order key and no ring-ref */
	root.nr = 0;
	ASSERT_EQ(refs_read(&root, &dir, 4, refs, &nr, &why), -EINVAL);
}

/*
 * The TOCTOU of XSA-class "read twice": ring-page-order says 2, then
 * vanishes on the next read (and the other way round). Whatever the
 * function decides, every ref it returns must have been read from a
 * key, none left as it was, and the order key read once.
 */
TEST(ring_refs_order_changes_between_reads)
{
	static const long long flips[2][2] = { { 2, ABSENT }, { ABSENT, 2 } };
	const char *why;
	u32 refs[16], nr, i, f;

	for (f = 0; f < 2; f++) {
		struct fake_dir root = { .nr = 0 }, dir = { .nr = 0 };
		int rc;

		fake_set(&root, "ring-page-order", flips[f][0], flips[f][1]);
		fake_set(&dir, "ring-ref", 7, 7);
		for (i = 0; i < 4; i++)
			fake_set(&dir, ref_keys[i], 200 + i, 200 + i);
		rc = refs_read(&root, &dir, 4, refs, &nr, &why);
		ASSERT_EQ(rc, 0);
		ASSERT_EQ(fake_find(&root, "ring-page-order")->reads, 1);
		ASSERT_EQ(nr, flips[f][0] == 2 ? 4 : 1);
		for (i = 0; i < nr; i++)
			ASSERT_EQ(refs[i], nr == 1 ? 7 : 200 + i);
		for (i = 0; i < 16; i++)
			ASSERT_NE(refs[i], 0xdeadbeef);
	}
}

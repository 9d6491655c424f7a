// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What reading a peer's page through a window costs against a grant copy
 * of the same bytes: the testbed's microbenchmark (scenario 402).
 *
 *   offer  the owner writes "DOMID NPAGES": NPAGES pages, filled,
 *          granted read-only to DOMID; reading it gives "gref:frame"
 *          pairs. A new offer replaces the last.
 *   bench  the reader writes "PEER ROUNDS gref:frame ...": each round
 *          grant-copies every page into a buffer (one batch), then
 *          copies the same frames out of its window over PEER (found
 *          through xfab_wn_page(), as a driver would); reading it gives
 *          "pages N rounds R copy_ns X window_ns Y equal E",
 *          nanoseconds per page, E 1 if both read the same bytes.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/uaccess.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include "probe.h"

#define MAX_PAGES 256

static struct {
	unsigned int n;
	u16 to;
	struct page *page[MAX_PAGES];
	grant_ref_t ref[MAX_PAGES];
} offer;
static DEFINE_MUTEX(offer_lock);

static void offer_end(void)
{
	while (offer.n--) {
		/* frees the page once the peer holds no mapping of it */
		gnttab_end_foreign_access(offer.ref[offer.n], offer.page[offer.n]);
	}
	offer.n = 0;
}

static int offer_make(u16 to, unsigned int n)
{
	unsigned int i, j;
	int ref;

	offer_end();
	for (i = 0; i < n; i++) {
		u8 *p;

		offer.page[i] = alloc_page(GFP_KERNEL);
		if (!offer.page[i])
			return -ENOMEM;
		p = page_address(offer.page[i]);
		for (j = 0; j < XFAB_PAGE_SIZE; j++)
			p[j] = (u8)(i * 31 + j);
		ref = gnttab_grant_foreign_access(to, xen_page_to_gfn(offer.page[i]), 1);
		if (ref < 0) {
			__free_page(offer.page[i]);
			return ref;
		}
		offer.ref[i] = ref;
		offer.n = i + 1;
	}
	offer.to = to;
	return 0;
}

ssize_t wnprobe_offer_write(const char __user *ubuf, size_t len)
{
	unsigned int to, n;
	char buf[32];
	int rc;

	if (!len || len >= sizeof(buf) || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &to, &n) != 2 || !n || n > MAX_PAGES ||
	    to >= DOMID_FIRST_RESERVED)
		return -EINVAL;
	mutex_lock(&offer_lock);
	rc = offer_make((u16)to, n);
	if (rc)
		offer_end();
	mutex_unlock(&offer_lock);
	return rc ? rc : len;
}

/* "gref:frame" pairs of the current offer; *len gets the text's length. */
char *wnprobe_offer_text(size_t *len)
{
	size_t cap = MAX_PAGES * 32 + 2, at = 0;
	char *s = kmalloc(cap, GFP_KERNEL);
	unsigned int i;

	if (!s)
		return NULL;
	mutex_lock(&offer_lock);
	for (i = 0; i < offer.n; i++)
		at += scnprintf(s + at, cap - at, "%s%u:%llu", i ? " " : "",
				offer.ref[i],
				(u64)xen_page_to_gfn(offer.page[i]));
	mutex_unlock(&offer_lock);
	at += scnprintf(s + at, cap - at, "\n");
	*len = at;
	return s;
}

void wnprobe_offer_exit(void)
{
	mutex_lock(&offer_lock);
	offer_end();
	mutex_unlock(&offer_lock);
}

struct bench_job {
	unsigned int n, rounds;
	grant_ref_t ref[MAX_PAGES];
	u64 frame[MAX_PAGES];
};

static int parse_job(char *s, struct bench_job *job)
{
	char *tok;
	unsigned int ref;
	unsigned long long frame;

	s = strim(s);	/* echo's newline */
	tok = strsep(&s, " ");
	if (!tok || kstrtouint(tok, 10, &job->rounds) || !job->rounds ||
	    job->rounds > 10000)
		return -EINVAL;
	job->n = 0;
	while ((tok = strsep(&s, " ")) && job->n < MAX_PAGES) {
		if (!*tok)
			continue;
		if (sscanf(tok, "%u:%llu", &ref, &frame) != 2)
			return -EINVAL;
		job->ref[job->n] = ref;
		job->frame[job->n++] = frame;
	}
	return job->n ? 0 : -EINVAL;
}

/* One round of grant copies, all pages in one batch, into @dst. */
static int copy_round(const struct bench_job *job, u16 peer, u8 *dst,
		      struct gnttab_copy *op)
{
	unsigned int i;

	for (i = 0; i < job->n; i++) {
		memset(&op[i], 0, sizeof(op[i]));
		op[i].source.u.ref = job->ref[i];
		op[i].source.domid = peer;
		op[i].flags = GNTCOPY_source_gref;
		op[i].dest.u.gmfn = virt_to_gfn(dst + i * XFAB_PAGE_SIZE);
		op[i].dest.domid = DOMID_SELF;
		op[i].len = XFAB_PAGE_SIZE;
	}
	gnttab_batch_copy(op, job->n);
	for (i = 0; i < job->n; i++)
		if (op[i].status != GNTST_okay)
			return -EIO;
	return 0;
}

/* The window's pages of the job's frames, or -ENOENT (not in it). */
static int window_pages(struct xfab_wn *wn, const struct bench_job *job,
			struct page **pg)
{
	unsigned int i;

	for (i = 0; i < job->n; i++) {
		pg[i] = xfab_wn_page(wn, job->frame[i], 0, XFAB_PAGE_SIZE);
		if (!pg[i])
			return -ENOENT;
	}
	return 0;
}

int wnprobe_bench(struct xfab_wn *wn, char *text, char *out, size_t outlen)
{
	struct bench_job *job = kzalloc(sizeof(*job), GFP_KERNEL);
	struct gnttab_copy *op = NULL;
	struct page **pg = NULL;
	u8 *a = NULL, *b = NULL;
	u64 t0, t_copy = 0, t_win = 0;
	unsigned int r, i;
	int rc = -ENOMEM, equal;

	if (!job)
		return -ENOMEM;
	rc = parse_job(text, job);
	if (rc)
		goto out;
	rc = -ENOMEM;
	op = kcalloc(job->n, sizeof(*op), GFP_KERNEL);
	pg = kcalloc(job->n, sizeof(*pg), GFP_KERNEL);
	/* page-aligned buffers: each grant copy lands in one page */
	a = (u8 *)__get_free_pages(GFP_KERNEL, get_order(job->n * XFAB_PAGE_SIZE));
	b = (u8 *)__get_free_pages(GFP_KERNEL, get_order(job->n * XFAB_PAGE_SIZE));
	if (!op || !pg || !a || !b)
		goto out;
	rc = window_pages(wn, job, pg);
	if (rc)
		goto out;
	for (r = 0; r < job->rounds; r++) {
		t0 = ktime_get_ns();
		rc = copy_round(job, wn->peer, a, op);
		t_copy += ktime_get_ns() - t0;
		if (rc)
			goto out;
		t0 = ktime_get_ns();
		for (i = 0; i < job->n; i++)
			memcpy(b + i * XFAB_PAGE_SIZE, page_address(pg[i]),
			       XFAB_PAGE_SIZE);
		t_win += ktime_get_ns() - t0;
		cond_resched();
	}
	equal = !memcmp(a, b, job->n * XFAB_PAGE_SIZE);
	scnprintf(out, outlen, "pages %u rounds %u copy_ns %llu window_ns %llu equal %d\n",
		  job->n, job->rounds, t_copy / ((u64)job->n * job->rounds),
		  t_win / ((u64)job->n * job->rounds), equal);
	rc = 0;
out:
	if (a)
		free_pages((unsigned long)a, get_order(job->n * XFAB_PAGE_SIZE));
	if (b)
		free_pages((unsigned long)b, get_order(job->n * XFAB_PAGE_SIZE));
	kfree(pg);
	kfree(op);
	kfree(job);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * xfab-peek: the appliance-group scenarios' probe, run in domUs.
 *
 *   xfab-peek plant TOKEN KIB   fill KIB KiB of locked memory with pages
 *                               that start "TOKEN <n>" and go on with
 *                               pattern n (below), say so, then wait
 *   xfab-peek scan DOM TOKEN    list DOM's frames (the group domctl), map
 *                               them all read-only, count the pages that
 *                               start with TOKEN and those whose pattern
 *                               is intact; one "scan ..." line
 *   xfab-peek map DOM MFN ro|rw [TOKEN]
 *                               map one frame naming DOM as its owner;
 *                               prints "map ro ok" or "map rw refused
 *                               <errno>", and so on; with TOKEN also
 *                               "token seen" or "token not seen"
 *   xfab-peek find DOM TOKEN    (control domain) the frame of DOM's first
 *                               planted page: "found MFN" or "not found"
 *   xfab-peek hold DOM MFN SECS map one frame read-only, say "held", keep
 *                               it mapped for SECS seconds (or until
 *                               killed), then unmap: a member pinning
 *                               another's memory
 *   xfab-peek join DOM GROUP    the group domctl's join, raw: what the
 *                               hypervisor answers, without xfabctl's
 *                               own checks ("join ok", "join refused N")
 *
 * Prints what happened and leaves the verdict to the scenario.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xenforeignmemory.h>
#include "../../../toolstack/xfab-group-abi.h"
#include "../../../common/xfab_plant.h"

#define PAGE 4096UL
#define BATCH XFAB_GROUP_MAX_FRAMES

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int plant(const char *token, unsigned long kib)
{
	unsigned long i, n = kib * 1024 / PAGE;
	char *buf = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);

	if (buf == MAP_FAILED) {
		perror("xfab-peek: mmap");
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(buf + i * PAGE, XFAB_PLANT_HEAD, "%s %lu", token, i);
		xfab_plant_fill((u8 *)buf + i * PAGE, i);
	}
	printf("planted %lu pages\n", n);
	fflush(stdout);
	for (;;)
		pause();
}

/* All of DOM's frames, through the group domctl; NULL on refusal. */
static uint64_t *list_frames(xencall_handle *xc, uint32_t dom, size_t *count)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_FRAMES };
	struct xfab_domctl *dc = xencall_alloc_buffer(xc, sizeof(*dc));
	uint64_t *buf = xencall_alloc_buffer(xc, BATCH * sizeof(*buf));
	uint64_t *all = NULL;
	size_t n = 0;
	int rc;

	if (!dc || !buf)
		return NULL;
	while (op.start != XFAB_GROUP_END) {
		op.nr = BATCH;
		op.frames = (uint64_t)(uintptr_t)buf;
		rc = xfab_group_call(xc, dc, dom, &op);
		if (rc) {
			printf("frames refused %d (%s)\n", -rc, strerror(-rc));
			free(all);
			return NULL;
		}
		all = realloc(all, (n + op.nr + 1) * sizeof(*all));
		if (!all)
			return NULL;
		memcpy(all + n, buf, op.nr * sizeof(*buf));
		n += op.nr;
	}
	*count = n;
	return all;
}

/* Does the page at VA start with TOKEN and a space, as planted? */
static bool planted(const char *va, const char *token)
{
	size_t tl = strlen(token);

	return !memcmp(va, token, tl) && va[tl] == ' ';
}

/*
 * Map all of DOM's frames read-only, in batches, and look at each page:
 * print one "scan ..." line, or, with first, stop at the first page
 * that starts with TOKEN and print "found MFN" ("not found" if none).
 */
static int scan(uint32_t dom, const char *token, bool first)
{
	xencall_handle *xc = xencall_open(NULL, 0);
	xenforeignmemory_handle *fm = xenforeignmemory_open(NULL, 0);
	size_t n = 0, i, j, k, found = 0, good = 0, failed = 0, mapped = 0;
	size_t tl = strlen(token);
	double t0, t_map = 0;
	uint64_t *frames, hit = 0;
	xen_pfn_t pfns[BATCH];
	int err[BATCH];

	if (!xc || !fm) {
		perror("xfab-peek: open");
		return 1;
	}
	frames = list_frames(xc, dom, &n);
	if (!frames)
		return 0;
	for (i = 0; i < n && !(first && found); i += k) {
		char *va;

		k = n - i < BATCH ? n - i : BATCH;
		for (j = 0; j < k; j++)
			pfns[j] = frames[i + j];
		t0 = now_ms();
		va = xenforeignmemory_map(fm, dom, PROT_READ, k, pfns, err);
		t_map += now_ms() - t0;
		if (!va) {
			failed += k;
			continue;
		}
		for (j = 0; j < k && !(first && found); j++) {
			if (err[j]) {
				failed++;
				continue;
			}
			mapped++;
			if (planted(va + j * PAGE, token)) {
				found++;
				hit = frames[i + j];
				good += xfab_plant_intact((const u8 *)va + j * PAGE,
							  strtoul(va + j * PAGE + tl + 1, NULL, 10));
			}
		}
		xenforeignmemory_unmap(fm, va, k);
	}
	if (!first)
		printf("scan frames %zu mapped %zu failed %zu found %zu good %zu map_ms %.0f\n",
		       n, mapped, failed, found, good, t_map);
	else if (found)
		printf("found %llu\n", (unsigned long long)hit);
	else
		printf("not found\n");
	free(frames);
	return 0;
}

static int hold(uint32_t dom, uint64_t mfn, unsigned int secs)
{
	xenforeignmemory_handle *fm = xenforeignmemory_open(NULL, 0);
	xen_pfn_t pfn = mfn;
	int err = 0;
	void *va;

	if (!fm) {
		perror("xfab-peek: open");
		return 1;
	}
	va = xenforeignmemory_map(fm, dom, PROT_READ, 1, &pfn, &err);
	if (!va || err) {
		printf("hold refused %d\n", abs(err ? err : errno));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	sleep(secs);
	xenforeignmemory_unmap(fm, va, 1);
	return 0;
}

static int join(uint32_t dom, uint32_t group)
{
	xencall_handle *xc = xencall_open(NULL, 0);
	struct xfab_domctl *dc = xc ? xencall_alloc_buffer(xc, sizeof(*dc)) : NULL;
	struct xfab_group_op op = { .op = XFAB_GROUP_JOIN, .group = group };
	int rc;

	if (!dc) {
		perror("xfab-peek: open");
		return 1;
	}
	rc = xfab_group_call(xc, dc, dom, &op);
	if (rc)
		printf("join refused %d (%s)\n", -rc, strerror(-rc));
	else
		printf("join ok\n");
	return 0;
}

static int map_one(uint32_t dom, uint64_t mfn, const char *mode,
		   const char *token)
{
	xenforeignmemory_handle *fm = xenforeignmemory_open(NULL, 0);
	int rw = !strcmp(mode, "rw"), err = 0;
	xen_pfn_t pfn = mfn;
	void *va;

	if (!fm) {
		perror("xfab-peek: open");
		return 1;
	}
	va = xenforeignmemory_map(fm, dom, PROT_READ | (rw ? PROT_WRITE : 0),
				  1, &pfn, &err);
	if (va && !err) {
		printf("map %s ok\n", mode);
		if (token)
			printf("token %s\n", planted(va, token) ? "seen" : "not seen");
		xenforeignmemory_unmap(fm, va, 1);
	} else {
		err = err ? err : errno;
		printf("map %s refused %d (%s)\n", mode, abs(err), strerror(abs(err)));
		if (va)
			xenforeignmemory_unmap(fm, va, 1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "plant"))
		return plant(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "scan"))
		return scan((uint32_t)strtoul(argv[2], NULL, 10), argv[3], false);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "map") &&
	    (!strcmp(argv[4], "ro") || !strcmp(argv[4], "rw")))
		return map_one((uint32_t)strtoul(argv[2], NULL, 10),
			       strtoull(argv[3], NULL, 0), argv[4],
			       argc == 6 ? argv[5] : NULL);
	if (argc == 4 && !strcmp(argv[1], "find"))
		return scan((uint32_t)strtoul(argv[2], NULL, 10), argv[3], true);
	if (argc == 5 && !strcmp(argv[1], "hold"))
		return hold((uint32_t)strtoul(argv[2], NULL, 10),
			    strtoull(argv[3], NULL, 0),
			    (unsigned int)strtoul(argv[4], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "join"))
		return join((uint32_t)strtoul(argv[2], NULL, 10),
			    (uint32_t)strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: xfab-peek plant TOKEN KIB | scan DOM TOKEN | map DOM MFN ro|rw [TOKEN]\n"
		"       xfab-peek find DOM TOKEN | hold DOM MFN SECS | join DOM GROUP\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab-records: numbered, self-checking 4 KiB records on a raw disk, for
 * the durability scenario.
 *
 *   xfab-records write DEV SEED       record 0, 1, 2, ... until killed
 *   xfab-records check DEV SEED N     records 0..N must all be intact
 *
 * write puts record i at byte offset i * 4096 with O_DIRECT, calls
 * fdatasync(), and only then prints "ack i" (line-buffered): a record the
 * caller saw acknowledged was, by the disk's promise, stable. The
 * scenario destroys the guest mid-stream and runs check in dom0 over
 * every acknowledged record. A record holds a magic, its number, the
 * seed, a payload derived from both, and an FNV-1a hash of all that; check
 * names the first record that is missing, stale or torn.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REC 4096
#define MAGIC 0x3143455242414658ULL	/* "XFABREC1" little-endian */

struct rec_head {
	uint64_t magic, seq, seed, hash;
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Record seq's expected bytes (hash field included). */
static void rec_fill(uint8_t *buf, uint64_t seq, uint64_t seed)
{
	struct rec_head *h = (struct rec_head *)buf;
	uint64_t x = seed ^ (seq * 0x9e3779b97f4a7c15ULL) ^ 1;
	size_t i;

	for (i = sizeof(*h); i + 8 <= REC; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	h->magic = MAGIC;
	h->seq = seq;
	h->seed = seed;
	h->hash = 0;
	h->hash = fnv1a(buf, REC);
}

static int do_write(const char *dev, uint64_t seed)
{
	uint8_t *buf;
	uint64_t seq;
	int fd;

	fd = open(dev, O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, REC, REC)) {
		fprintf(stderr, "xfab-records: %s: %s\n", dev, strerror(errno));
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (seq = 0;; seq++) {
		rec_fill(buf, seq, seed);
		if (pwrite(fd, buf, REC, (off_t)(seq * REC)) != REC ||
		    fdatasync(fd)) {
			/* The end of the disk, or the disk went away. */
			fprintf(stderr, "xfab-records: record %llu: %s\n",
				(unsigned long long)seq, strerror(errno));
			return 1;
		}
		printf("ack %llu\n", (unsigned long long)seq);
	}
}

static int do_check(const char *dev, uint64_t seed, uint64_t last)
{
	uint8_t *buf, *want;
	uint64_t seq;
	int fd;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, REC, REC) ||
	    posix_memalign((void **)&want, REC, REC)) {
		fprintf(stderr, "xfab-records: %s: %s\n", dev, strerror(errno));
		return 2;
	}
	for (seq = 0; seq <= last; seq++) {
		if (pread(fd, buf, REC, (off_t)(seq * REC)) != REC) {
			printf("bad %llu: unreadable: %s\n",
			       (unsigned long long)seq, strerror(errno));
			return 1;
		}
		rec_fill(want, seq, seed);
		if (memcmp(buf, want, REC)) {
			const struct rec_head *h = (const struct rec_head *)buf;

			printf("bad %llu: %s\n", (unsigned long long)seq,
			       h->magic != MAGIC ? "no record (lost)" :
			       h->seq != seq || h->seed != seed ?
			       "another record (stale)" : "damaged (torn)");
			return 1;
		}
	}
	printf("ok %llu records\n", (unsigned long long)last + 1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "check"))
		return do_check(argv[2], strtoull(argv[3], NULL, 0),
				strtoull(argv[4], NULL, 0));
	fprintf(stderr, "usage: xfab-records write DEV SEED | check DEV SEED LAST\n");
	return 2;
}

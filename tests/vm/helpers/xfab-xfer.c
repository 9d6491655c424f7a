// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab-xfer: a TCP transfer with end-to-end checksums, for the testbed.
 *
 *   xfab-xfer send HOST PORT BYTES SEED   stream BYTES of seeded data
 *   xfab-xfer recv PORT                   accept one stream, read to EOF
 *   xfab-xfer gen BYTES SEED              the same data to stdout
 *
 * Every mode prints one line "bytes=N sha256=HEX secs=S mbit=M" (to stderr
 * for gen, to stdout otherwise): the scenario compares the sender's and
 * the receiver's line. A stream that makes no progress for XFER_IDLE
 * seconds (environment, default 60) ends with "stalled" on stderr and
 * exit status 3, so that a scenario fails with diagnostics instead of
 * waiting out its whole time limit on a dead connection. The data is a
 * xorshift stream, so no side needs to store it and both ends can
 * regenerate it from the seed.
 *
 * SHA-256 is implemented here (FIPS 180-4); its round constants are
 * derived at start-up from the primes, and `xfab-xfer gen` piped into the
 * system's sha256sum checks the implementation in every run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len;
	unsigned int fill;
};

static uint32_t K[64], H0[8];

/* First 32 bits of the fractional part of x. */
static uint32_t frac32(long double x)
{
	return (uint32_t)((x - floorl(x)) * 4294967296.0L);
}

static void sha_constants(void)
{
	int n = 0, p;

	for (p = 2; n < 64; p++) {
		int d, prime = 1;

		for (d = 2; d * d <= p; d++)
			if (p % d == 0)
				prime = 0;
		if (!prime)
			continue;
		if (n < 8)
			H0[n] = frac32(sqrtl(p));
		K[n++] = frac32(cbrtl(p));
	}
}

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/*
 * One round with the working variables named by position instead of
 * shifted: each round would otherwise move seven words, and under TCG
 * (where the interop scenarios hash 256 MiB at each end) the hash is what
 * limits the transfer rate.
 */
#define SHA_ROUND(a, b, c, d, e, f, g, h, i)                                  \
	do {                                                                  \
		uint32_t t1_ = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +    \
			       (g ^ (e & (f ^ g))) + K[i] + w[(i) & 15];      \
		h = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +                   \
		    ((a & b) | (c & (a | b)));                                \
		d += t1_;                                                     \
		h += t1_;                                                     \
	} while (0)

/* The message schedule kept as a 16-word ring: w[i & 15] becomes w[i]. */
static uint32_t sha_w(uint32_t *w, int i)
{
	uint32_t a = w[(i - 15) & 15], b = w[(i - 2) & 15];

	w[i & 15] += w[(i - 7) & 15] + (ror(a, 7) ^ ror(a, 18) ^ (a >> 3)) +
		     (ror(b, 17) ^ ror(b, 19) ^ (b >> 10));
	return w[i & 15];
}

static void sha_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[16], a, b, c, d, e, f, g, h;
	int i, j;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | p[4 * i + 1] << 16 |
		       p[4 * i + 2] << 8 | p[4 * i + 3];
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i += 8) {
		if (i >= 16)
			for (j = i; j < i + 8; j++)
				sha_w(w, j);
		SHA_ROUND(a, b, c, d, e, f, g, h, i);
		SHA_ROUND(h, a, b, c, d, e, f, g, i + 1);
		SHA_ROUND(g, h, a, b, c, d, e, f, i + 2);
		SHA_ROUND(f, g, h, a, b, c, d, e, i + 3);
		SHA_ROUND(e, f, g, h, a, b, c, d, i + 4);
		SHA_ROUND(d, e, f, g, h, a, b, c, i + 5);
		SHA_ROUND(c, d, e, f, g, h, a, b, i + 6);
		SHA_ROUND(b, c, d, e, f, g, h, a, i + 7);
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha_init(struct sha256 *s)
{
	memcpy(s->h, H0, sizeof(s->h));
	s->len = 0;
	s->fill = 0;
}

static void sha_update(struct sha256 *s, const uint8_t *p, size_t n)
{
	s->len += n;
	if (s->fill) {
		while (n && s->fill < 64) {
			s->buf[s->fill++] = *p++;
			n--;
		}
		if (s->fill < 64)
			return;
		sha_block(s, s->buf);
		s->fill = 0;
	}
	for (; n >= 64; n -= 64, p += 64)
		sha_block(s, p);
	memcpy(s->buf, p, n);
	s->fill = n;
}

static void sha_final(struct sha256 *s, char hex[65])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, len[8];
	int i;

	sha_update(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha_update(s, &pad, 1);
	for (i = 0; i < 8; i++)
		len[i] = bits >> (56 - 8 * i);
	sha_update(s, len, 8);
	for (i = 0; i < 8; i++)
		sprintf(hex + 8 * i, "%08x", s->h[i]);
}

static void fill(uint64_t *st, uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		*st ^= *st << 13;
		*st ^= *st >> 7;
		*st ^= *st << 17;
		memcpy(buf + i, st, 8);
	}
}

static int idle_secs = 60;

/* Socket reads and writes give up after idle_secs without progress. */
static void set_idle(int fd)
{
	struct timeval tv = { .tv_sec = idle_secs };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int stalled(const char *what, uint64_t bytes)
{
	fprintf(stderr, "xfab-xfer: stalled: no %s progress for %ds after %llu bytes\n",
		what, idle_secs, (unsigned long long)bytes);
	return 3;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(FILE *f, uint64_t bytes, struct sha256 *s, double t0)
{
	char hex[65];
	double secs = now() - t0;

	sha_final(s, hex);
	fprintf(f, "bytes=%llu sha256=%s secs=%.2f mbit=%.1f\n",
		(unsigned long long)bytes, hex, secs,
		secs > 0 ? bytes * 8 / secs / 1e6 : 0);
}

/* 0, -1 on an error, -2 when the peer took nothing for idle_secs. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -2;
		if (r <= 0)
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': v <<= 10; /* fall through */
	case 'M': v <<= 10; /* fall through */
	case 'K': v <<= 10; break;
	case 0: break;
	default:
		fprintf(stderr, "xfab-xfer: bad size '%s'\n", s);
		exit(2);
	}
	return v & ~7ull;	/* the generator works in 8-byte words */
}

/* Stream 'bytes' of seeded data to fd; checksum what was written. */
static int produce(int fd, uint64_t bytes, uint64_t seed, FILE *rep)
{
	static uint8_t buf[1 << 16];
	uint64_t st = seed ? seed : 1, left = bytes;
	struct sha256 s;
	double t0 = now();
	int err;

	sha_init(&s);
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		fill(&st, buf, n);
		sha_update(&s, buf, n);
		err = write_all(fd, buf, n);
		if (err == -2)
			return stalled("send", bytes - left);
		if (err) {
			perror("xfab-xfer: write");
			return 1;
		}
		left -= n;
	}
	report(rep, bytes, &s, t0);
	return 0;
}

static int do_send(const char *host, const char *port, uint64_t bytes, uint64_t seed)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, tries, rc;

	if (getaddrinfo(host, port, &hints, &ai)) {
		fprintf(stderr, "xfab-xfer: cannot resolve %s:%s\n", host, port);
		return 2;
	}
	/* The receiver may still be starting: retry for a few seconds. */
	for (tries = 0; tries < 50; tries++) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
		usleep(200000);
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		perror("xfab-xfer: connect");
		return 1;
	}
	set_idle(fd);
	rc = produce(fd, bytes, seed, stdout);
	if (rc)
		return rc;
	return close(fd) ? 1 : 0;
}

static int do_recv(const char *port)
{
	static uint8_t buf[1 << 16];
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1, ls, fd;
	uint64_t total = 0;
	struct pollfd pfd = { .events = POLLIN };
	struct sha256 s;
	double t0;
	ssize_t r;

	a.sin_port = htons(atoi(port));
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1)) {
		perror("xfab-xfer: bind/listen");
		return 1;
	}
	pfd.fd = ls;
	if (poll(&pfd, 1, idle_secs * 1000) == 0)
		return stalled("connection", 0);
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("xfab-xfer: accept");
		return 1;
	}
	set_idle(fd);
	sha_init(&s);
	t0 = now();
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return stalled("receive", total);
		if (r < 0) {
			perror("xfab-xfer: read");
			return 1;
		}
		sha_update(&s, buf, r);
		total += r;
	}
	report(stdout, total, &s, t0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *idle = getenv("XFER_IDLE");

	if (idle && atoi(idle) > 0)
		idle_secs = atoi(idle);
	sha_constants();
	if (argc == 6 && !strcmp(argv[1], "send"))
		return do_send(argv[2], argv[3], parse_size(argv[4]),
			       strtoull(argv[5], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return produce(1, parse_size(argv[2]), strtoull(argv[3], NULL, 0),
			       stderr);
	fprintf(stderr, "usage: xfab-xfer send HOST PORT BYTES SEED | recv PORT | gen BYTES SEED\n");
	return 2;
}

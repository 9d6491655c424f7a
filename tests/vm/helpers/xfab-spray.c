// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab-spray: UDP datagrams out of one interface, and optionally a secret
 * on loopback beside them, for the hostile-backend scenario (051).
 *
 *   xfab-spray IFACE COUNT SIZE MARK
 *
 * Sends COUNT datagrams of SIZE zero bytes to the broadcast address out
 * of IFACE (no ARP, no route needed), one every 200 us. With MARK 1,
 * each is preceded by a datagram of the same size filled with
 * "XFAB-HOSTILE-SECRET" to a loopback socket that never reads: its queue
 * keeps some of them alive and the rest are freed, so the guest's slab
 * pages around the outgoing packets hold the marker. A backend that
 * finds the marker behind a TX slot was shown memory the guest never
 * sent it. Prints "out=N lo=N errors=N".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MARK "XFAB-HOSTILE-SECRET"

static int udp_socket(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0) {
		perror("xfab-spray: socket");
		exit(2);
	}
	return s;
}

/* A loopback socket that is bound and never read, and one to reach it. */
static int loop_pair(struct sockaddr_in *to)
{
	socklen_t len = sizeof(*to);
	int sink = udp_socket();

	memset(to, 0, sizeof(*to));
	to->sin_family = AF_INET;
	to->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(sink, (struct sockaddr *)to, sizeof(*to)) ||
	    getsockname(sink, (struct sockaddr *)to, &len)) {
		perror("xfab-spray: loopback sink");
		exit(2);
	}
	return udp_socket();
}

static int out_socket(const char *iface, struct sockaddr_in *to)
{
	int s = udp_socket(), on = 1;

	if (setsockopt(s, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)) ||
	    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, iface, strlen(iface))) {
		perror("xfab-spray: broadcast socket");
		exit(2);
	}
	memset(to, 0, sizeof(*to));
	to->sin_family = AF_INET;
	to->sin_port = htons(9);	/* discard */
	to->sin_addr.s_addr = htonl(INADDR_BROADCAST);
	return s;
}

int main(int argc, char **argv)
{
	struct sockaddr_in out_to, lo_to;
	long count, size, i, out = 0, lo = 0, errors = 0;
	char *zero, *secret;
	int so, sl = -1, mark;

	if (argc != 5) {
		fprintf(stderr, "usage: xfab-spray IFACE COUNT SIZE MARK(0|1)\n");
		return 2;
	}
	count = atol(argv[2]);
	size = atol(argv[3]);
	mark = atoi(argv[4]);
	if (count < 1 || size < 1 || size > 1400 || (mark != 0 && mark != 1)) {
		fprintf(stderr, "xfab-spray: COUNT >= 1, SIZE 1..1400, MARK 0 or 1\n");
		return 2;
	}
	zero = calloc(1, size);
	secret = malloc(size);
	if (!zero || !secret)
		return 2;
	for (i = 0; i < size; i++)
		secret[i] = MARK[i % (sizeof(MARK) - 1)];
	so = out_socket(argv[1], &out_to);
	if (mark)
		sl = loop_pair(&lo_to);
	for (i = 0; i < count; i++) {
		if (mark && sendto(sl, secret, size, 0, (struct sockaddr *)&lo_to,
				   sizeof(lo_to)) == size)
			lo++;
		if (sendto(so, zero, size, 0, (struct sockaddr *)&out_to,
			   sizeof(out_to)) == size)
			out++;
		else
			errors++;
		usleep(200);
	}
	printf("out=%ld lo=%ld errors=%ld\n", out, lo, errors);
	return 0;
}

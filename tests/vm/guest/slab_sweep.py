#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Make dom0's skb caches hand out most of their free objects, now.

A hunt tool for dom0's oops (docs/bench.md, "Results so far"): a free
object of the sk_buff or small-head cache had its free pointer
overwritten, and SLUB only notices when it hands that object out, which
may be long after the write: a free object deep in a partial slab waits
for the next flood. Here each CPU in turn sends N small datagrams over
loopback to a socket that does not read them, so N skbs (each an
sk_buff and a small head) are held at once, and SLUB walks N objects of
each cache's free lists on that CPU. A corrupted one oopses dom0 here,
right after the marker this writes to the kernel log, which says which
checkpoint it was.

Usage: slab_sweep.py TAG [N]   (N datagrams per CPU, default 8000)
"""
import os
import socket
import sys

SO_RCVBUFFORCE = 33


def kmsg(text):
    try:
        with open("/dev/kmsg", "w") as f:
            f.write(f"xfab-sweep: {text}\n")
    except OSError:
        pass


def held_on(cpu, n):
    """Send n datagrams on cpu to a socket that reads none; how many
    it held at once (the kernel counts drops past its buffer)."""
    os.sched_setaffinity(0, {cpu})
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        r.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 << 20)
        r.bind(("127.0.0.1", 0))
        to = r.getsockname()
        msg = bytes(64)
        for _ in range(n):
            s.sendto(msg, to)
        held = 0
        r.setblocking(False)
        while True:
            try:
                r.recv(128)
            except BlockingIOError:
                break
            held += 1
        return held
    finally:
        r.close()
        s.close()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    tag = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 8000
    if n <= 0:
        sys.exit("slab_sweep.py: N must be a positive number of datagrams")
    out = []
    for cpu in sorted(os.sched_getaffinity(0)):
        kmsg(f"{tag} cpu{cpu} n={n}")
        out.append(f"cpu{cpu} {held_on(cpu, n)}/{n}")
    print(f"sweep {tag}: held " + ", ".join(out))


if __name__ == "__main__":
    main()

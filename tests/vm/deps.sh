#!/bin/bash
# Install the host packages the build, the unit tests and the nested
# testbed need, from Debian's archive. Quiet when everything is there.
# Extra package names on the command line are added (make fuzz: clang).
set -euo pipefail
pkgs="qemu-system-x86 qemu-utils debootstrap e2fsprogs zstd xz-utils cpio
	gcc make libc6-dev libxen-dev python3 util-linux $*"
missing=""
for p in $pkgs; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
# a QEMU the testbed can run on (qemu.sh): fetched once if this host's is too old
qemu() { "$(dirname "$0")/qemu.sh" >/dev/null; }
[ -z "$missing" ] && { qemu; exit; }
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing; run as root (or apt-get install them)" >&2
	exit 1
fi
echo "[deps] installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $missing
qemu
echo "[deps] done"

#!/bin/bash
# Pull the uncompressed ELF out of a bzImage: find the first compressed
# payload (zstd in Debian 13, xz in Debian 12) and decompress it.
# Usage: extract-vmlinux.sh VMLINUZ OUT
set -euo pipefail
in=$1 out=$2
try() {
	local magic=$1 cmd=$2 off
	for off in $(LC_ALL=C grep -obUaP "$magic" "$in" | cut -d: -f1 | head -n 5); do
		tail -c +$((off + 1)) "$in" | $cmd >"$out.tmp" 2>/dev/null || true
		if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done
	rm -f "$out.tmp"
	return 1
}
try '\x28\xb5\x2f\xfd' 'zstd -dcq' || try '\xfd\x37\x7a\x58\x5a\x00' 'xz -dcq' || {
	echo "extract-vmlinux: no ELF payload found in $in" >&2
	exit 1
}

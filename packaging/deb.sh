#!/bin/bash
# make deb: the xfab-dkms and xfab-utils packages of this git tree's
# HEAD, built with Debian's own tools (dpkg-buildpackage, debhelper,
# dh-dkms), into build/deb/. As root it installs what the build needs
# from Debian's packages first; otherwise it names what is missing.
#
# Version: from git describe. With a tag vX.Y: X.Y, or X.Y+N.gHASH N
# commits after it; with no tag: 0.0~gitN.gHASH (N commits in all), so
# that later commits sort higher.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
say() { echo "[deb] $*"; }
die() { echo "make deb: $*" >&2; exit 1; }

cd "$top"
git rev-parse --verify -q HEAD >/dev/null ||
	die "needs the git tree: the version comes from git describe"
hash=$(git rev-parse --short=7 HEAD)
if desc=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	version=${desc#v}
	version=${version/-/+}
	version=${version/-g/.g}
else
	version=0.0~git$(git rev-list --count HEAD).g$hash
fi
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	say "note: uncommitted changes are not packaged (HEAD $hash is)"

need="dpkg-dev build-essential debhelper dh-dkms libxen-dev"
missing=""
for p in $need; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "install first (as root):$missing"
	say "installing the build's packages:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

say "xfab $version from $hash"
rm -rf "$out"
mkdir -p "$out/src"
git archive HEAD | tar -x -C "$out/src"
cat >"$out/src/debian/changelog" <<CL
xfab ($version) unstable; urgency=medium

  * Built from git $(git describe --tags --always) by make deb.

 -- xfab developers <xfab@example.org>  $(date -R)
CL
say "dpkg-buildpackage (log: $out/build.log)"
(cd "$out/src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; die "dpkg-buildpackage failed (log: $out/build.log)"; }
rm -rf "$out/src"
if command -v lintian >/dev/null; then
	say "lintian"
	lintian --fail-on error "$out"/*.changes || die "lintian found errors"
else
	say "lintian not installed: not checked"
fi
say "done: $(cd "$out" && ls ./*.deb | tr '\n' ' ')"

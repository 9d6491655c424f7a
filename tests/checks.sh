# Sourced by the check scripts that print a PASS or FAIL line per check
# (tests/pkg.sh, tests/kpatch.sh; tests/check.sh counts those lines) and
# end with "N passed, N failed".
passed=0 failed=0
ok() { echo "PASS $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
# check WHAT CMD...: CMD's exit status is the check's verdict
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

# The three-VM chain (sourced after lib.sh in dom0): a -> b -> c, b
# forwarding IP between a vif on xenbr1 and one on xenbr2, dom0's
# bridges without an address, so every packet from a to c crosses the
# backend twice and b's stack once. Used by the bench's 903 and by
# scenario 013.
#   a  eth0 10.1.0.2/24 on xenbr1, route to 10.2.0.0/24 via b
#   b  eth0 10.1.0.1/24 on xenbr1, eth1 10.2.0.1/24 on xenbr2
#   c  eth0 10.2.0.2/24 on xenbr2, route to 10.1.0.0/24 via b

chain_bridges() {
	local br
	for br in xenbr1 xenbr2; do
		ip link show "$br" >/dev/null 2>&1 || must ip link add "$br" type bridge
		must ip link set "$br" up
	done
}

# The three, as NAME,IP,MAC@BRIDGE[,MAC@BRIDGE]: chain_boot's domUs, and
# the bench's (bench_net_switch).
CHAIN_DOMUS="a,10.1.0.2/24,00:16:3e:01:00:02@xenbr1
b,10.1.0.1/24,00:16:3e:01:00:01@xenbr1,00:16:3e:02:00:01@xenbr2
c,10.2.0.2/24,00:16:3e:02:00:02@xenbr2"

# chain_boot FE KARGS HOOK: boot a, b and c with frontend FE, kernel
# arguments KARGS and paused-domain hook HOOK ("" for none).
chain_boot() {
	local fe=$1 kargs=$2 hook=$3 d n ip vifs v specs
	chain_bridges
	for d in $CHAIN_DOMUS; do
		IFS=, read -r n ip vifs <<<"$d"
		specs=()
		for v in ${vifs//,/ }; do
			specs+=("mac=${v%@*},bridge=${v#*@}")
		done
		_chain_start "$n" "$ip" "$fe" "$kargs" "$hook" "${specs[@]}"
	done
}

# _chain_start NAME IP FE KARGS HOOK VIF...: NAME with one vif per spec,
# 1 vCPU, its first interface at IP.
_chain_start() {
	local name=$1 ip=$2 fe=$3 kargs=$4 hook=$5 spec vifs=()
	shift 5
	for spec in "$@"; do
		vifs+=(--vif "$spec")
	done
	domu_start "$name" --mods "$fe" --vcpus 1 --ip "$ip" "${vifs[@]}" \
		--kargs "$kargs" ${hook:+--paused-hook $hook}
}

# chain_route: b forwards, a and c route through it; fails unless a
# reaches c.
chain_route() {
	domu_must b 30 "ip addr add 10.2.0.1/24 dev eth1 && ip link set eth1 up &&
		echo 1 >/proc/sys/net/ipv4/ip_forward" >/dev/null || exit $?
	domu_must a 30 "ip route add 10.2.0.0/24 via 10.1.0.1" >/dev/null || exit $?
	domu_must c 30 "ip route add 10.1.0.0/24 via 10.2.0.1" >/dev/null || exit $?
	domu_must a 60 "for i in \$(seq 30); do ping -c 1 -W 1 10.2.0.2 >/dev/null && exit 0; done; exit 1" \
		>/dev/null || fail "a does not reach c through b"
}

# chain_down: the three destroyed, no vif left, the bridges gone.
chain_down() {
	local s
	for s in a b c; do
		domu_destroy "$s" >/dev/null
	done
	wait_for 30 sh -c "! ls /sys/class/net | grep -q '^vif'" || fail "vifs left after destroying the chain"
	for s in xenbr1 xenbr2; do
		must ip link del "$s"
	done
}

# SPDX-License-Identifier: GPL-2.0-only
#
# Two network namespaces joined by a veth pair, for tests that need real
# traffic without leaving this machine. Source after lib.sh:
#
#	. "$(dirname "$0")/netns.sh"
#	t_netns_pair || exit 0     # prints a TAP skip when it cannot
#	ip netns exec "$NS_A" ...  # $ADDR_A, $NS_B, $ADDR_B likewise
#
# Names carry the test's PID so that parallel tests never collide, and
# the namespaces go away on exit however the test ends.

NS_A="ibt-a-$$"
NS_B="ibt-b-$$"
ADDR_A=10.199.$(($$ % 250)).1
ADDR_B=10.199.$(($$ % 250)).2
T_NETNS_PIDS=""

t_netns_cleanup() {
	for p in $T_NETNS_PIDS; do
		kill "$p" 2>/dev/null
	done
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	t_cleanup
}

# Remember a background PID to kill at exit.
t_netns_track() {
	T_NETNS_PIDS="$T_NETNS_PIDS $1"
}

t_netns_pair() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP network namespaces need root"
		return 1
	fi
	if ! command -v ip >/dev/null 2>&1; then
		echo "1..0 # SKIP iproute2 (ip) is not installed"
		return 1
	fi
	trap 't_netns_cleanup' EXIT INT TERM
	if ! ip netns add "$NS_A" 2>/dev/null ||
		! ip netns add "$NS_B" 2>/dev/null; then
		echo "1..0 # SKIP cannot create network namespaces here"
		return 1
	fi
	ip link add "veth-a$$" netns "$NS_A" type veth \
		peer name "veth-b$$" netns "$NS_B" || return 1
	ip -n "$NS_A" addr add "$ADDR_A/24" dev "veth-a$$"
	ip -n "$NS_B" addr add "$ADDR_B/24" dev "veth-b$$"
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
	ip -n "$NS_A" link set "veth-a$$" up
	ip -n "$NS_B" link set "veth-b$$" up
	IF_A="veth-a$$"
	IF_B="veth-b$$"
	return 0
}

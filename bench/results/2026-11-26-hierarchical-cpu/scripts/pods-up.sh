#!/usr/bin/env bash
# Makes PODS simulated pods on this host: a bridge, and per pod a network namespace joined to it
# by a veth pair, with an address of its own. With RATE (e.g. 960mbit) every pod's link is limited
# to RATE in each direction by a token bucket filter, the way a node's network link is slower
# than the memory its GPUs share.
# Usage: sudo bash pods-up.sh PODS [RATE]      (needs root, iproute2 and tc)
# Names: bridge hbbr0, namespaces hb-0..hb-(PODS-1), host-side veths hbv0.., subnet 10.214.0.0/16;
# pod p is 10.214.1.(p+1). pods-down.sh removes them all.
set -euo pipefail
PODS="${1:?number of pods}"
RATE="${2:-}"
BRIDGE=hbbr0
ip link add "$BRIDGE" type bridge
ip addr add 10.214.0.1/16 dev "$BRIDGE"
ip link set "$BRIDGE" up
for ((p = 0; p < PODS; p++)); do
  ns="hb-$p" veth="hbv$p" addr="10.214.1.$((p + 1))"
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$BRIDGE" up
  ip -n "$ns" addr add "$addr/16" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" route add default via 10.214.0.1
  if [[ -n "$RATE" ]]; then
    # The burst holds a few GSO segments, so the filter never drops a whole segment.
    for side in "" "-n $ns"; do
      dev="$veth"
      [[ -n "$side" ]] && dev=eth0
      # shellcheck disable=SC2086 # $side is "" or two words
      tc $side qdisc replace dev "$dev" root tbf rate "$RATE" burst 512kb latency 100ms
    done
  fi
done

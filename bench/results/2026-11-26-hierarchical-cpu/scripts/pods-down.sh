#!/usr/bin/env bash
# Removes what pods-up.sh made: every hb-* namespace, every hbv* veth and the bridge hbbr0.
# Usage: sudo bash pods-down.sh
set -u
for ns in $(ip netns list | awk '{print $1}' | grep '^hb-'); do ip netns del "$ns"; done
for veth in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^hbv'); do
  ip link del "$veth" 2>/dev/null
done
ip link del hbbr0 2>/dev/null
exit 0

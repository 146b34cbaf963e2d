#!/usr/bin/env bash
# quickstart.sh alternating between this checkout and another built one (BASE, say a worktree of
# the commit before a change), RUNS rounds of one run each, so the host's drift between minutes
# falls on both alike. Prints every run's latency rows and Open MPI's beside them.
#   BASE=/path/to/other/checkout RUNS=6 bench/results/2026-11-26-cpu-anchors/scripts/paired-quickstart.sh
# Both checkouts built (./mvnw -q -pl app -am package -DskipTests); needs what quickstart.sh needs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
BASE="${BASE:?set BASE to another built checkout}"
RUNS="${RUNS:-6}"
OUT="${OUT:-$(mktemp -d)}"
script=bench/results/2026-11-26-cpu-anchors/scripts/quickstart.sh
for round in $(seq "$RUNS"); do
  for tree in new base; do
    dir="$root"
    [ "$tree" = base ] && dir="$BASE"
    echo "== round $round $tree"
    OUT="$OUT/$tree-$round" RUNS=1 bash "$dir/$script"
  done
done

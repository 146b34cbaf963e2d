#!/usr/bin/env bash
# Builds what run101.sh needs, on a machine with JDK 25 and Maven access: the portable bundle and
# GPURUN (default .gpurun): the runtime modules' test classes (with the API's report fixtures) as
# tests/gpucomm-tests.jar, their test libraries, and the JUnit console launcher as junit.jar.
# Usage: bash bench/results/2026-11-26-module-split/scripts/prepare.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
cd "$ROOT"
./mvnw -B -q -pl app -am package -Pbundle -DskipTests
./mvnw -B -q -pl runtime/core,runtime/cuda,runtime/hostir -am test-compile
rm -rf "$B/tests" && mkdir -p "$B/tests"
jar cf "$B/tests/gpucomm-tests.jar" -C api/target/test-classes . -C runtime/core/target/test-classes . \
  -C runtime/cuda/target/test-classes . -C runtime/hostir/target/test-classes .
M2="${MAVEN_REPO:-$HOME/.m2/repository}"
./mvnw -B -q -N dependency:get -Dartifact=org.junit.platform:junit-platform-console-standalone:1.11.4
cp "$M2/org/junit/platform/junit-platform-console-standalone/1.11.4/junit-platform-console-standalone-1.11.4.jar" "$B/junit.jar"
for jar in org/assertj/assertj-core/3.27.3/assertj-core-3.27.3.jar \
  net/bytebuddy/byte-buddy/1.17.6/byte-buddy-1.17.6.jar \
  org/awaitility/awaitility/4.2.2/awaitility-4.2.2.jar \
  org/hamcrest/hamcrest/2.2/hamcrest-2.2.jar; do
  ./mvnw -B -q -N dependency:get -Dartifact="$(echo "$jar" | awk -F/ '{n=NF; g=""; for(i=1;i<=n-3;i++) g=g (i>1?".":"") $i; print g ":" $(n-2) ":" $(n-1)}')"
  cp "$M2/$jar" "$B/tests/"
done
ls -la "$B" "$B/tests" app/target/gpucomm-bundle.tar.xz

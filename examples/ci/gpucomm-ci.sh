#!/usr/bin/env bash
# Runs a CommJob as a CI gate: installs (or upgrades) the gpucomm operator chart in the job's
# namespace, namespace-scoped (rbac.namespaced: Roles and no cluster-wide object, so the pipeline
# needs no cluster-admin credentials; ci-namespace-setup.yaml is what an administrator sets up
# once), creates the job, waits until it Succeeded or Failed, saves its Markdown report, JSON
# report and latency plot as artifacts, and fails when the job failed or, for a job with
# spec.baseline, unless its Regressed condition is False: True (slower) and Unknown (no verdict:
# no common sizes, a size missing, an unreadable or missing baseline) both fail, since a gate that
# cannot compare has not passed. A job with spec.expect (pass/fail floors, no baseline needed)
# must also have MeetsExpectations True: False (a floor missed) and Unknown (a figure the rules
# name was not measured) both fail.
#
# Exit codes: 0 passed, 1 job failed, timed out or was deleted, 2 usage error, 3 performance
# regressed, 4 no verdict against the baseline, 5 expectations not met (or not checked), 6 the gate
# could not do its own part (install the chart, create or read the job, save its report: the
# cluster, its credentials or permissions, the chart), which a pipeline tells from a failed job
# (and may retry where the cause was passing, such as an API server that did not answer).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: gpucomm-ci.sh -f <commjob.yaml> [-n <namespace>] [--baseline <report.json>]
                     [--artifacts <dir>] [--timeout <duration>] [--skip-install]
                     [--cluster-wide] [--set <chart value>]... [--set-string <chart value>]...

  -f, --file        the CommJob to run (metadata.name or metadata.generateName)
  -n, --namespace   namespace of the job and the operator (default: gpucomm-ci)
  --baseline        a report.json of an earlier run: stored as the ConfigMap the job's
                    spec.baseline.configMapRef names, so Regressed compares with it
  --artifacts       where report.md, report.json, latency.svg and diagnostics go
                    (default: gpucomm-artifacts)
  --timeout         how long to wait for the job (default: 30m)
  --skip-install    the operator is already installed: do not run helm
  --cluster-wide    install the chart with its ClusterRoles and the CRD (needs a cluster
                    administrator's credentials) instead of namespace-scoped
  --set             a value for the chart, as helm --set takes it (repeatable)
  --set-string      a value for the chart, as helm --set-string takes it (repeatable)

Environment: KUBECONFIG (the cluster), GPUCOMM_CHART (default: helm/gpucomm-operator),
GPUCOMM_RELEASE (default: gpucomm), GPUCOMM_CLI (default: ./gpucomm).
USAGE
}

job_file=""
namespace="gpucomm-ci"
baseline=""
artifacts="gpucomm-artifacts"
timeout="30m"
install=true
cluster_wide=false
chart_values=()
chart="${GPUCOMM_CHART:-helm/gpucomm-operator}"
release="${GPUCOMM_RELEASE:-gpucomm}"
gpucomm="${GPUCOMM_CLI:-./gpucomm}"

fail_usage() {
  echo "gpucomm-ci.sh: $1" >&2
  usage >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    -f | --file) [ $# -ge 2 ] || fail_usage "$1 needs a value"; job_file="$2"; shift 2 ;;
    -n | --namespace) [ $# -ge 2 ] || fail_usage "$1 needs a value"; namespace="$2"; shift 2 ;;
    --baseline) [ $# -ge 2 ] || fail_usage "$1 needs a value"; baseline="$2"; shift 2 ;;
    --artifacts) [ $# -ge 2 ] || fail_usage "$1 needs a value"; artifacts="$2"; shift 2 ;;
    --timeout) [ $# -ge 2 ] || fail_usage "$1 needs a value"; timeout="$2"; shift 2 ;;
    --skip-install) install=false; shift ;;
    --cluster-wide) cluster_wide=true; shift ;;
    --set | --set-string) [ $# -ge 2 ] || fail_usage "$1 needs a value"; chart_values+=("$1" "$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) fail_usage "unknown argument $1" ;;
  esac
done
# kubectl wait refuses anything but a Go duration at once, which would read as a job timing out
# (unsigned: kubectl reads a negative timeout as "wait a week")
[[ "$timeout" =~ ^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))+)$ ]] \
  || fail_usage "--timeout $timeout: not a duration (e.g. 30m, 1h30m, 1800s)"
[ -n "$job_file" ] || fail_usage "which job? give -f <commjob.yaml>"
[ -f "$job_file" ] || fail_usage "-f $job_file: no such file"
[ -z "$baseline" ] || [ -f "$baseline" ] || fail_usage "--baseline $baseline: no such file"
# every tool is looked for before the job takes its GPUs: helm only where it installs, and the
# gpucomm CLI, which saves the report once the job is done
tools=(kubectl)
if $install; then
  tools+=(helm)
fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "gpucomm-ci.sh: $tool is not on PATH" >&2; exit 2; }
done
command -v "$gpucomm" >/dev/null \
  || { echo "gpucomm-ci.sh: $gpucomm (GPUCOMM_CLI) is not an executable" >&2; exit 2; }

# From here on, a command that fails unhandled is the gate's failure, not the job's. (The trap is
# not inherited, no set -E: a function must handle its own failures, or return them to its caller,
# where a command substitution would otherwise say them twice.)
trap 'rc=$?; echo "gpucomm-ci: could not go on: $BASH_COMMAND exited $rc" >&2; exit 6' ERR
mkdir -p "$artifacts"
log() { echo "gpucomm-ci: $*"; }
gate_failed() {
  echo "gpucomm-ci: $*" >&2
  exit 6
}

if $install && $cluster_wide; then
  # helm installs crds/ only on a release's first install and never upgrades it: a chart whose
  # CommJob schema grew would meet the old one
  log "applying the CommJob CRD of $chart"
  if [ -d "$chart/crds" ]; then
    kubectl apply --server-side --force-conflicts -f "$chart/crds/" >/dev/null
  else # a packaged chart: a .tgz, repo/name or oci:// reference
    helm show crds "$chart" | kubectl apply --server-side --force-conflicts -f - >/dev/null
  fi
  log "installing the operator chart $chart as $release in $namespace, cluster-wide"
  helm upgrade --install "$release" "$chart" --namespace "$namespace" --create-namespace \
    --wait --timeout 10m ${chart_values[@]+"${chart_values[@]}"}
elif $install; then
  # The CRD and the namespace are an administrator's (ci-namespace-setup.yaml): a namespace-scoped
  # identity may create neither.
  log "installing the operator chart $chart as $release in $namespace, watching only $namespace"
  helm upgrade --install "$release" "$chart" --namespace "$namespace" --skip-crds \
    --set rbac.namespaced=true --wait --timeout 10m ${chart_values[@]+"${chart_values[@]}"}
else
  kubectl get namespace "$namespace" >/dev/null 2>&1 || kubectl create namespace "$namespace"
fi

# what kubectl said when it refused the job file, without its warnings, on one line
refusal_of() {
  grep -v '^Warning: ' "$1" | tr '\n' ' ' | sed 's/ *$//'
}
# A refusal of the job file: a usage error where the file is at fault (its schema, a field
# unknown or invalid, the operator's admission), which no retry changes; the gate's otherwise.
refused() {
  local refusal
  refusal="$(refusal_of "$1")"
  case "$refusal" in
    *" is invalid"* | *"error validating"* | *"error parsing"* | *"denied the request"* \
      | *"strict decoding"* | *"cannot be handled as"* | *"unable to decode"* \
      | *"error converting YAML"* | *"no objects passed"*)
      echo "gpucomm-ci.sh: -f $job_file: ${refusal:-refused}" >&2
      exit 2 ;;
    *) gate_failed "cannot create the CommJob of $job_file: ${refusal:-kubectl said nothing}" ;;
  esac
}

if [ -n "$baseline" ]; then
  baseline_ref="$(kubectl create --dry-run=client -o jsonpath='{.spec.baseline.configMapRef}' \
    -f "$job_file" 2>"$artifacts/create.err")" || refused "$artifacts/create.err"
  [ -n "$baseline_ref" ] || fail_usage "--baseline given, but $job_file has no spec.baseline.configMapRef"
  log "storing $baseline as ConfigMap $baseline_ref"
  kubectl create configmap "$baseline_ref" --namespace "$namespace" \
    --from-file=report.json="$baseline" --dry-run=client -o yaml \
    | kubectl apply --server-side --force-conflicts -f -
  # (server-side: a client-side apply copies the report into an annotation of at most 256 KiB)
fi

job="$(kubectl create --namespace "$namespace" -f "$job_file" -o jsonpath='{.metadata.name}' \
  2>"$artifacts/create.err")" || refused "$artifacts/create.err"
cat "$artifacts/create.err" >&2 # the API server's warnings, if any
log "created CommJob $job in $namespace"
echo "$job" >"$artifacts/job-name"

# Succeeded and Failed are both final: wait for whichever comes first. What the waits say goes to
# the artifacts: a wait that ends early (the API server, a missing watch permission) is not the
# job timing out.
kubectl wait --namespace "$namespace" "commjob/$job" --for=condition=Succeeded --timeout="$timeout" \
  >/dev/null 2>"$artifacts/wait-succeeded.err" &
wait_succeeded=$!
kubectl wait --namespace "$namespace" "commjob/$job" --for=condition=Failed --timeout="$timeout" \
  >/dev/null 2>"$artifacts/wait-failed.err" &
wait_failed=$!
wait -n || true
kill "$wait_succeeded" "$wait_failed" 2>/dev/null || true
wait 2>/dev/null || true

jsonpath() {
  kubectl get --namespace "$namespace" "commjob/$job" -o "jsonpath=$1"
}
# a condition's status, reason and message, read at once: the operator may write a verdict
# between three separate reads, which would then pair an old status with a new reason ('|' parts
# them: neither a status nor a reason has one, and the message keeps any of its own). A read that
# fails returns 1, with all three empty.
condition() {
  local line
  status="" reason="" message=""
  line="$(jsonpath "{range .status.conditions[?(@.type==\"$1\")]}{.status}|{.reason}|{.message}{end}" \
    2>"$artifacts/get.err")" || return 1
  IFS='|' read -r status reason message <<<"$line" || true
}
condition_or_stop() {
  condition "$1" \
    || gate_failed "cannot read CommJob $job's $1 condition: $(tail -n 1 "$artifacts/get.err")"
}
if ! phase="$(jsonpath '{.status.phase}' 2>"$artifacts/get.err")"; then
  if grep -q NotFound "$artifacts/get.err"; then
    echo "gpucomm-ci: CommJob $job no longer exists: deleted before its result was read (its spec.ttlSecondsAfterFinished should outlast the gate)" >&2
    exit 1
  fi
  gate_failed "cannot read CommJob $job: $(tail -n 1 "$artifacts/get.err")"
fi
# (an artifact: the verdict does not depend on it)
kubectl get --namespace "$namespace" "commjob/$job" -o yaml >"$artifacts/commjob.yaml" \
  2>>"$artifacts/get.err" || true

if [ "$phase" != "Succeeded" ]; then
  # the job's own failure, read or not: a failed read here must not turn it into the gate's
  condition Failed || true
  kubectl describe --namespace "$namespace" "commjob/$job" >"$artifacts/describe.txt" || true
  for pod in $(kubectl get pods --namespace "$namespace" -l "gpucomm.dev/job=$job" -o name); do
    kubectl logs --namespace "$namespace" "$pod" >"$artifacts/${pod#pod/}.log" 2>&1 || true
  done
  if [ "$phase" = "Failed" ]; then
    echo "gpucomm-ci: CommJob $job failed: ${reason:-no reason}: ${message:-no message}" >&2
    exit 1
  fi
  waited="$( (grep -hv '^$' "$artifacts/wait-succeeded.err" "$artifacts/wait-failed.err" || true) | tail -n 1)"
  case "$waited" in
    *"timed out"*)
      echo "gpucomm-ci: CommJob $job did not finish within $timeout: phase ${phase:-none} (it is left to its spec.timeoutSeconds; kubectl delete --namespace $namespace commjob/$job stops it now)" >&2
      exit 1 ;;
    *)
      gate_failed "waiting for CommJob $job failed (phase ${phase:-none}): kubectl wait: ${waited:-ended without a word}" ;;
  esac
fi

for artifact in md:report.md json:report.json svg:latency.svg; do
  # gpucomm's own exit codes (1, 2) would read as this script's: say what failed
  "$gpucomm" report "$job" --namespace "$namespace" --format "${artifact%%:*}" \
    --output "$artifacts/${artifact#*:}" \
    || gate_failed "CommJob $job succeeded, but its ${artifact#*:} could not be saved (gpucomm report exited $?)"
done
log "report saved in $artifacts/"
# a pass after restarts is a pass, but a node that keeps taking pods away is news for the pipeline
restarts="$(jsonpath '{.status.restarts}' 2>/dev/null || true)"
if [ -n "$restarts" ] && [ "$restarts" != "0" ]; then
  condition Restarting || true
  log "CommJob $job succeeded after $restarts restart(s) (spec.failurePolicy); the last: ${message:-no message}"
fi

# read as assignments: a read that fails must stop the gate, not pass for "no such field"
expect_rules="$(jsonpath '{.spec.expect}')"
baseline_configmap="$(jsonpath '{.spec.baseline.configMapRef}')"
if [ -n "$expect_rules" ]; then
  # like Regressed, MeetsExpectations follows the report: wait for it
  expect_deadline=$((SECONDS + 120))
  while :; do
    condition_or_stop MeetsExpectations
    meets="$status"
    if [ "$meets" = "True" ]; then
      log "CommJob $job meets its expectations: $message"
      break
    fi
    if [ "$meets" = "False" ] || { [ "$reason" != "AwaitingReport" ] && [ -n "$reason" ]; } \
      || [ "$SECONDS" -ge "$expect_deadline" ]; then
      echo "gpucomm-ci: expectations not met: MeetsExpectations=${meets:-missing} (${reason:-no reason}): ${message:-no message}" >&2
      exit 5
    fi
    sleep 2
  done
fi

if [ -z "$baseline_configmap" ]; then
  log "CommJob $job succeeded (no spec.baseline: no performance gate)"
  exit 0
fi
# The verdict follows the report (the operator may see Succeeded before report.json): wait for it.
verdict_deadline=$((SECONDS + 120))
while :; do
  condition_or_stop Regressed
  regressed="$status"
  case "$regressed" in
    False)
      log "CommJob $job succeeded: $message"
      exit 0
      ;;
    True)
      echo "gpucomm-ci: performance regressed: $message" >&2
      exit 3
      ;;
  esac
  if [ "$reason" != "AwaitingReport" ] && [ -n "$reason" ] || [ "$SECONDS" -ge "$verdict_deadline" ]; then
    echo "gpucomm-ci: no verdict against the baseline: Regressed=${regressed:-missing} (${reason:-no reason}): ${message:-no message}" >&2
    exit 4
  fi
  sleep 2
done

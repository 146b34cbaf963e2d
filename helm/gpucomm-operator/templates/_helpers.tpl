{{/* Name of the chart, or nameOverride. */}}
{{- define "gpucomm-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name of the release's objects. */}}
{{- define "gpucomm-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "gpucomm-operator.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "gpucomm-operator.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Labels that select the operator's pods. */}}
{{- define "gpucomm-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpucomm-operator.name" . | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end }}

{{/*
Labels of every object of the release: the chart's own and commonLabels, which may add labels but
not replace the chart's (the selector's labels among them).
*/}}
{{- define "gpucomm-operator.labels" -}}
{{- $labels := dict
  "helm.sh/chart" (printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_")
  "app.kubernetes.io/name" (include "gpucomm-operator.name" .)
  "app.kubernetes.io/instance" .Release.Name
  "app.kubernetes.io/version" .Chart.AppVersion
  "app.kubernetes.io/managed-by" .Release.Service }}
{{- toYaml (merge $labels (.Values.commonLabels | default dict)) }}
{{- end }}

{{- define "gpucomm-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gpucomm-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
An image reference from {registry, repository, tag}: global.imageRegistry, else the image's
registry, is prefixed unless the repository's first part names a registry host itself (has a dot
or a port, or is localhost), as Docker reads a reference; the tag defaults to the appVersion.
Call with (list $ .Values.image).
*/}}
{{- define "gpucomm-operator.imageReference" -}}
{{- $root := index . 0 }}
{{- $image := index . 1 }}
{{- $registry := default $image.registry ($root.Values.global | default dict).imageRegistry }}
{{- $host := splitList "/" $image.repository | first }}
{{- $namesHost := and (gt (len (splitList "/" $image.repository)) 1) (or (contains "." $host) (contains ":" $host) (eq "localhost" $host)) }}
{{- $repository := $image.repository }}
{{- if and $registry (not $namesHost) }}
{{- $repository = printf "%s/%s" (trimSuffix "/" $registry) $image.repository }}
{{- end }}
{{- $tag := default $root.Chart.AppVersion $image.tag }}
{{- printf "%s%s%s" $repository (hasPrefix "sha256:" $tag | ternary "@" ":") $tag }}
{{- end }}

{{- define "gpucomm-operator.image" -}}
{{- include "gpucomm-operator.imageReference" (list . .Values.image) }}
{{- end }}

{{- define "gpucomm-operator.runtimeImage" -}}
{{- include "gpucomm-operator.imageReference" (list . .Values.runtime.image) }}
{{- end }}

{{/*
The namespaces whose CommJobs the operator runs and where its namespaced objects (Roles,
NetworkPolicies) go: watchNamespaces, else, with rbac.namespaced, the release's namespace; empty
means all namespaces.
*/}}
{{- define "gpucomm-operator.namespaceList" -}}
{{- if .Values.watchNamespaces }}
{{- toYaml .Values.watchNamespaces }}
{{- else if .Values.rbac.namespaced }}
{{- toYaml (list .Release.Namespace) }}
{{- else }}
{{- toYaml list }}
{{- end }}
{{- end }}

{{/* The operator's watched namespaces as QOSDK reads them. */}}
{{- define "gpucomm-operator.watchedNamespaces" -}}
{{- $namespaces := include "gpucomm-operator.namespaceList" . | fromYamlArray }}
{{- if $namespaces }}
{{- join "," $namespaces }}
{{- else }}
{{- "JOSDK_ALL_NAMESPACES" }}
{{- end }}
{{- end }}

{{/*
Name of the metrics Service: a DNS-1035 label (at most 63 characters, a letter first, no dots),
which a Service name must be and a release name (up to 53 characters, dots allowed) need not give.
*/}}
{{- define "gpucomm-operator.metricsServiceName" -}}
{{- $name := printf "%s-metrics" (include "gpucomm-operator.fullname" . | replace "." "-" | trunc 55 | trimSuffix "-") }}
{{- if regexMatch "^[a-z]" $name }}
{{- $name }}
{{- else }}
{{- printf "gpucomm-%s" $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The Lease of leader election: one per release, so that two releases never share it. */}}
{{- define "gpucomm-operator.leaseName" -}}
{{- default (printf "%s-leader" (include "gpucomm-operator.fullname" . | trunc 56 | trimSuffix "-")) .Values.leaderElection.leaseName }}
{{- end }}

{{/*
Name of the release's cluster-scoped objects (ClusterRoles, ClusterRoleBindings): the release
namespace is part of it, since releases of one name in two namespaces (an operator per team) must
not claim the same cluster-wide objects.
*/}}
{{- define "gpucomm-operator.clusterName" -}}
{{- printf "%s-%s" (include "gpucomm-operator.fullname" .) .Release.Namespace }}
{{- end }}

{{/* The names of a list of {name: ...} references, comma-separated. */}}
{{- define "gpucomm-operator.secretNames" -}}
{{- $names := list }}
{{- range . }}
{{- $names = append $names .name }}
{{- end }}
{{- join "," $names }}
{{- end }}

{{/*
The operator's rules, in a ClusterRole or, with rbac.namespaced, in a Role per watched namespace.
What the operator does, verb by verb:
- reads CommJobs and writes their status; owner references with blockOwnerDeletion need
  update on commjobs/finalizers (the OwnerReferencesPermissionEnforcement admission plugin);
  deletes a finished CommJob once its spec.ttlSecondsAfterFinished has passed;
- creates a job's pods and deletes them when the job fails, is suspended, or its cleanPodPolicy
  or TTL says so (pods are never updated);
- records Events on CommJobs (kubectl describe commjob);
- creates the PodGroup of a gang-scheduled job (spec.gang) for Volcano or the scheduler-plugins
  coscheduling plugin, and patches it to the job's size and requests until the job starts; where
  neither is installed, the rules grant nothing;
- creates and keeps the job's Service, ServiceAccount, Role and RoleBinding as they should be;
- creates the job's ConfigMaps and reads baseline ConfigMaps. The per-job Role grants get,
  update and patch of the results ConfigMap; Kubernetes lets a Role be created only by one
  who holds what it grants, so the operator holds those verbs too.
*/}}
{{- define "gpucomm-operator.rules" -}}
- apiGroups: ["gpucomm.dev"]
  resources: ["commjobs"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: ["gpucomm.dev"]
  resources: ["commjobs/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["gpucomm.dev"]
  resources: ["commjobs/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["services", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: [""]
  resources: ["events"]
  {{- if regexMatch "^0+(ms|s|m|h)?$" (toString .Values.runtime.scaleUpTimeout) }}
  verbs: ["create"]
  {{- else }}
  verbs: ["create", "list"]
  {{- end }}
- apiGroups: ["scheduling.volcano.sh", "scheduling.x-k8s.io"]
  resources: ["podgroups"]
  verbs: ["get", "create", "patch"]
{{- end }}

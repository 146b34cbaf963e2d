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
app.kubernetes.io/name: {{ include "gpucomm-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object of the release. */}}
{{- define "gpucomm-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "gpucomm-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "gpucomm-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gpucomm-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "gpucomm-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "gpucomm-operator.runtimeImage" -}}
{{- printf "%s:%s" .Values.runtime.image.repository (default .Chart.AppVersion .Values.runtime.image.tag) }}
{{- end }}

{{/* The operator's watched namespaces as QOSDK reads them. */}}
{{- define "gpucomm-operator.watchedNamespaces" -}}
{{- if .Values.watchNamespaces }}
{{- join "," .Values.watchNamespaces }}
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

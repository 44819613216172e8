{{/*
Hand-written helpers. The CRD (crds/), the RBAC rules and the container settings come from
_generated.tpl, generated from src/deploy like deploy/install.yaml.
*/}}

{{- define "flux-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of the Deployment, ServiceAccount, ClusterRole and ClusterRoleBinding. */}}
{{- define "flux-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of the leader-election Role and RoleBinding. */}}
{{- define "flux-operator.leaderElectionName" -}}
{{- printf "%s-leader-election" (include "flux-operator.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of the conversion webhook's Service, which the operator points the CRD at. */}}
{{- define "flux-operator.webhookServiceName" -}}
{{- printf "%s-webhook" (include "flux-operator.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "flux-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flux-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "flux-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "flux-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "flux-operator.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

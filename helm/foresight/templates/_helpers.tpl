{{/*
Names. The full name is capped at 55 characters so that the suffixed names (-api, -worker, -migrate,
-metrics, -config) stay within Kubernetes' 63-character limit.
*/}}
{{- define "foresight.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 55 | trimSuffix "-" -}}
{{- end }}

{{- define "foresight.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 55 | trimSuffix "-" -}}
{{- else if contains (include "foresight.name" .) .Release.Name -}}
{{- .Release.Name | trunc 55 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "foresight.name" .) | trunc 55 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{- define "foresight.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "foresight.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Immutable in Deployment selectors: never add anything that changes between releases. */}}
{{- define "foresight.selectorLabels" -}}
app.kubernetes.io/name: {{ include "foresight.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "foresight.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/*
ConfigMap and Secret names. The migration hook runs before the release's own ConfigMap and Secret
exist (pre-install), so it reads copies created just before it under the migration name.
*/}}
{{- define "foresight.configMapName" -}}
{{ include "foresight.fullname" . }}-config
{{- end }}

{{- define "foresight.secretName" -}}
{{ .Values.existingSecret | default (include "foresight.fullname" .) }}
{{- end }}

{{- define "foresight.migrationName" -}}
{{ include "foresight.fullname" . }}-migrate
{{- end }}

{{- define "foresight.migrationSecretName" -}}
{{ .Values.existingSecret | default (include "foresight.migrationName" .) }}
{{- end }}

{{/* "true" when Redis is one server (REDIS_URL), empty for a Redis Cluster or Sentinel. */}}
{{- define "foresight.redisServer" -}}
{{- if not (or .Values.redis.clusterNodes .Values.redis.sentinels) }}true{{ end }}
{{- end }}

{{/* Non-secret settings, as environment variables (libs/platform/src/config/config.schema.ts). */}}
{{- define "foresight.configData" -}}
PORT: {{ .Values.ports.http | quote }}
METRICS_PORT: {{ .Values.ports.metrics | quote }}
REGION: {{ .Values.region | quote }}
LOG_LEVEL: {{ .Values.logLevel | quote }}
DATABASE_POOL_SIZE: {{ .Values.postgres.poolSize | quote }}
DATABASE_POOL_MODE: {{ .Values.postgres.poolMode | quote }}
DATABASE_IDLE_TIMEOUT: {{ .Values.postgres.idleTimeout | quote }}
DATABASE_READ_MAX_LAG: {{ .Values.postgres.readMaxLag | quote }}
REDIS_PREFIX: {{ .Values.redis.prefix | quote }}
{{- with .Values.redis }}
{{- if .clusterNodes }}
REDIS_CLUSTER_NODES: {{ join "," .clusterNodes | quote }}
{{- end }}
{{- if .sentinels }}
REDIS_SENTINELS: {{ join "," .sentinels | quote }}
REDIS_SENTINEL_NAME: {{ .sentinelName | quote }}
{{- end }}
{{- if or .clusterNodes .sentinels }}
{{- with .username }}
REDIS_USERNAME: {{ . | quote }}
{{- end }}
REDIS_TLS: {{ .tls | quote }}
{{- end }}
{{- end }}
MONITORING_SCHEDULE: {{ .Values.monitoring.schedule | quote }}
SCORING_SCHEDULE: {{ .Values.scoring.schedule | quote }}
SCORING_CHUNK_USERS: {{ .Values.scoring.chunkUsers | quote }}
SCORING_SHARDS: {{ .Values.scoring.shards | quote }}
SCORING_SHARD_USERS: {{ .Values.scoring.shardUsers | quote }}
SERVING_MODEL_MEMORY_MB: {{ .Values.serving.modelMemoryMb | quote }}
WEBHOOK_RETRY_SCHEDULE: {{ join "," .Values.webhooks.retrySchedule | quote }}
WEBHOOK_TIMEOUT_MS: {{ .Values.webhooks.timeoutMs | quote }}
WEBHOOK_ALLOWED_NETWORKS: {{ join "," .Values.webhooks.allowedNetworks | quote }}
WEBHOOK_DISABLE_AFTER: {{ .Values.webhooks.disableAfter | quote }}
PUBLIC_URL: {{ .Values.http.publicUrl | quote }}
TRUSTED_PROXIES: {{ join "," .Values.http.trustedProxies | quote }}
UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: {{ .Values.http.unauthenticatedRateLimitPerMinute | quote }}
UNAUTHENTICATED_BURST_PER_MINUTE: {{ .Values.http.unauthenticatedBurstPerMinute | quote }}
HTTP_HEADERS_TIMEOUT: {{ .Values.http.headersTimeout | quote }}
HTTP_REQUEST_TIMEOUT: {{ .Values.http.requestTimeout | quote }}
HTTP_KEEP_ALIVE_TIMEOUT: {{ .Values.http.keepAliveTimeout | quote }}
HTTP_MAX_CONNECTIONS: {{ .Values.http.maxConnections | quote }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ .Values.tracing.endpoint | quote }}
OTEL_SERVICE_NAME: {{ .Values.tracing.serviceName | quote }}
OTEL_TRACES_SAMPLER_ARG: {{ .Values.tracing.sampleRatio | quote }}
{{- with .Values.sso }}
{{- if .issuer }}
OIDC_ISSUER: {{ .issuer | quote }}
OIDC_CLIENT_ID: {{ .clientId | quote }}
{{- with .redirectUrl }}
OIDC_REDIRECT_URL: {{ . | quote }}
{{- end }}
OIDC_SCOPES: {{ .scopes | quote }}
OIDC_GROUPS_CLAIM: {{ .groupsClaim | quote }}
OIDC_REFRESH_INTERVAL: {{ .refreshInterval | quote }}
{{- end }}
SESSION_IDLE_TIMEOUT: {{ .sessionIdleTimeout | quote }}
SESSION_MAX_AGE: {{ .sessionMaxAge | quote }}
DASHBOARD_TOKEN_SIGN_IN: {{ .tokenSignIn | quote }}
{{- end }}
# The worker runs as its own Deployment: the API must not run the background processors as well.
WORKER_MODE: "off"
{{- end }}

{{/* Secret settings, base64-encoded for a Secret's data (only without existingSecret). */}}
{{- define "foresight.secretData" -}}
DATABASE_URL: {{ .Values.postgres.url | b64enc | quote }}
{{- with .Values.postgres.readUrl }}
DATABASE_READ_URL: {{ . | b64enc | quote }}
{{- end }}
{{- if include "foresight.redisServer" . }}
REDIS_URL: {{ .Values.redis.url | b64enc | quote }}
{{- end }}
{{- with .Values.redis.password }}
REDIS_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.redis.sentinelPassword }}
REDIS_SENTINEL_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
TOKEN_PEPPER: {{ .Values.secrets.tokenPepper | b64enc | quote }}
ENCRYPTION_KEY: {{ .Values.secrets.encryptionKey | b64enc | quote }}
{{- end }}

{{/*
What every Foresight container shares: image, environment, security context, writable /tmp.
Takes (dict "root" $ "configMap" NAME "secret" NAME). Secrets are read by explicit key so that a key
missing from an existingSecret stops the pod with a clear error; with envFrom, a missing DATABASE_URL
would silently start the embedded database instead. DATABASE_READ_URL alone is optional: without the
key, every read goes to the primary.
*/}}
{{- define "foresight.container" -}}
image: {{ include "foresight.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
envFrom:
  - configMapRef:
      name: {{ .configMap }}
env:
  - name: DATABASE_URL
    valueFrom:
      secretKeyRef:
        name: {{ .secret }}
        key: DATABASE_URL
  - name: DATABASE_READ_URL
    valueFrom:
      secretKeyRef:
        name: {{ .secret }}
        key: DATABASE_READ_URL
        optional: true
  {{- if include "foresight.redisServer" .root }}
  - name: REDIS_URL
    valueFrom:
      secretKeyRef:
        name: {{ .secret }}
        key: REDIS_URL
  {{- else }}
  {{- range list "REDIS_PASSWORD" "REDIS_SENTINEL_PASSWORD" }}
  - name: {{ . }}
    valueFrom:
      secretKeyRef:
        name: {{ $.secret }}
        key: {{ . }}
        optional: true
  {{- end }}
  {{- end }}
  - name: TOKEN_PEPPER
    valueFrom:
      secretKeyRef:
        name: {{ .secret }}
        key: TOKEN_PEPPER
  - name: ENCRYPTION_KEY
    valueFrom:
      secretKeyRef:
        name: {{ .secret }}
        key: ENCRYPTION_KEY
  {{- if and .root.Values.sso.issuer .root.Values.sso.clientSecret.secretName }}
  - name: OIDC_CLIENT_SECRET
    valueFrom:
      secretKeyRef:
        name: {{ .root.Values.sso.clientSecret.secretName }}
        key: {{ .root.Values.sso.clientSecret.key }}
  {{- end }}
  {{- with .root.Values.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: ["ALL"]
volumeMounts:
  - name: tmp
    mountPath: /tmp
  {{- with .root.Values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* The container of the API and worker Deployments: the release's own ConfigMap and Secret. */}}
{{- define "foresight.appContainer" -}}
{{ include "foresight.container" (dict "root" . "configMap" (include "foresight.configMapName" .) "secret" (include "foresight.secretName" .)) }}
{{- end }}

{{/*
Pod-level settings every Foresight pod shares. Takes (dict "root" $ "workload" .Values.<api|worker|migrations>).
*/}}
{{- define "foresight.podSpec" -}}
# The processes never call the Kubernetes API.
automountServiceAccountToken: false
{{- with .root.Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  runAsNonRoot: true
  {{- with .root.Values.securityContext.runAsUser }}
  runAsUser: {{ . }}
  {{- end }}
  {{- with .root.Values.securityContext.runAsGroup }}
  runAsGroup: {{ . }}
  {{- end }}
  seccompProfile:
    type: RuntimeDefault
# On SIGTERM the processes finish in-flight requests and jobs for up to 30 s, after the API's 5 s preStop pause.
terminationGracePeriodSeconds: 40
{{- with .workload.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .workload.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .workload.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .workload.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  # The root filesystem is read-only; nothing is expected here, the limit stops a runaway writer.
  - name: tmp
    emptyDir:
      sizeLimit: 128Mi
  {{- with .root.Values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/*
Pod annotations of the API and worker. Environment variables are read only at start, so the checksums
roll the pods whenever the settings change. An existingSecret is not the chart's to hash: after rotating
it, run `kubectl rollout restart`. Takes (dict "root" $ "workload" .Values.<api|worker>).
*/}}
{{- define "foresight.podAnnotations" -}}
checksum/config: {{ include "foresight.configData" .root | sha256sum }}
{{- if not .root.Values.existingSecret }}
checksum/secret: {{ include "foresight.secretData" .root | sha256sum }}
{{- end }}
{{- with .workload.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
HorizontalPodAutoscaler of a Deployment. Takes (dict "root" $ "component" "api|worker" "autoscaling" .Values.<component>.autoscaling).
*/}}
{{- define "foresight.hpa" -}}
{{- if .autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "foresight.fullname" .root }}-{{ .component }}
  labels:
    {{- include "foresight.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "foresight.fullname" .root }}-{{ .component }}
  minReplicas: {{ .autoscaling.minReplicas }}
  maxReplicas: {{ .autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
{{- end }}

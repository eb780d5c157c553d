import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProbesController } from '../../apps/api/src/health/health.controller';
import {
  componentOf as component,
  container,
  find,
  isHook,
  loadTemplates,
  NAMESPACE,
  podTemplate,
  REPOSITORY,
  renderRelease,
  workload,
  workloads,
  type Manifest,
  type Release,
  type Values,
} from './chart';
import { EXISTING_SECRET, REQUIRED_INLINE, renderScenario, SCENARIOS } from './chart-scenarios';
import { entryPoint } from './entry-points';

/**
 * helm/foresight rendered the way `helm template` renders it (see go-template.ts), then checked as
 * Kubernetes would: well-formed objects, selectors that find their pods, references that resolve,
 * hardened pods, probes on the app's routes, and migrations that run before anything else.
 */

const templates = loadTemplates();

const API_VERSIONS: Record<string, string> = {
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  Deployment: 'apps/v1',
  Job: 'batch/v1',
  Ingress: 'networking.k8s.io/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  PodDisruptionBudget: 'policy/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  ServiceMonitor: 'monitoring.coreos.com/v1',
};
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
const STANDARD_LABELS = [
  'helm.sh/chart',
  'app.kubernetes.io/name',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
  'app.kubernetes.io/managed-by',
];

/** The app's forced exit after SIGTERM (libs/platform/src/lifecycle/shutdown.ts). */
const APP_SHUTDOWN_SECONDS = (() => {
  const source = readFileSync(join(REPOSITORY, 'libs/platform/src/lifecycle/shutdown.ts'), 'utf8');
  const match = /FORCED_EXIT_AFTER_MS = ([\d_]+)/.exec(source);
  if (!match) throw new Error('FORCED_EXIT_AFTER_MS not found in shutdown.ts: update this test');
  return Number(match[1].replace(/_/g, '')) / 1000;
})();

const selects = (selector: Record<string, unknown>, labels: Record<string, unknown>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
const selected = (release: Release, selector: Record<string, unknown>) =>
  workloads(release)
    .filter((w) => selects(selector, podTemplate(w).metadata.labels))
    .map((w) => component(w))
    .sort();
const hookWeight = (manifest: Manifest) => Number(manifest.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
const hookEvents = (manifest: Manifest) => String(manifest.metadata.annotations?.['helm.sh/hook'] ?? '').split(',');

/** Every ConfigMap and Secret a pod reads, by kind/name. */
function podReferences(manifest: Manifest): string[] {
  const c = container(manifest);
  const references = [
    ...(c.envFrom ?? []).flatMap((source) => (source.configMapRef ? [`ConfigMap/${source.configMapRef.name}`] : [])),
    ...(c.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [`Secret/${variable.valueFrom.secretKeyRef.name}`] : [])),
  ];
  return [...new Set(references)];
}

describe.each(SCENARIOS)('chart rendered with $name', (scenario) => {
  const release = renderScenario(templates, scenario);
  const values = release.values as {
    existingSecret: string;
    api: { replicas: number };
    worker: { replicas: number };
  };

  it('renders exactly the expected objects, each valid YAML with a known apiVersion and a DNS-safe name', () => {
    expect(release.manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual(scenario.resources);
    for (const manifest of release.manifests) {
      expect(`${manifest.kind} ${manifest.apiVersion}`).toBe(`${manifest.kind} ${API_VERSIONS[manifest.kind]}`);
      expect(manifest.metadata.name).toMatch(DNS_LABEL);
    }
  });

  it('labels every object and pod with the standard labels, as strings Kubernetes accepts', () => {
    const pods = workloads(release).map((w) => podTemplate(w).metadata);
    for (const metadata of [...release.manifests.map((m) => m.metadata), ...pods]) {
      expect(Object.keys(metadata.labels ?? {})).toEqual(expect.arrayContaining(STANDARD_LABELS));
      expect(metadata.labels?.['app.kubernetes.io/instance']).toBe(scenario.releaseName ?? 'acme');
      for (const value of Object.values(metadata.labels ?? {})) expect(value).toMatch(LABEL_VALUE);
      // Kubernetes rejects a number or boolean here (an unquoted hook weight, say).
      for (const value of Object.values(metadata.annotations ?? {})) expect(typeof value).toBe('string');
    }
  });

  it('gives each Deployment a selector of its own pods and lets an HPA alone own replicas', () => {
    const autoscaled = release.manifests
      .filter((m) => m.kind === 'HorizontalPodAutoscaler')
      .map((hpa) => (hpa.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef);
    for (const target of autoscaled) find(release, target.kind, target.name);
    for (const deployment of release.manifests.filter((m) => m.kind === 'Deployment')) {
      const spec = deployment.spec as { selector: { matchLabels: Record<string, string> }; replicas?: number };
      expect(selected(release, spec.selector.matchLabels)).toEqual([component(deployment)]);
      const hpa = autoscaled.some((target) => target.name === deployment.metadata.name);
      const expected = hpa ? undefined : values[component(deployment) as 'api' | 'worker'].replicas;
      expect(spec.replicas).toBe(expected);
    }
  });

  it('routes the Service, Ingress and PodDisruptionBudget to the API pods by names that exist', () => {
    const apiPorts = (container(workload(release, 'api')).ports ?? []).map((p) => p.name);
    const service = release.manifests.find((m) => m.kind === 'Service' && component(m) === 'api') as Manifest;
    const serviceSpec = service.spec as { selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
    expect(selected(release, serviceSpec.selector)).toEqual(['api']);
    for (const port of serviceSpec.ports) expect(apiPorts).toContain(port.targetPort);

    for (const ingress of release.manifests.filter((m) => m.kind === 'Ingress')) {
      const rules = (ingress.spec as { rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] }).rules;
      for (const { backend } of rules.flatMap((rule) => rule.http.paths)) {
        const target = find(release, 'Service', backend.service.name).spec as { ports: { name: string }[] };
        expect(target.ports.map((p) => p.name)).toContain(backend.service.port.name);
      }
    }
    for (const pdb of release.manifests.filter((m) => m.kind === 'PodDisruptionBudget')) {
      expect(selected(release, (pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels)).toEqual(['api']);
    }
  });

  it('covers every pod with the NetworkPolicy and scrapes the API and worker through the ServiceMonitor', () => {
    for (const policy of release.manifests.filter((m) => m.kind === 'NetworkPolicy')) {
      const spec = policy.spec as { podSelector: { matchLabels: Record<string, string> }; ingress: { ports: { port: string }[] }[] };
      expect(selected(release, spec.podSelector.matchLabels)).toEqual(['api', 'migrations', 'worker']);
      const containerPorts = workloads(release).flatMap((w) => (container(w).ports ?? []).map((p) => p.name));
      for (const { port } of spec.ingress.flatMap((rule) => rule.ports)) expect(containerPorts).toContain(port);
    }
    for (const monitor of release.manifests.filter((m) => m.kind === 'ServiceMonitor')) {
      const spec = monitor.spec as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
      const services = release.manifests.filter((m) => m.kind === 'Service' && selects(spec.selector.matchLabels, m.metadata.labels ?? {}));
      expect(services).toHaveLength(1);
      const metricsService = services[0].spec as { selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
      expect(spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
      expect(metricsService.ports.map((p) => p.name)).toEqual(['metrics']);
      // The migration pod is selected too but has no metrics port, so it never becomes an endpoint.
      for (const scraped of ['api', 'worker'] as const) {
        expect(selects(metricsService.selector, podTemplate(workload(release, scraped)).metadata.labels)).toBe(true);
        expect((container(workload(release, scraped)).ports ?? []).map((p) => p.name)).toContain(metricsService.ports[0].targetPort);
      }
    }
  });

  it('runs every pod unprivileged: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp', () => {
    for (const manifest of workloads(release)) {
      const pod = podTemplate(manifest).spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken).toBe(false);
      const c = container(manifest);
      expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      const tmp = c.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
      expect(pod.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
      expect(c.resources).toMatchObject({ requests: { cpu: expect.anything(), memory: expect.anything() } });
    }
  });

  it('lets every process finish its work after SIGTERM before Kubernetes kills it', () => {
    for (const manifest of workloads(release)) {
      const preStop = container(manifest).lifecycle?.preStop?.exec?.command;
      const pause = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
      expect(podTemplate(manifest).spec.terminationGracePeriodSeconds).toBeGreaterThan(APP_SHUTDOWN_SECONDS + pause);
    }
    expect(container(workload(release, 'api')).lifecycle?.preStop?.exec?.command).toEqual(['sleep', '5']);
  });

  it('probes the API on its /livez and /readyz routes and the worker on its metrics endpoint, by port name', () => {
    const api = container(workload(release, 'api'));
    expect(api.startupProbe?.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(api.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(api.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    const worker = container(workload(release, 'worker'));
    expect(worker.startupProbe?.httpGet).toEqual({ path: '/metrics', port: 'metrics' });
    expect(worker.livenessProbe?.httpGet).toEqual({ path: '/metrics', port: 'metrics' });
    // Ports named in probes exist on the container (the environment spec ties them to PORT and METRICS_PORT).
    for (const c of [api, worker]) {
      const named = (c.ports ?? []).map((p) => p.name);
      for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) if (probe) expect(named).toContain(probe.httpGet?.port);
    }
  });

  it('starts each process with its built entry point', () => {
    expect(container(workload(release, 'api')).args).toEqual([entryPoint('api')]);
    expect(container(workload(release, 'worker')).args).toEqual([entryPoint('worker')]);
    expect(container(workload(release, 'migrations')).args).toEqual([entryPoint('cli'), 'migrate']);
  });

  it('migrates in a pre-install/pre-upgrade hook that reads only what exists before the release does', () => {
    const job = workload(release, 'migrations');
    expect(hookEvents(job)).toEqual(expect.arrayContaining(['pre-install', 'pre-upgrade']));
    expect(podTemplate(job).spec.restartPolicy).toBe('Never');
    for (const reference of podReferences(job)) {
      if (reference === `Secret/${values.existingSecret}`) continue;
      const [kind, name] = reference.split('/');
      const source = find(release, kind, name);
      expect(`${reference} is a hook: ${isHook(source)}`).toBe(`${reference} is a hook: true`);
      expect(hookEvents(source)).toEqual(hookEvents(job));
      expect(hookWeight(source)).toBeLessThan(hookWeight(job));
    }
    // ...while the Deployments read the release's own ConfigMap and Secret, which outlive the hook.
    for (const name of ['api', 'worker'] as const) {
      for (const reference of podReferences(workload(release, name))) {
        if (reference === `Secret/${values.existingSecret}`) continue;
        const [kind, resourceName] = reference.split('/');
        expect(isHook(find(release, kind, resourceName))).toBe(false);
      }
    }
  });
});

describe('chart templates', () => {
  it('have every if/else/with branch rendered, and so YAML-checked, by some scenario', () => {
    const fresh = loadTemplates();
    for (const scenario of SCENARIOS) renderScenario(fresh, scenario);
    expect(fresh.branchesNotRendered()).toEqual([]);
  });

  it('probe the routes the app serves, outside the /v1 prefix', () => {
    const routes = Object.getOwnPropertyNames(ProbesController.prototype)
      .filter((method) => method !== 'constructor')
      .map((method) => Reflect.getMetadata('path', ProbesController.prototype[method as keyof ProbesController]) as unknown)
      .filter((path): path is string => typeof path === 'string');
    expect(routes.sort()).toEqual(['livez', 'readyz']);
    const main = readFileSync(join(REPOSITORY, 'apps/api/src/http/global-prefix.ts'), 'utf8');
    const excluded = /setGlobalPrefix\(\s*'v1',\s*\{\s*exclude:\s*\[([^\]]*)\]/.exec(main)?.[1] ?? '';
    // The probes are outside /v1 (the SDK's static files are too, but no probe points at them).
    expect(excluded.match(/'[^']*'/g)).toEqual(expect.arrayContaining(["'livez'", "'readyz'"]));
    // The worker's probe path, served by the metrics server of both processes.
    expect(readFileSync(join(REPOSITORY, 'libs/platform/src/metrics/metrics.module.ts'), 'utf8')).toContain("'/metrics'");
  });

  it('roll the pods when a setting or secret changes, and only then', () => {
    const annotations = (...overrides: Values[]) =>
      podTemplate(find(renderRelease(templates, [REQUIRED_INLINE, ...overrides]), 'Deployment', 'acme-foresight-worker')).metadata
        .annotations ?? {};
    const base = annotations();
    expect(base['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
    expect(base['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
    expect(annotations({ worker: { replicas: 3 } })).toEqual(base);
    const logLevel = annotations({ logLevel: 'debug' });
    expect(logLevel['checksum/config']).not.toBe(base['checksum/config']);
    expect(logLevel['checksum/secret']).toBe(base['checksum/secret']);
    const pepper = annotations({ secrets: { tokenPepper: 'z'.repeat(32) } });
    expect(pepper['checksum/secret']).not.toBe(base['checksum/secret']);
    expect(pepper['checksum/config']).toBe(base['checksum/config']);
  });

  it('render no Secret and hash none with an existingSecret', () => {
    const release = renderRelease(templates, [{ image: { repository: 'r/foresight' }, existingSecret: EXISTING_SECRET.name }]);
    expect(release.manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    const annotations = podTemplate(find(release, 'Deployment', 'acme-foresight-api')).metadata.annotations ?? {};
    expect(Object.keys(annotations)).toEqual(['checksum/config']);
    expect(release.notes).toContain(`kubectl -n ${NAMESPACE} rollout restart deployment/acme-foresight-api deployment/acme-foresight-worker`);
  });

  it('leave the user and group to the platform when they are null (OpenShift)', () => {
    const release = renderRelease(templates, [REQUIRED_INLINE, { securityContext: { runAsUser: null, runAsGroup: null } }]);
    for (const manifest of workloads(release)) {
      expect(podTemplate(manifest).spec.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    }
  });

  it('keep every name within 63 characters for the longest release name Helm allows', () => {
    const release = renderRelease(templates, [REQUIRED_INLINE], `r${'e'.repeat(52)}`);
    for (const manifest of release.manifests) expect(manifest.metadata.name).toMatch(DNS_LABEL);
  });

  it('pin the image by digest when one is given, else by tag, defaulting to the app version', () => {
    const image = (overrides: Values) =>
      String(container(find(renderRelease(templates, [REQUIRED_INLINE, overrides]), 'Deployment', 'acme-foresight-api')).image);
    expect(image({ image: { repository: 'r/foresight' } })).toBe('r/foresight:0.1.0');
    expect(image({ image: { repository: 'r/foresight', tag: '0.2.0' } })).toBe('r/foresight:0.2.0');
    const digest = `sha256:${'e'.repeat(64)}`;
    expect(image({ image: { repository: 'r/foresight', tag: '0.2.0', digest } })).toBe(`r/foresight@${digest}`);
  });
});

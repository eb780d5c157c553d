import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ProbesController } from '../../apps/api/src/health/health.controller';
import {
  componentOf as component,
  container,
  find,
  isHook,
  kubernetesSchemaProblems,
  lintChart,
  type Manifest,
  NAMESPACE,
  type PodTemplate,
  podTemplate,
  type Release,
  renderNotes,
  renderRelease,
  REPOSITORY,
  type Values,
  workload,
  workloads,
} from './chart';
import { EXISTING_SECRET, renderScenario, REQUIRED_INLINE, SCENARIOS } from './chart-scenarios';
import { entryPoint } from './entry-points';

/**
 * helm/foresight linted and rendered by the real helm, then checked as Kubernetes would: objects valid
 * against the Kubernetes OpenAPI schemas, selectors that find their pods, references that resolve,
 * hardened pods, probes on the app's routes, migrations that run before anything else, and a
 * `helm test` that asks the API whether it is ready.
 */

const API_VERSIONS: Record<string, string> = {
  ConfigMap: 'v1',
  Pod: 'v1',
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
const hookEvents = (manifest: Manifest) => {
  const hook = manifest.metadata.annotations?.['helm.sh/hook'];
  return typeof hook === 'string' ? hook.split(',') : [];
};
const UNPRIVILEGED_CONTAINER = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
const UNPRIVILEGED_POD = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

/** The `helm test` Pod (hook "test") of a release. */
function helmTestPod(release: Release): Manifest & { spec: PodTemplate['spec'] } {
  const tests = release.manifests.filter((m) => hookEvents(m).includes('test'));
  if (tests.length !== 1 || tests[0].kind !== 'Pod') throw new Error(`expected one helm test Pod, got ${tests.map((m) => m.kind).join(', ')}`);
  return tests[0] as Manifest & { spec: PodTemplate['spec'] };
}

interface NetworkPolicyRule {
  ports: { port: string | number }[];
  from?: { podSelector?: { matchLabels: Record<string, string> } }[];
  to?: { podSelector?: { matchLabels: Record<string, string> } }[];
}

/** Whether some rule opens the `http` port to pods with `labels` (a rule without peers opens it to all). */
const opensHttp = (rules: NetworkPolicyRule[], peers: (rule: NetworkPolicyRule) => NetworkPolicyRule['from'], labels: Record<string, unknown>) =>
  rules.some(
    (rule) =>
      rule.ports.some((port) => port.port === 'http') &&
      (peers(rule)?.some((peer) => peer.podSelector !== undefined && selects(peer.podSelector.matchLabels, labels)) ?? true),
  );

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
  const release = renderScenario(scenario);
  const values = release.values as {
    existingSecret: string;
    api: { replicas: number };
    worker: { replicas: number };
  };

  it('passes helm lint --strict', () => {
    const lint = lintChart(scenario.values);
    expect(`${lint.stdout}${lint.stderr}`).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(lint.status).toBe(0);
  });

  it('renders only objects valid against the Kubernetes OpenAPI schemas of their apiVersion and kind', () => {
    expect(kubernetesSchemaProblems(release.manifests)).toEqual([]);
  });

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

  it('runs a helm test Pod that asks the API Service for /readyz with the app image, unprivileged', () => {
    const pod = helmTestPod(release);
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(pod.spec.securityContext).toMatchObject(UNPRIVILEGED_POD);
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    const [probe] = pod.spec.containers;
    expect(probe.securityContext).toEqual(UNPRIVILEGED_CONTAINER);
    expect(probe.image).toBe(container(workload(release, 'api')).image);
    const url = new URL(probe.args?.at(-1) ?? '');
    expect(url.pathname).toBe('/readyz');
    const service = find(release, 'Service', url.hostname).spec as { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
    expect(selected(release, service.selector)).toEqual(['api']);
    expect(service.ports.find((port) => port.port === Number(url.port || 80))?.targetPort).toBe('http');
  });

  it('lets the helm test Pod through the NetworkPolicy to the API port', () => {
    const apiLabels = podTemplate(workload(release, 'api')).metadata.labels;
    for (const policy of release.manifests.filter((m) => m.kind === 'NetworkPolicy')) {
      const spec = policy.spec as { policyTypes: string[]; ingress: NetworkPolicyRule[]; egress?: NetworkPolicyRule[] };
      expect(opensHttp(spec.ingress, (rule) => rule.from, helmTestPod(release).metadata.labels ?? {})).toBe(true);
      if (spec.policyTypes.includes('Egress')) expect(opensHttp(spec.egress ?? [], (rule) => rule.to, apiLabels)).toBe(true);
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
      expect(pod.securityContext).toMatchObject(UNPRIVILEGED_POD);
      expect(pod.automountServiceAccountToken).toBe(false);
      const c = container(manifest);
      expect(c.securityContext).toEqual(UNPRIVILEGED_CONTAINER);
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
  it('probe the routes the app serves, outside the /v1 prefix', () => {
    const routes = Object.getOwnPropertyNames(ProbesController.prototype)
      .filter((method) => method !== 'constructor')
      // eslint-disable-next-line @typescript-eslint/unbound-method -- the method is a metadata key here, never called
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
      podTemplate(find(renderRelease([REQUIRED_INLINE, ...overrides]), 'Deployment', 'acme-foresight-worker')).metadata
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
    const existingSecret = { image: { repository: 'r/foresight' }, existingSecret: EXISTING_SECRET.name };
    const release = renderRelease([existingSecret]);
    expect(release.manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    const annotations = podTemplate(find(release, 'Deployment', 'acme-foresight-api')).metadata.annotations ?? {};
    expect(Object.keys(annotations)).toEqual(['checksum/config']);
    expect(renderNotes([existingSecret])).toContain(`kubectl -n ${NAMESPACE} rollout restart deployment/acme-foresight-api deployment/acme-foresight-worker`);
  });

  it('leave the user and group to the platform when they are null (OpenShift)', () => {
    const release = renderRelease([REQUIRED_INLINE, { securityContext: { runAsUser: null, runAsGroup: null } }]);
    for (const manifest of workloads(release)) {
      expect(podTemplate(manifest).spec.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    }
  });

  it('keep every name within 63 characters for the longest release name Helm allows', () => {
    const release = renderRelease([REQUIRED_INLINE], `r${'e'.repeat(52)}`);
    for (const manifest of release.manifests) expect(manifest.metadata.name).toMatch(DNS_LABEL);
  });

  it('pin the image by digest when one is given, else by tag, defaulting to the app version', () => {
    const image = (overrides: Values) =>
      String(container(find(renderRelease([REQUIRED_INLINE, overrides]), 'Deployment', 'acme-foresight-api')).image);
    expect(image({ image: { repository: 'r/foresight' } })).toBe('r/foresight:0.1.0');
    expect(image({ image: { repository: 'r/foresight', tag: '0.2.0' } })).toBe('r/foresight:0.2.0');
    const digest = `sha256:${'e'.repeat(64)}`;
    expect(image({ image: { repository: 'r/foresight', tag: '0.2.0', digest } })).toBe(`r/foresight@${digest}`);
  });

  it('are checked against Kubernetes schemas that refuse what the API server refuses', () => {
    const deployment = structuredClone(find(renderRelease([REQUIRED_INLINE]), 'Deployment', 'acme-foresight-api'));
    podTemplate(deployment).spec.containers[0].ports = [{ name: 'http', containerPort: '3000' as unknown as number }];
    const unknownKind: Manifest = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(kubernetesSchemaProblems([deployment, unknownKind])).toEqual([
      'Deployment/acme-foresight-api: /spec/template/spec/containers/0/ports/0/containerPort must be integer',
      'Widget/w: no schema for apiVersion example.com/v1',
    ]);
  });

  it('run a helm test that passes when /readyz answers 200, and fails on 503 or no answer', async () => {
    const args = helmTestPod(renderRelease([REQUIRED_INLINE])).spec.containers[0].args ?? [];
    let ready = true;
    const server = createServer((request, response) => {
      response.statusCode = request.url === '/readyz' && ready ? 200 : 503;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    // The Pod's own command line, on the image's entry point (node), against this server.
    const exitCode = (target: string) =>
      promisify(execFile)(process.execPath, [...args.slice(0, -1), target]).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
    try {
      expect(await exitCode(url)).toBe(0);
      ready = false;
      expect(await exitCode(url)).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await exitCode(url)).toBe(1);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { helm, type HelmResult } from './helm';

/** helm/foresight as the real `helm` lints, validates and renders it (helm.ts). */

export const REPOSITORY = join(__dirname, '..', '..');
export const CHART_DIR = join(REPOSITORY, 'helm', 'foresight');

export type Values = Record<string, unknown>;

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, unknown>; annotations?: Record<string, unknown> };
  [field: string]: unknown;
}

export interface Release {
  readonly manifests: Manifest[];
  /** values.yaml with the overrides coalesced as Helm does, for the tests' expectations. */
  readonly values: Values;
}

export const chartMetadata = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as {
  name: string;
  version: string;
  appVersion: string;
};
const defaultValues = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Values;
const valuesSchema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Record<string, unknown>;

export function readChartFile(path: string): string {
  return readFileSync(join(CHART_DIR, path), 'utf8');
}

export function exampleValues(name: string): Values {
  return parse(readChartFile(join('examples', name))) as Values;
}

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Helm's coalescing: maps merge key by key, anything else replaces, null deletes the key. */
function mergeValues(base: Values, ...overrides: Values[]): Values {
  return overrides.reduce<Values>((merged, override) => {
    const result: Values = { ...merged };
    for (const [key, value] of Object.entries(override)) {
      if (value === null) delete result[key];
      else if (isMap(value) && isMap(result[key])) result[key] = mergeValues(result[key], value);
      else result[key] = value;
    }
    return result;
  }, base);
}

const RELEASE_NAME = 'acme';
export const NAMESPACE = 'analytics';

/** Runs `helm <args> -f <override>...`, each override in a values file of its own, in order. */
function helmWithValues(args: string[], overrides: Values[]): HelmResult {
  const directory = mkdtempSync(join(tmpdir(), 'foresight-values-'));
  try {
    const files = overrides.map((override, index) => {
      const file = join(directory, `${index}.json`);
      writeFileSync(file, JSON.stringify(override));
      return file;
    });
    return helm([...args, ...files.flatMap((file) => ['--values', file])]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function succeeded(result: HelmResult, command: string): string {
  if (result.status !== 0) throw new Error(`${command} failed:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/**
 * `helm template <releaseName> helm/foresight -f ...overrides` (hooks included): helm validates the
 * values against values.schema.json and renders; the output is parsed as YAML 1.1, the YAML Kubernetes
 * tooling reads (an unquoted `off` is a boolean there), throwing on any YAML error.
 */
export function renderRelease(overrides: Values[] = [], releaseName = RELEASE_NAME): Release {
  const command = ['template', releaseName, CHART_DIR, '--namespace', NAMESPACE];
  const manifests = parseManifests(succeeded(helmWithValues(command, overrides), 'helm template'));
  return { manifests, values: mergeValues(defaultValues, ...overrides) };
}

/** NOTES.txt as `helm install` prints it (`helm template` leaves it out); a client-side dry run needs no cluster. */
export function renderNotes(overrides: Values[] = []): string {
  const command = ['install', RELEASE_NAME, CHART_DIR, '--namespace', NAMESPACE, '--dry-run=client', '--output', 'json'];
  const release = JSON.parse(succeeded(helmWithValues(command, overrides), 'helm install --dry-run=client')) as { info: { notes: string } };
  return release.info.notes;
}

/** `helm lint --strict` with the overrides: warnings fail too. */
export function lintChart(overrides: Values[] = []): HelmResult {
  return helmWithValues(['lint', '--strict', CHART_DIR, '--namespace', NAMESPACE], overrides);
}

export interface SchemaError {
  /** JSON pointer of the offending value, e.g. "/postgres/url" (of the missing one for a missing property). */
  readonly path: string;
  readonly message: string;
}

const SCHEMA_FAILURE = "values don't meet the specifications of the schema(s)";
/** One line of helm's schema report, nested by indentation: `  - at '/ports/http': minimum: got 80, want 1,024`. */
const SCHEMA_ERROR_LINE = /^(\s*)- at '([^']*)': (.*)$/;

/**
 * What helm refuses in the defaults merged with `overrides`, by values.schema.json: the innermost
 * errors of its report (the allOf/if wrappers around them left out). Empty when helm renders.
 */
export function schemaErrors(...overrides: Values[]): SchemaError[] {
  const result = helmWithValues(['template', RELEASE_NAME, CHART_DIR], overrides);
  if (result.status === 0) return [];
  if (!result.stderr.includes(SCHEMA_FAILURE)) throw new Error(`helm template failed, not on values.schema.json:\n${result.stderr}`);
  const lines = result.stderr.split('\n').flatMap((line) => {
    const match = SCHEMA_ERROR_LINE.exec(line);
    return match ? [{ depth: match[1].length, path: match[2], message: match[3] }] : [];
  });
  return lines
    .filter((line, index) => (lines[index + 1]?.depth ?? 0) <= line.depth)
    .flatMap(({ path, message }) => {
      const missing = /^missing propert(?:y|ies) (.*)$/.exec(message)?.[1].match(/'[^']*'/g);
      return missing ? missing.map((name) => ({ path: `${path}/${name.slice(1, -1)}`, message })) : [{ path, message }];
    });
}

function parseManifests(text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(text, { version: '1.1', uniqueKeys: true, prettyErrors: true })) {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`helm rendered invalid YAML:\n${problems.map((p) => p.message).join('\n')}\n---\n${text}`);
    const content: unknown = document.toJS();
    if (content === null || content === undefined) continue;
    if (!isMap(content)) throw new Error(`helm rendered a document that is not a mapping:\n${text}`);
    manifests.push(content as Manifest);
  }
  return manifests;
}

/** Problems the Kubernetes OpenAPI schemas find in the objects, one line each (kubernetes-schemas.mjs). */
export function kubernetesSchemaProblems(manifests: Manifest[]): string[] {
  const run = spawnSync(process.execPath, [join(__dirname, 'kubernetes-schemas.mjs')], { input: JSON.stringify(manifests), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`kubernetes-schemas.mjs failed:\n${run.stderr}`);
  return run.stdout.split('\n').filter((line) => line !== '');
}

export function find(release: Release, kind: string, name: string): Manifest {
  const found = release.manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${release.manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
}

export function isHook(manifest: Manifest): boolean {
  return manifest.metadata.annotations?.['helm.sh/hook'] !== undefined;
}

/** A Kubernetes container, as far as these tests look into one. */
export interface Container {
  name: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; value?: unknown; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  ports?: { name: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string }[];
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  [field: string]: unknown;
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
}

export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    volumes?: { name: string; emptyDir?: Record<string, unknown> }[];
    securityContext?: Record<string, unknown>;
    [field: string]: unknown;
  };
}

export type Component = 'api' | 'worker' | 'migrations';

export const componentOf = (manifest: Manifest) => manifest.metadata.labels?.['app.kubernetes.io/component'];

/** The Deployments and the Job. */
export function workloads(release: Release): Manifest[] {
  return release.manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'Job');
}

export function workload(release: Release, component: Component): Manifest {
  const found = workloads(release).find((m) => componentOf(m) === component);
  if (!found) throw new Error(`no ${component} workload`);
  return found;
}

/** The pod template of a Deployment or Job. */
export function podTemplate(manifest: Manifest): PodTemplate {
  return (manifest.spec as { template: PodTemplate }).template;
}

/** The one container of a workload's pods. */
export function container(manifest: Manifest): Container {
  const containers = podTemplate(manifest).spec.containers;
  if (containers.length !== 1) throw new Error(`${manifest.metadata.name} has ${containers.length} containers`);
  return containers[0];
}

export function containerPort(manifest: Manifest, name: string): number | undefined {
  return container(manifest).ports?.find((port) => port.name === name)?.containerPort;
}

/** Secrets' data decoded, by name, as a pod's environment would see it. */
export function secretData(release: Release, name: string): Record<string, string> | undefined {
  const secret = release.manifests.find((m) => m.kind === 'Secret' && m.metadata.name === name);
  if (!secret) return undefined;
  const data = (secret.data ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

type SchemaNode = { $ref?: string; description?: string; properties?: Record<string, SchemaNode>; additionalProperties?: SchemaNode | boolean };

function resolveRef(node: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  const target = node.$ref.replace(/^#\//, '').split('/').reduce<unknown>((at, key) => (at as Values)[key], valuesSchema);
  return resolveRef(target as SchemaNode);
}

/** The description values.schema.json gives a value, by dotted path (undefined when it has none). */
export function describeValue(path: string): string | undefined {
  let node: SchemaNode | undefined = valuesSchema;
  for (const key of path.split('.')) {
    const container: SchemaNode = resolveRef(node);
    const additional = typeof container.additionalProperties === 'object' ? container.additionalProperties : undefined;
    node = container.properties?.[key] ?? additional;
    if (!node) return undefined;
  }
  return node.description ?? resolveRef(node).description;
}

/** Every leaf of values.yaml (scalars, lists, empty maps) with its default, in file order. */
export function valueLeaves(values: Values = defaultValues, prefix = ''): [string, unknown][] {
  return Object.entries(values).flatMap(([key, value]) =>
    isMap(value) && Object.keys(value).length > 0 ? valueLeaves(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value] as [string, unknown]],
  );
}

/** The rows of the values table in helm/foresight/README.md, as they must read. */
export function valuesReference(): string[] {
  return valueLeaves().map(([path, value]) => `| \`${path}\` | \`${JSON.stringify(value)}\` | ${describeValue(path) ?? ''} |`);
}

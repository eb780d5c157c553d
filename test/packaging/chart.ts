import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { TemplateSet } from './go-template';

/** Loading, validating and rendering helm/foresight the way `helm template` does, without helm. */

export const REPOSITORY = join(__dirname, '..', '..');
export const CHART_DIR = join(REPOSITORY, 'helm', 'foresight');
const TEMPLATES_DIR = join(CHART_DIR, 'templates');

export type Values = Record<string, unknown>;

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, unknown>; annotations?: Record<string, unknown> };
  [field: string]: unknown;
}

export interface Release {
  readonly manifests: Manifest[];
  readonly notes: string;
  readonly values: Values;
}

export const chartMetadata = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as {
  name: string;
  version: string;
  appVersion: string;
};
const defaultValues = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Values;
const valuesSchema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Record<string, unknown>;
const templateFiles = readdirSync(TEMPLATES_DIR).sort();

export function readChartFile(path: string): string {
  return readFileSync(join(CHART_DIR, path), 'utf8');
}

export function exampleValues(name: string): Values {
  return parse(readChartFile(join('examples', name))) as Values;
}

const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(valuesSchema);

/** Schema errors of the values Helm would validate: the defaults merged with `overrides`. */
export function schemaErrors(...overrides: Values[]): ErrorObject[] {
  return validate(mergeValues(defaultValues, ...overrides)) ? [] : (validate.errors ?? []);
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
      else if (isMap(value) && isMap(result[key])) result[key] = mergeValues(result[key] as Values, value);
      else result[key] = value;
    }
    return result;
  }, base);
}

export function loadTemplates(): TemplateSet {
  return new TemplateSet(Object.fromEntries(templateFiles.map((file) => [file, readFileSync(join(TEMPLATES_DIR, file), 'utf8')])));
}

const RELEASE_NAME = 'acme';
export const NAMESPACE = 'analytics';

/**
 * `helm template <releaseName> helm/foresight -f ...overrides`: validates the merged values against
 * the schema (throws, as helm does), renders every template and parses it as YAML 1.1, the YAML
 * Kubernetes tooling reads (an unquoted `off` is a boolean there), throwing on any YAML error.
 */
export function renderRelease(templates: TemplateSet, overrides: Values[] = [], releaseName = RELEASE_NAME): Release {
  const values = mergeValues(defaultValues, ...overrides);
  if (!validate(values)) throw new Error(`values rejected by values.schema.json: ${JSON.stringify(validate.errors)}`);
  const root = {
    Values: values,
    Release: { Name: releaseName, Namespace: NAMESPACE, Service: 'Helm' },
    Chart: { Name: chartMetadata.name, Version: chartMetadata.version, AppVersion: chartMetadata.appVersion },
  };
  const manifests = templateFiles.filter((file) => file.endsWith('.yaml')).flatMap((file) => parseManifests(file, templates.render(file, root)));
  return { manifests, notes: templates.render('NOTES.txt', root), values };
}

function parseManifests(file: string, text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(text, { version: '1.1', uniqueKeys: true, prettyErrors: true })) {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${file} is not valid YAML:\n${problems.map((p) => p.message).join('\n')}\n---\n${text}`);
    const content: unknown = document.toJS();
    if (content === null || content === undefined) continue;
    if (!isMap(content)) throw new Error(`${file}: a document is not a mapping:\n${text}`);
    manifests.push(content as Manifest);
  }
  return manifests;
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
  env?: { name: string; value?: unknown; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
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
  let node: SchemaNode | undefined = valuesSchema as SchemaNode;
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

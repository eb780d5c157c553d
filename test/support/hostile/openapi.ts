/** The parts of an OpenAPI 3 document the hostile-input suite reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  default?: unknown;
  example?: unknown;
  description?: string;
  $ref?: string;
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  security?: Array<Record<string, string[]>>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface Parameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the document, as the suite drives it. */
export interface Operation {
  /** `GET /v1/models/{modelId}`: the key coverage is counted by. */
  key: string;
  method: string;
  pathTemplate: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body?: JsonSchema;
  /** Needs `Authorization: Bearer` (the document lists a security requirement). */
  authenticated: boolean;
  /** The Segment-compatible routes, the only ones where Basic auth is allowed. */
  segmentCompatible: boolean;
  /** Routes an ingest-only token may use: the document's `events` tag. */
  ingestion: boolean;
  /** A file server below `pathTemplate`'s `{path}`: driven with escapes from its root, Range and conditional headers. */
  staticFiles: boolean;
  summary: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document; path parameters also come from the template, so undeclared ones are driven too. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [pathTemplate, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const declared = (operation.parameters ?? []).map(resolveParameter);
      const templated = [...pathTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const pathParams: Parameter[] = templated.map((name) => {
        const found = declared.find((p) => p.in === 'path' && p.name === name);
        return { name, required: true, schema: resolve(document, found?.schema ?? { type: 'string' }) };
      });
      const queryParams = declared
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: p.name, required: p.required === true, schema: resolve(document, p.schema ?? {}) }));
      const content = operation.requestBody?.content ?? {};
      const bodySchema = content['application/json']?.schema ?? Object.values(content)[0]?.schema;
      const summary = operation.summary ?? '';
      const bodyDescription = bodySchema?.description ?? '';
      operations.push({
        key: `${method.toUpperCase()} ${pathTemplate}`,
        method: method.toUpperCase(),
        pathTemplate,
        pathParams,
        queryParams,
        body: operation.requestBody ? resolve(document, bodySchema ?? {}) : undefined,
        authenticated: (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0),
        segmentCompatible: /segment/i.test(summary) || /segment/i.test(bodyDescription),
        ingestion: (operation.tags ?? []).includes('events'),
        staticFiles: false,
        summary,
      });
    }
  }
  return operations;
}

/**
 * Routes the API serves outside its OpenAPI document, driven and counted like the document's own:
 * the dashboard's static files, the document itself and its viewer (whose assets are static files too).
 */
export const UNDOCUMENTED_OPERATIONS: Operation[] = [
  unauthenticatedGet('/', 'Redirect to the dashboard'),
  unauthenticatedGet('/dashboard', 'Redirect to /dashboard/'),
  { ...unauthenticatedGet('/dashboard/{path}', "The dashboard's static files"), staticFiles: true },
  unauthenticatedGet('/v1/openapi.json', 'The OpenAPI document'),
  unauthenticatedGet('/v1/openapi.yaml', 'The OpenAPI document as YAML'),
  unauthenticatedGet('/v1/docs', "The OpenAPI document's viewer"),
  { ...unauthenticatedGet('/v1/docs/{path}', "The viewer's static files"), staticFiles: true },
];

function unauthenticatedGet(pathTemplate: string, summary: string): Operation {
  const pathParams = [...pathTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], required: true, schema: { type: 'string' } }));
  return {
    key: `GET ${pathTemplate}`,
    method: 'GET',
    pathTemplate,
    pathParams,
    queryParams: [],
    authenticated: false,
    segmentCompatible: false,
    ingestion: false,
    staticFiles: false,
    summary,
  };
}

function resolveParameter(parameter: OpenApiParameter | { $ref: string }): OpenApiParameter {
  if ('$ref' in parameter) throw new Error(`parameter $ref ${parameter.$ref} is not supported by the hostile-input suite`);
  return parameter;
}

/** Inlines `#/components/schemas/...` references (the document has few; cycles stop at depth 8). */
export function resolve(document: OpenApiDocument, schema: JsonSchema, depth = 0): JsonSchema {
  if (depth > 8) return {};
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return resolve(document, document.components?.schemas?.[name] ?? {}, depth + 1);
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(document, v, depth + 1)]));
  }
  if (schema.items) out.items = resolve(document, schema.items, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (schema[key]) out[key] = schema[key].map((s) => resolve(document, s, depth + 1));
  }
  return out;
}

/** Every property name the document mentions: a dictionary for bodies the document leaves open (Segment messages). */
export function propertyNames(document: OpenApiDocument): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value) as [string, unknown][]) {
        if (key === 'properties' && child !== null && typeof child === 'object') Object.keys(child).forEach((name) => names.add(name));
        visit(child);
      }
    }
  };
  visit(document.paths);
  visit(document.components);
  return [...names].sort();
}

import type { paths } from './generated/openapi';

/**
 * The typed API client, one declarative entry per route. `route(method, path)` only accepts a
 * method and path the service's OpenAPI document declares (the generated `paths`), and the client
 * method it becomes takes that operation's path parameters, query and body and resolves to its
 * 200 answer, all typed from the same document. A route added to the API is one line here; the
 * coverage test (api-routes.spec.ts) fails until it is.
 */
export const API_ROUTES = {
  health: route('get', '/v1/health'),
  events: {
    /** Sends events as they are; the event client (Foresight) batches and retries for you. */
    send: route('post', '/v1/events'),
    /** Events per hour or day by event name, and active users. */
    volume: route('get', '/v1/events/volume'),
    /** The latest events as they arrive; pass the answer's cursor as `after` to get only new ones. */
    live: route('get', '/v1/events/live'),
    /** Events accepted, duplicate and rejected per hour or day and sending library. */
    ingestion: route('get', '/v1/events/ingestion'),
  },
  predictions: {
    get: route('get', '/v1/predict'),
    /** Up to 1,000 users in one request: each entry is what `get` answers, or `{ userId, error: 'not_found' }`. */
    batch: route('post', '/v1/predict/batch'),
    /** Every logged prediction in the range, one row at a time (NDJSON, constant memory). */
    export: stream('get', '/v1/export/predictions'),
  },
  models: {
    list: route('get', '/v1/models'),
    get: route('get', '/v1/models/{modelId}'),
    create: route('post', '/v1/models'),
    update: route('patch', '/v1/models/{modelId}'),
    delete: route('delete', '/v1/models/{modelId}'),
    retrain: route('post', '/v1/models/retrain'),
    versions: route('get', '/v1/models/{modelId}/versions'),
    /** Serves this version (promote, or roll back to an earlier one). */
    promote: route('post', '/v1/models/{modelId}/versions/{version}/promote'),
    /** Scores every user active within the feature window now (a bulk scoring run, answered 202 as queued). */
    score: route('post', '/v1/models/{modelId}/score'),
    /** A bulk scoring run's state and progress. */
    scoringRun: route('get', '/v1/models/{modelId}/score/{runId}'),
  },
  audiences: {
    list: route('get', '/v1/audiences'),
    /** With its size, validation precision and recall at its cutoff, and its size over time (`history`). */
    get: route('get', '/v1/audiences/{audienceId}'),
    create: route('post', '/v1/audiences'),
    delete: route('delete', '/v1/audiences/{audienceId}'),
    /** Every current member, one row at a time (NDJSON, constant memory). */
    members: stream('get', '/v1/audiences/{audienceId}/members'),
  },
  monitoring: {
    get: route('get', '/v1/models/monitor/{modelId}'),
    history: route('get', '/v1/models/monitor/{modelId}/history'),
  },
  users: {
    export: route('get', '/v1/users/export'),
    delete: route('delete', '/v1/users'),
    sessions: route('get', '/v1/users/sessions'),
    events: route('get', '/v1/users/events'),
    erasures: route('get', '/v1/users/erasures'),
    /** Accepts a suppressed user's events again. */
    unsuppress: route('delete', '/v1/users/suppression'),
  },
  webhooks: {
    list: route('get', '/v1/webhooks'),
    create: route('post', '/v1/webhooks'),
    delete: route('delete', '/v1/webhooks/{webhookId}'),
    deliveries: route('get', '/v1/webhooks/{webhookId}/deliveries'),
    retryDelivery: route('post', '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry'),
    sendTest: route('post', '/v1/webhooks/{webhookId}/test'),
  },
  tokens: {
    list: route('get', '/v1/tokens'),
    current: route('get', '/v1/tokens/current'),
    create: route('post', '/v1/tokens'),
    revoke: route('delete', '/v1/tokens/{tokenId}'),
  },
  organization: {
    get: route('get', '/v1/organization'),
    update: route('patch', '/v1/organization'),
    /** Which identity-provider group holds which dashboard role (viewer, editor, admin) in this organization. */
    ssoGrants: route('get', '/v1/organization/sso-grants'),
    /** Replaces the organization's grants: a person keeps only what the new list gives their groups. */
    replaceSsoGrants: route('put', '/v1/organization/sso-grants'),
  },
  audit: {
    list: route('get', '/v1/audit'),
  },
};

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A request's parts: path parameters (filled into the template), query and JSON body. */
export interface RequestParts {
  path?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * How a client built from the route table sends requests: the Node SDK's HTTP client, or the
 * dashboard's fetch in the browser. This file imports nothing at run time, so both can use it.
 */
export interface RouteTransport {
  json(method: string, pathTemplate: string, parts?: RequestParts): Promise<unknown>;
  stream(method: string, pathTemplate: string, parts?: RequestParts): AsyncIterable<unknown>;
}

type Route = JsonRoute<unknown> | StreamRoute<unknown>;
type RouteTree = { [name: string]: Route | RouteTree };

/** The client of a route table: the same tree, each route a method sending through `transport`. */
export function bindRoutes<T extends object>(tree: T, transport: RouteTransport): ApiClientOf<T> {
  return bind(tree as RouteTree, transport) as ApiClientOf<T>;
}

function bind(tree: RouteTree, transport: RouteTransport): Record<string, unknown> {
  return Object.fromEntries(Object.entries(tree).map(([name, entry]) => [name, isRoute(entry) ? methodFor(entry, transport) : bind(entry, transport)]));
}

function methodFor(route: Route, transport: RouteTransport): (input?: RequestParts) => unknown {
  const method = route.method.toUpperCase();
  return route.kind === 'json' ? (input) => transport.json(method, route.path, input) : (input) => transport.stream(method, route.path, input);
}

export function isRoute(entry: Route | RouteTree): entry is Route {
  return typeof entry.kind === 'string' && typeof entry.path === 'string';
}

/**
 * A route's address under `base`: its path template filled (each parameter encoded) and its query,
 * strings as they are and other values as JSON (`true`, `50`). One serialization for every client.
 */
export function routeUrl(base: string, pathTemplate: string, { path = {}, query = {} }: RequestParts = {}): string {
  const filled = pathTemplate.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (path[name] === undefined) throw new TypeError(`Foresight: ${pathTemplate} needs path.${name}`);
    return encodeURIComponent(String(path[name]));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const text = search.toString();
  return `${base}${filled}${text ? `?${text}` : ''}`;
}

export type ApiPath = keyof paths;
type MethodsOf<P extends ApiPath> = { [M in HttpMethod]-?: [NonNullable<paths[P][M]>] extends [never] ? never : M }[HttpMethod];
type OperationOf<P extends ApiPath, M extends HttpMethod> = NonNullable<paths[P][M]>;

/** A route answered with one JSON value. `operation` exists only in the type, to carry it. */
export interface JsonRoute<O> {
  kind: 'json';
  method: HttpMethod;
  path: string;
  operation?: O;
}

/** A route whose rows are read as an NDJSON stream. */
export interface StreamRoute<O> {
  kind: 'ndjson';
  method: HttpMethod;
  path: string;
  operation?: O;
}

function route<P extends ApiPath, M extends MethodsOf<P>>(method: M, path: P): JsonRoute<OperationOf<P, M>> {
  return { kind: 'json', method, path };
}

function stream<P extends ApiPath, M extends MethodsOf<P>>(method: M, path: P): StreamRoute<OperationOf<P, M>> {
  return { kind: 'ndjson', method, path };
}

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : R;
type ParametersOf<O> = O extends { parameters: infer P extends { path?: unknown; query?: unknown } } ? P : { path?: never; query?: never };
/** `{ [name]: V }`, optional when V may be undefined, absent when V is never. */
type Part<Name extends string, V> = [NonNullable<V>] extends [never] ? unknown : undefined extends V ? { [N in Name]?: NonNullable<V> } : { [N in Name]: V };

/** What a route's client method takes: `{ path, query, body }`, each only when the operation has it. */
export type InputOf<O> = Part<'path', ParametersOf<O>['path']> &
  Part<'query', ParametersOf<O>['query']> &
  Part<'body', O extends { requestBody?: infer B } ? JsonOf<B> : never>;
/** The 200 answer's JSON. */
export type OutputOf<O> = O extends { responses: { 200: infer R } } ? JsonOf<R> : never;
/** One row of an exported array. */
export type RowOf<O> = OutputOf<O> extends ReadonlyArray<infer Row> ? Row : never;

type Method<Input, Result> = object extends Input ? (input?: Input) => Result : (input: Input) => Result;

/** The client the route table becomes: the same tree, each entry a typed method. */
export type ApiClientOf<T> = {
  [K in keyof T]: T[K] extends JsonRoute<infer O>
    ? Method<InputOf<O>, Promise<OutputOf<O>>>
    : T[K] extends StreamRoute<infer O>
      ? Method<InputOf<O>, AsyncIterable<RowOf<O>>>
      : ApiClientOf<T[K]>;
};

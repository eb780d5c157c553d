import { type ConnectionOptions, HttpClient, type RequestParts } from './http';
import { ndjsonObjects } from './ndjson';
import { API_ROUTES, type ApiClientOf, type JsonRoute, type StreamRoute } from './routes';

export type ForesightApiOptions = ConnectionOptions & { token: string };
export type ForesightApi = ApiClientOf<typeof API_ROUTES>;

/**
 * A typed client for the whole API (server-side token with `read` and, for models, privacy and
 * webhooks, `admin`): `api.models.get({ path: { modelId } })`, `api.predictions.get({ query: { userId } })`,
 * `for await (const row of api.predictions.export({ query: { since: '2026-11-01' } }))`.
 */
export function createApiClient(options: ForesightApiOptions): ForesightApi {
  return clientFor(API_ROUTES, new HttpClient(options.token, options)) as ForesightApi;
}

type Route = JsonRoute<unknown> | StreamRoute<unknown>;
type RouteTree = { [name: string]: Route | RouteTree };

function clientFor(tree: RouteTree, http: HttpClient): Record<string, unknown> {
  return Object.fromEntries(Object.entries(tree).map(([name, entry]) => [name, isRoute(entry) ? methodFor(entry, http) : clientFor(entry, http)]));
}

function methodFor(route: Route, http: HttpClient): (input?: RequestParts) => unknown {
  const method = route.method.toUpperCase();
  if (route.kind === 'json') return (input) => http.json(method, route.path, input);
  return (input) => ({
    async *[Symbol.asyncIterator]() {
      const response = await http.request(method, route.path, input, 'application/x-ndjson');
      if (response.body) yield* ndjsonObjects(response.body);
    },
  });
}

export function isRoute(entry: Route | RouteTree): entry is Route {
  return typeof entry.kind === 'string' && typeof entry.path === 'string';
}

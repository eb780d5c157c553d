import { type ConnectionOptions, HttpClient } from './http';
import { ndjsonObjects } from './ndjson';
import { API_ROUTES, type ApiClientOf, bindRoutes } from './routes';

export type ForesightApiOptions = ConnectionOptions & { token: string };
export type ForesightApi = ApiClientOf<typeof API_ROUTES>;

/**
 * A typed client for the whole API (server-side token with `read` and, for models, privacy and
 * webhooks, `admin`): `api.models.get({ path: { modelId } })`, `api.predictions.get({ query: { userId } })`,
 * `for await (const row of api.predictions.export({ query: { since: '2026-11-01' } }))`.
 */
export function createApiClient(options: ForesightApiOptions): ForesightApi {
  const http = new HttpClient(options.token, options);
  return bindRoutes(API_ROUTES, {
    json: (method, path, parts) => http.json(method, path, parts),
    stream: (method, path, parts) => ({
      async *[Symbol.asyncIterator]() {
        const response = await http.request(method, path, parts, 'application/x-ndjson');
        if (response.body) yield* ndjsonObjects(response.body);
      },
    }),
  });
}

import { API_ROUTES, bindRoutes, type RequestParts, routeUrl } from '@foresight/api-routes';
import { csrfToken, storedToken } from '../auth/session';
import type { ApiErrorBody, CurrentToken, SignInState } from './types';

/** An error answer of the API, with its error code, message and, for an unexpected failure, the id the server logged it under. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly correlationId: string | null = null,
  ) {
    super(message);
  }
}

/** Called when the API refuses the token (expired, revoked, unknown): the app returns to sign-in. */
let onTokenRefused: (message: string) => void = () => undefined;
export const whenTokenRefused = (listener: (message: string) => void): void => {
  onTokenRefused = listener;
};

/** Sent with the session cookie on every call of a person signed in through single sign-on (CSRF protection). */
const CSRF_HEADER = 'x-foresight-csrf';

/**
 * Calls the API as whoever is signed in: a person's session cookie with its CSRF token, or the pasted
 * token (`token` overrides it, to check a token before keeping it). With `accept` (a download: CSV, say),
 * a successful answer is its text as sent.
 */
async function send(method: string, pathTemplate: string, parts: RequestParts = {}, token?: string, accept?: string): Promise<unknown> {
  const url = routeUrl(window.location.origin, pathTemplate, parts);
  const csrf = token === undefined ? csrfToken() : null;
  const headers: Record<string, string> = csrf === null ? { authorization: `Bearer ${token ?? storedToken() ?? ''}` } : { [CSRF_HEADER]: csrf };
  if (parts.body !== undefined) headers['content-type'] = 'application/json';
  if (accept !== undefined) headers.accept = accept;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body: parts.body === undefined ? undefined : JSON.stringify(parts.body), cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'network', 'The Foresight API could not be reached. Check that the service is running and this network can reach it.');
  }
  const text = await response.text();
  if (response.ok && accept !== undefined) return text;
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (response.ok) return body;
  const { error, message } = (body ?? {}) as ApiErrorBody;
  const failure = new ApiError(response.status, error ?? 'error', message ?? `The API answered ${response.status}.`, response.headers.get('x-correlation-id'));
  if (response.status === 401 && token === undefined) {
    onTokenRefused(csrf === null ? 'Your session ended: the token expired or was revoked. Sign in again with a valid token.' : `Your session ended: ${message ?? 'sign in again.'}`);
  }
  throw failure;
}

/**
 * The one client of the API: the Node SDK's route table, generated from the OpenAPI document, bound
 * to the browser's fetch, so a path, parameter or answer the API does not declare fails to compile
 * (`api.models.get({ path: { modelId } })`). Pages never call fetch themselves.
 */
export const api = {
  ...bindRoutes(API_ROUTES, {
    json: (method, path, parts) => send(method, path, parts),
    stream: () => {
      throw new Error('The dashboard reads no NDJSON stream.');
    },
  }),
  /** The sign-in routes serve the dashboard alone, outside /v1 and its OpenAPI document. */
  auth: {
    state: () => send('GET', '/auth/session') as Promise<SignInState>,
    signOut: () => send('POST', '/auth/logout') as Promise<{ redirect: string | null }>,
  },
  /** Whether this deployment serves a file (an SDK tarball under /sdk), asked without downloading it. */
  serves: (path: string) =>
    fetch(new URL(path, window.location.origin), { method: 'HEAD', cache: 'no-store' }).then(
      (response) => response.ok,
      () => false,
    ),
  /** Every current member of an audience as CSV (userId, confidence, since), for a download. */
  audienceMembersCsv: (audienceId: string) => send('GET', API_ROUTES.audiences.members.path, { path: { audienceId } }, undefined, 'text/csv') as Promise<string>,
  /** The token a person pastes at sign-in, checked before it is kept. */
  tokenFor: (token: string) => send('GET', API_ROUTES.tokens.current.path, {}, token) as Promise<CurrentToken>,
};

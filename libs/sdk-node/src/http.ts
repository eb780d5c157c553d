import { setTimeout as sleep } from 'node:timers/promises';
import { retryAfterSeconds, retryDelayMs } from '@foresight/sdk-core';
import { ConnectionError, errorFor, RetryableError } from './errors';
import { type RequestParts, routeUrl } from './routes';

export interface ConnectionOptions {
  /** Address of the Foresight API, e.g. `https://foresight.internal` (without /v1). */
  host: string;
  /** Milliseconds to wait for an answer's headers. Default 30,000. */
  timeoutMs?: number;
  /** Retries of a GET or DELETE answered 429 or 503, or not answered at all. Default 2. */
  maxRetries?: number;
  /** Longest wait before such a retry; a longer Retry-After is thrown as RateLimitedError at once. Default 30,000. */
  maxRetryWaitMs?: number;
}

const IDEMPOTENT = new Set(['GET', 'DELETE', 'PUT']);

/** Authenticated requests to one Foresight API, answered or thrown as typed errors. */
export class HttpClient {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxRetryWaitMs: number;

  constructor(
    private readonly token: string,
    options: ConnectionOptions,
  ) {
    if (typeof token !== 'string' || token.length === 0) throw new TypeError('Foresight: a token is required');
    if (typeof options?.host !== 'string' || !/^https?:\/\//.test(options.host)) throw new TypeError('Foresight: `host` is the API address, e.g. https://foresight.internal');
    this.base = options.host.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
  }

  /** The successful response, its body unread; every other outcome is thrown as a ForesightError. */
  async request(method: string, pathTemplate: string, parts: RequestParts = {}, accept = 'application/json'): Promise<Response> {
    const url = routeUrl(this.base, pathTemplate, parts);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(method, url, parts.body, accept);
      } catch (error) {
        const wait = this.retryWaitMs(method, error, attempt);
        if (wait === undefined) throw error;
        await sleep(wait);
      }
    }
  }

  async json(method: string, pathTemplate: string, parts?: RequestParts): Promise<unknown> {
    return (await this.request(method, pathTemplate, parts)).json();
  }

  private async attempt(method: string, url: string, body: unknown, accept: string): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // The timeout covers the wait for an answer, not the reading of a long export stream.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: abort.signal });
    } catch (error) {
      throw new ConnectionError(abort.signal.aborted ? abort.signal.reason : error);
    } finally {
      clearTimeout(timer);
    }
    if (response.ok) return response;
    const errorBody: unknown = await response.json().catch(() => undefined);
    throw errorFor(response.status, errorBody, retryAfterSeconds(response.headers.get('retry-after')));
  }

  /** Milliseconds to wait before trying again, or undefined when the error is final. */
  private retryWaitMs(method: string, error: unknown, attempt: number): number | undefined {
    if (attempt > this.maxRetries || !IDEMPOTENT.has(method)) return undefined;
    if (!(error instanceof RetryableError || error instanceof ConnectionError)) return undefined;
    const retryAfter = error instanceof RetryableError ? error.retryAfter : undefined;
    const wait = retryDelayMs(attempt, Math.random(), retryAfter);
    return wait <= this.maxRetryWaitMs ? wait : undefined;
  }
}

import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@foresight/platform';
import { AddressPolicy, ipLiteral } from '../address-policy';

export interface AttemptResult {
  /** The HTTP status, or null when no response arrived. */
  statusCode: number | null;
  /** Why the attempt failed without a response (timeout, refused address, connection error). */
  error: string | null;
  /** For the server log only, never the caller: the socket error behind an internal receiver's "unreachable". */
  detail?: string;
  latencyMs: number;
}

class RefusedAddressError extends Error {}

/**
 * POSTs one signed body. Redirects are not followed (a 3xx is a failed attempt), so a receiver
 * cannot bounce the request to an address the policy refuses.
 */
@Injectable()
export class WebhookSenderService {
  private readonly timeoutMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly policy: AddressPolicy,
  ) {
    this.timeoutMs = config.webhooks.timeoutMs;
  }

  send(url: URL, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // Node connects to IP literals without calling `lookup`, so those are checked here.
    const literal = ipLiteral(url);
    const refusal = literal === null ? null : this.policy.refusal(literal);
    if (refusal) return Promise.resolve({ statusCode: null, error: `refused: ${refusal}`, latencyMs: 0 });
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // Set once the address is known: an allow-listed internal receiver's connection errors are not reported in detail.
    const target = { internal: literal !== null && this.policy.isInternal(literal) };
    return new Promise((resolve) => {
      const outgoing = request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          lookup: this.checkedLookup(target),
          // Covers connecting, the response and draining it: a hanging receiver holds a slot for at most this long.
          signal: AbortSignal.timeout(this.timeoutMs),
          agent: false,
        },
        (response) => {
          resolve({ statusCode: response.statusCode ?? null, error: null, latencyMs: elapsed() });
          // The body is not used; drain it so the receiver can finish. A timeout while draining is not an error of ours.
          response.on('error', () => undefined).resume();
        },
      );
      outgoing.on('error', (error) => {
        const shown = this.describe(error, target.internal);
        resolve({ statusCode: null, error: shown, ...(shown === error.message ? {} : { detail: error.message }), latencyMs: elapsed() });
      });
      outgoing.end(body);
    });
  }

  /**
   * Resolves the receiver's name, refuses it when one of its addresses is refused (a name must not mix a
   * public and an internal address), and hands the checked addresses to the socket: the connection
   * goes to an address that was checked, so DNS rebinding between check and connect is impossible.
   */
  private checkedLookup(target: { internal: boolean }): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
        if (error) return callback(error, '');
        // The resolved address is not named: the caller must not learn the internal network's layout from the log.
        if (addresses.some((entry) => this.policy.refusal(entry.address) !== null)) {
          return callback(new RefusedAddressError(`refused: ${hostname} resolves to an address outside the allowed networks`), '');
        }
        target.internal = addresses.some((entry) => this.policy.isInternal(entry.address));
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    };
  }

  /**
   * Error text for the delivery log. Node's socket errors name the address, never the URL (whose query
   * may hold a token). For a receiver in an internal network the log says only `unreachable`: refused,
   * unroutable and silent addresses look the same, so the delivery log cannot serve as a port scanner.
   */
  private describe(error: Error, internal: boolean): string {
    if (error instanceof RefusedAddressError) return error.message;
    if (internal) return 'unreachable';
    return error.name === 'AbortError' ? `timed out after ${this.timeoutMs} ms` : error.message;
  }
}

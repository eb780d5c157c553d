import { createHmac, randomBytes } from 'node:crypto';
import type { TokenEnvironment } from './scopes';

const TOKEN_PATTERN = /^pat_(dev|staging|prod)_[0-9a-f]{64}$/;

/** `pat_<env>_` + 256 random bits in hex: long enough to be unguessable, shaped so secret scanners spot leaks. */
export function generateTokenSecret(environment: TokenEnvironment): string {
  return `pat_${environment}_${randomBytes(32).toString('hex')}`;
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** HMAC-SHA-256 under the server-side pepper: a stolen table of hashes cannot be checked offline. */
export function hashTokenSecret(secret: string, pepper: string): Buffer {
  return createHmac('sha256', pepper).update(secret).digest();
}

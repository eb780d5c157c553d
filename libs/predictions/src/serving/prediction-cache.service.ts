import { hash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Prediction } from './prediction';

/** A cached answer is reused only while the user's events and the serving versions are unchanged, and at most this long. */
const CACHE_TTL_MS = 300_000;
/** Oldest entries go first beyond this many users (a few MB). */
const MAX_ENTRIES = 50_000;

interface CachedPredictions {
  fingerprint: string;
  predictions: Prediction[];
  storedAt: number;
}

/**
 * The last answer per user, in this process: a repeat request with nothing new is answered from here
 * and not logged again. In memory rather than Redis: a shared cache cost two more round trips per
 * request, and a repeat is allowed on another replica to be answered (and logged) afresh.
 * An entry is only used when the user's current activity revision (read from Postgres on every
 * request) matches its fingerprint, so an erased user is a 404 whatever is cached. Keys hold a
 * hash of the user id.
 */
@Injectable()
export class PredictionCacheService {
  private readonly entries = new Map<string, CachedPredictions>();

  /**
   * The cached answer, explained or not as asked: an explained answer is only the one computed with its
   * explanations (from the same feature values), never an unexplained one; an unexplained answer drops them.
   */
  get(organizationId: string, userId: string, fingerprint: string, explained: boolean, now = Date.now()): Prediction[] | undefined {
    const cached = this.entries.get(key(organizationId, userId));
    if (!cached || cached.fingerprint !== fingerprint || now - cached.storedAt >= CACHE_TTL_MS) return undefined;
    if (!explained) return cached.predictions.map(({ explanation: _explanation, ...prediction }) => prediction);
    return cached.predictions.every((prediction) => prediction.explanation !== undefined) ? cached.predictions : undefined;
  }

  set(organizationId: string, userId: string, fingerprint: string, predictions: Prediction[], now = Date.now()): void {
    const entryKey = key(organizationId, userId);
    // Re-inserted at the end: the Map's order is the eviction order.
    this.entries.delete(entryKey);
    this.entries.set(entryKey, { fingerprint, predictions, storedAt: now });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(organizationId: string, userId: string): void {
    this.entries.delete(key(organizationId, userId));
  }

  has(organizationId: string, userId: string): boolean {
    return this.entries.has(key(organizationId, userId));
  }
}

function key(organizationId: string, userId: string): string {
  // crypto.hash: one native call, where createHash().update().digest() makes three and an object.
  return `${organizationId}:${hash('sha256', userId, 'base64url')}`;
}

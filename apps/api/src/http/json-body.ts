import type { FastifyRequest } from 'fastify';
import { type AppError, invalidRequest } from '@foresight/platform';

/**
 * How deep a whole JSON body may nest outside ingestion (whose events libs/events bounds at 32
 * levels with field details): far above any real document of ours, far below a stack overflow.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export interface JsonScan {
  /** Nesting went past MAX_JSON_DEPTH (the scan stopped there). */
  tooDeep: boolean;
  /** A string (key or value) holds the escape \u0000, which Postgres text and jsonb refuse. */
  hasNul: boolean;
}

/**
 * One linear pass over the raw text, before JSON.parse and anything recursive sees it: a body nested
 * thousands of levels deep must be a 400, never a stack overflow. Malformed text is left to the parser.
 */
export function scanJson(text: string): JsonScan {
  let depth = 0;
  let hasNul = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        if (text.startsWith('u0000', i + 1)) hasNul = true;
        i++;
      } else if (c === QUOTE) {
        inString = false;
      }
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) return { tooDeep: true, hasNul };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return { tooDeep: false, hasNul };
}

export function tooDeep(): AppError {
  return invalidRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, [{ path: '(body)', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }]);
}

/** The dotted path of the first key or string value holding U+0000 (the value is depth-bounded already). */
export function nulBytePath(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (next.value.includes('\u0000')) return next.path || '(body)';
    } else if (next.value !== null && typeof next.value === 'object') {
      for (const [key, inner] of Object.entries(next.value)) {
        const path = next.path ? `${next.path}.${key}` : key;
        if (key.includes('\u0000')) return path;
        pending.push({ value: inner, path });
      }
    }
  }
  return undefined;
}

/** 400 naming the field: Postgres cannot store U+0000 in text or jsonb, so it must never get that far. */
export function nulByteRefusal(field: string): AppError {
  const shown = JSON.stringify(field).slice(1, -1);
  return invalidRequest(`${shown}: must not contain the NUL character (U+0000)`, [{ path: shown, message: 'must not contain the NUL character (U+0000)' }]);
}

/** Bodies parsed with a NUL in them, by raw request: the parser runs before authentication. */
const bodyNulFields = new WeakMap<object, string>();

/** Marks a parsed body for refusal once the caller is authenticated (see refuseNulInBody). */
export function deferNulRefusal(request: FastifyRequest, field: string): void {
  bodyNulFields.set(request.raw, field);
}

/** The 400 of a body holding U+0000, after authentication: an unauthenticated caller learns nothing but 401. */
export function refuseNulInBody(request: FastifyRequest): void {
  const field = bodyNulFields.get(request.raw);
  if (field !== undefined) throw nulByteRefusal(field);
}

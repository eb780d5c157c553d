import { invalidRequest, isBigintText, isExactUtcInstant } from '@foresight/platform';

/** A position in the export order (predicted_at, id): the first row of the next page. */
export interface ExportPosition {
  /** ISO 8601 with microseconds, Postgres's timestamp precision. */
  predictedAt: string;
  id: string;
}

export function encodeCursor(position: ExportPosition): string {
  return Buffer.from(`${position.predictedAt}|${position.id}`).toString('base64url');
}

/** 400 for anything that is not a cursor this service issued, or names what Postgres could not compare. */
export function decodeCursor(cursor: string): ExportPosition {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !isExactUtcInstant(match[1]) || !isBigintText(match[2])) {
    throw invalidRequest('cursor: not a cursor from a Link header of this endpoint', [{ path: 'cursor', message: 'invalid cursor' }]);
  }
  return { predictedAt: match[1], id: match[2] };
}

import { serializeError } from './error-serializer';

/** The shape TypeORM gives a failed query: the pg error's fields copied onto a QueryFailedError. */
function queryFailed(message: string, fields: Record<string, unknown>): Error {
  class QueryFailedError extends Error {}
  const driverError = Object.assign(new Error(message), { severity: 'ERROR', ...fields });
  return Object.assign(new QueryFailedError(message), {
    query: 'INSERT INTO events (user_id) SELECT * FROM unnest($1::text[])',
    parameters: [['alice', 'bob']],
    driverError,
    severity: 'ERROR',
    ...fields,
  });
}

describe('serializeError', () => {
  it('drops the statement, its parameters, the driver error and the fields Postgres fills with values', () => {
    const error = queryFailed('duplicate key value violates unique constraint "identities_pkey"', {
      code: '23505',
      detail: 'Key (organization_id, anonymous_id)=(org_1, alice-anon) already exists.',
      where: 'JSON data, line 1: {"userId":"alice"...',
      table: 'identities',
      constraint: 'identities_pkey',
    });
    const logged = JSON.stringify(serializeError(error));
    for (const value of ['alice', 'bob', 'INSERT', 'parameters', 'driverError', 'Key (']) expect(logged).not.toContain(value);
    expect(serializeError(error)).toMatchObject({ type: 'QueryFailedError', code: '23505', table: 'identities', constraint: 'identities_pkey' });
  });

  it('replaces the value a database error message quotes, in the message and the stack', () => {
    const error = queryFailed('invalid input syntax for type integer: "alice"', { code: '22P02' });
    const logged = serializeError(error) as { message: string; stack: string };
    expect(logged.message).toBe('invalid input syntax for type integer: "[redacted]"');
    expect(logged.stack).not.toContain('alice');
    expect(logged.stack).toContain('at ');
  });

  it('scrubs causes and nested errors too, and keeps other errors as they are', () => {
    const cause = queryFailed('"1e-320" is out of range for type real', { code: '22003' });
    const wrapper = new Error('ingest failed', { cause });
    expect(JSON.stringify(serializeError(wrapper))).not.toMatch(/1e-320|parameters|alice/);
    expect(serializeError(new Error('Cannot read "x" of undefined'))).toMatchObject({ type: 'Error', message: 'Cannot read "x" of undefined' });
    expect(serializeError({ parameters: ['alice'], reason: 'x' })).toEqual({ reason: 'x' });
    expect(serializeError('plain')).toBe('plain');
  });
});

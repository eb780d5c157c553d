import { decodeCursor, encodeCursor } from './export-cursor';

describe('export cursors', () => {
  it('round-trip a position', () => {
    const position = { predictedAt: '2026-11-22T01:02:03.456789Z', id: '9007199254740993' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  const cursor = (text: string) => Buffer.from(text).toString('base64url');

  it.each([
    '',
    'not-base64!',
    cursor('2026-11-22|1'),
    cursor('2026-13-45T99:00:00.000Z|1'),
    // What Postgres cannot hold: a 30 February (JavaScript would roll it over), year 0, an id past bigint.
    cursor('2026-02-30T00:00:00.000000Z|1'),
    cursor('0000-01-01T00:00:00.000000Z|1'),
    cursor('2026-11-22T01:02:03.456789Z|9223372036854775808'),
    cursor('2026-11-22T01:02:03.456789Z|12345678901234567890'),
  ])(
    'reject %p with a 400',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    },
  );
});

import { decodeCursor, encodeCursor } from './export-cursor';

describe('export cursors', () => {
  it('round-trip a position', () => {
    const position = { predictedAt: '2026-11-22T01:02:03.456789Z', id: '9007199254740993' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it.each(['', 'not-base64!', Buffer.from('2026-11-22|1').toString('base64url'), Buffer.from('2026-13-45T99:00:00.000Z|1').toString('base64url')])(
    'reject %p with a 400',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    },
  );
});

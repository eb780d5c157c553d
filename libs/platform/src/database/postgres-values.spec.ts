import { isBigintText, isExactUtcInstant, isStorableInstant, postgresErrorCode } from './postgres-values';

describe('isBigintText', () => {
  it('takes the ids a bigint holds and nothing past it', () => {
    expect(['0', '1', '9223372036854775807'].map(isBigintText)).toEqual([true, true, true]);
    expect(['9223372036854775808', '99999999999999999999', '', '-1', '1e3', ' 1'].map(isBigintText)).toEqual([false, false, false, false, false, false]);
  });
});

describe('isExactUtcInstant', () => {
  it('takes real calendar dates and times of years 0001 to 9999', () => {
    for (const text of ['2024-02-29', '0001-01-01', '9999-12-31', '2026-11-21T10:15:00Z', '2026-11-21T10:15:00.123456Z', '2026-11-21T23:59:59.999Z']) {
      expect([text, isExactUtcInstant(text)]).toEqual([text, true]);
    }
  });

  it('refuses dates JavaScript would roll over and years Postgres or four digits cannot hold', () => {
    for (const text of ['2026-02-30', '2026-02-29', '2026-04-31', '2026-13-01', '0000-01-01', '2026-02-30T00:00:00.000000Z', '2026-01-01T24:00:00Z', 'yesterday']) {
      expect([text, isExactUtcInstant(text)]).toEqual([text, false]);
    }
  });
});

describe('isStorableInstant', () => {
  it('refuses invalid dates, year 0 and years past 9999', () => {
    expect(isStorableInstant(new Date('2026-01-01T00:00:00Z'))).toBe(true);
    expect(isStorableInstant(new Date(Number.NaN))).toBe(false);
    expect(isStorableInstant(new Date('0000-06-01T00:00:00Z'))).toBe(false);
    expect(isStorableInstant(new Date('9999-12-31T23:59:59-23:59'))).toBe(false);
  });
});

describe('postgresErrorCode', () => {
  it("reads the SQLSTATE of TypeORM's wrapper or pg's own error, and nothing from socket errors", () => {
    expect(postgresErrorCode(Object.assign(new Error('dup'), { driverError: { code: '23505' } }))).toBe('23505');
    expect(postgresErrorCode(Object.assign(new Error('dup'), { code: '23505', severity: 'ERROR' }))).toBe('23505');
    expect(postgresErrorCode(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBeUndefined();
    expect(postgresErrorCode(undefined)).toBeUndefined();
    expect(postgresErrorCode('23505')).toBeUndefined();
  });
});

import type { Repository } from 'typeorm';
import { loadConfig, type SqlExecutor } from '@foresight/platform';
import type { ApiToken } from './api-token.entity';
import { generateTokenSecret, hashTokenSecret } from './token-secret';
import { TokensService } from './tokens.service';

const PEPPER = 'p'.repeat(32);
const config = loadConfig({ DATABASE_URL: 'postgres://u@db/f', TOKEN_PEPPER: PEPPER, ENCRYPTION_KEY: 'a'.repeat(64) });

/** The token table as the lookup statement sees it, counting lookups per secret hash. */
function tokensWith(...secrets: string[]) {
  const known = new Set(secrets.map((secret) => hashTokenSecret(secret, PEPPER).toString('hex')));
  const lookups = new Map<string, number>();
  const sql = {
    first: async (_statement: unknown, [hash]: [Buffer]) => {
      const key = hash.toString('hex');
      lookups.set(key, (lookups.get(key) ?? 0) + 1);
      return known.has(key)
        ? { id: 'tok_1', organization_id: 'org_1', environment: 'prod', scopes: ['read'], expires_at: null, revoked_at: null, last_used_at: new Date(Date.now()), rate_limit_per_minute: 300, burst_per_minute: 600 }
        : undefined;
    },
  };
  const service = new TokensService({} as Repository<ApiToken>, sql as unknown as SqlExecutor, config);
  return { service, lookupsOf: (secret: string) => lookups.get(hashTokenSecret(secret, PEPPER).toString('hex')) ?? 0 };
}

describe('TokensService.authenticate', () => {
  beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-22T10:00:00Z')));
  afterEach(() => jest.restoreAllMocks());

  it('keeps a verified token cached while more than 10,000 made-up tokens are refused', async () => {
    const good = generateTokenSecret('prod');
    const { service, lookupsOf } = tokensWith(good);
    await service.authenticate(good);
    for (let i = 0; i < 10_050; i++) {
      await expect(service.authenticate(generateTokenSecret('prod'))).rejects.toMatchObject({ code: 'invalid_token' });
    }
    await service.authenticate(good);
    expect(lookupsOf(good)).toBe(1);
    expect(service.wasVerified(good)).toBe(true);
  });

  it('remembers a refused token briefly, and never as verified', async () => {
    const madeUp = generateTokenSecret('prod');
    const { service, lookupsOf } = tokensWith();
    for (let i = 0; i < 3; i++) await expect(service.authenticate(madeUp)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(lookupsOf(madeUp)).toBe(1);
    expect(service.wasVerified(madeUp)).toBe(false);
  });
});

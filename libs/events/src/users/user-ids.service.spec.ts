import type { Organization, OrganizationsService } from '@foresight/auth';
import { loadConfig } from '@foresight/platform';
import { storedUserIdFromStorage } from './stored-user-id';
import { UserIdsService } from './user-ids.service';

describe('UserIdsService', () => {
  const config = loadConfig({ DATABASE_URL: 'postgres://localhost/x', TOKEN_PEPPER: 'p'.repeat(40), ENCRYPTION_KEY: 'a'.repeat(64) });
  const hashing = new Set(['org_hashed', 'org_hashed_too']);
  const organizations = { get: async (id: string) => ({ id, hashUserIds: hashing.has(id) }) as Organization } as OrganizationsService;
  const userIds = new UserIdsService(organizations, config);

  const stored = async (organizationId: string, rawId: string, service = userIds) => (await service.resolve(organizationId, rawId)).stored;

  it('keeps ids as sent for organizations without hashUserIds, and can give them back', async () => {
    expect(await userIds.resolve('org_plain', 'user-1')).toEqual({ id: 'user-1', stored: 'user-1' });
    expect(await userIds.callerIdOf('org_plain', storedUserIdFromStorage('user-1'))).toBe('user-1');
  });

  it('turns ids into a stable keyed HMAC per organization', async () => {
    const first = await stored('org_hashed', 'user-1');
    expect(first).toMatch(/^psn_[A-Za-z0-9_-]{43}$/);
    expect(await stored('org_hashed', 'user-1')).toBe(first);
    expect(await stored('org_hashed', 'user-2')).not.toBe(first);
    expect(await stored('org_hashed_too', 'user-1')).not.toBe(first);
    expect(await userIds.callerIdOf('org_hashed', first)).toBeUndefined();
    const other = new UserIdsService(organizations, loadConfig({ DATABASE_URL: 'postgres://localhost/x', TOKEN_PEPPER: 'q'.repeat(40), ENCRYPTION_KEY: 'a'.repeat(64) }));
    expect(await stored('org_hashed', 'user-1', other)).not.toBe(first);
  });

  it('gives every form an id may be stored under, before and after a hashUserIds switch', async () => {
    const forms = userIds.storedForms('org_switching', 'user-1');
    expect(forms).toEqual(['user-1', expect.stringMatching(/^psn_/)]);
    expect(forms).toContain(await stored('org_switching', 'user-1'));
    hashing.add('org_switching');
    try {
      // A fresh service: the setting is cached for a few seconds per process.
      expect(forms).toContain(await stored('org_switching', 'user-1', new UserIdsService(organizations, config)));
    } finally {
      hashing.delete('org_switching');
    }
    expect(userIds.storedForms('org_hashed', 'user-1')).not.toContain(forms[1]);
    expect(userIds.userHashes('org_switching', 'user-1')).toEqual(forms.map((form) => userIds.userHash('org_switching', form)));
  });

  it('names users in privacy records by a hash that reveals neither id nor organization', () => {
    const id = (text: string) => storedUserIdFromStorage(text);
    const hash = userIds.userHash('org_plain', id('user-1'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(userIds.userHash('org_plain', id('user-1'))).toBe(hash);
    expect(userIds.userHash('org_other', id('user-1'))).not.toBe(hash);
    expect(userIds.userHash('org_plai', id('nuser-1'))).not.toBe(hash);
  });
});

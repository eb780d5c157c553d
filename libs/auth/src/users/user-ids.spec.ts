import { loadConfig } from '@foresight/platform';
import type { Organization } from '../organizations/organization.entity';
import type { OrganizationsService } from '../organizations/organizations.service';
import { UserIds } from './user-ids';

describe('UserIds', () => {
  const config = loadConfig({ DATABASE_URL: 'postgres://localhost/x', TOKEN_PEPPER: 'p'.repeat(40), ENCRYPTION_KEY: 'a'.repeat(64) });
  const hashing = new Set(['org_hashed', 'org_hashed_too']);
  const organizations = { get: async (id: string) => ({ id, hashUserIds: hashing.has(id) }) as Organization } as OrganizationsService;
  const userIds = new UserIds(organizations, config);

  it('keeps ids as sent for organizations without hashUserIds', async () => {
    expect(await userIds.pseudonymize('org_plain', 'user-1')).toBe('user-1');
  });

  it('turns ids into a stable keyed HMAC per organization', async () => {
    const first = await userIds.pseudonymize('org_hashed', 'user-1');
    expect(first).toMatch(/^psn_[A-Za-z0-9_-]{43}$/);
    expect(await userIds.pseudonymize('org_hashed', 'user-1')).toBe(first);
    expect(await userIds.pseudonymize('org_hashed', 'user-2')).not.toBe(first);
    expect(await userIds.pseudonymize('org_hashed_too', 'user-1')).not.toBe(first);
    const other = new UserIds(organizations, loadConfig({ DATABASE_URL: 'postgres://localhost/x', TOKEN_PEPPER: 'q'.repeat(40), ENCRYPTION_KEY: 'a'.repeat(64) }));
    expect(await other.pseudonymize('org_hashed', 'user-1')).not.toBe(first);
  });

  it('names users in privacy records by a hash that reveals neither id nor organization', () => {
    const hash = userIds.userHash('org_plain', 'user-1');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(userIds.userHash('org_plain', 'user-1')).toBe(hash);
    expect(userIds.userHash('org_other', 'user-1')).not.toBe(hash);
    expect(userIds.userHash('org_plai', 'nuser-1')).not.toBe(hash);
  });
});

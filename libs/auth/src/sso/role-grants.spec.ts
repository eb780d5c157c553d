import { grantedRole } from './role-grants';

const grants = [
  { group: 'analysts', organizationId: 'org_a', role: 'viewer' as const },
  { group: 'ml', organizationId: 'org_a', role: 'editor' as const },
  { group: 'ops', organizationId: 'org_a', role: 'admin' as const },
  { group: 'other-team', organizationId: 'org_b', role: 'admin' as const },
];

describe('grantedRole', () => {
  it('grants the strongest role the groups hold in the first granted organization', () => {
    expect(grantedRole({ groups: ['analysts', 'ml'] }, 'groups', grants)).toEqual({ organizationId: 'org_a', role: 'editor' });
    expect(grantedRole({ groups: ['other-team', 'ops'] }, 'groups', grants)).toEqual({ organizationId: 'org_a', role: 'admin' });
  });

  it('reads a claim holding one string', () => {
    expect(grantedRole({ role: 'other-team' }, 'role', grants)).toEqual({ organizationId: 'org_b', role: 'admin' });
  });

  it('grants nothing to groups without a grant, a missing claim, or values that are not strings', () => {
    expect(grantedRole({ groups: ['visitors'] }, 'groups', grants)).toBeNull();
    expect(grantedRole({}, 'groups', grants)).toBeNull();
    expect(grantedRole({ groups: [{ name: 'ops' }, 7] }, 'groups', grants)).toBeNull();
  });
});

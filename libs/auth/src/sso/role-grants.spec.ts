import { groupsOf } from './role-grants';

describe('groupsOf', () => {
  it('reads a claim holding a list, once each', () => {
    expect(groupsOf({ groups: ['analysts', 'ml', 'analysts'] }, 'groups')).toEqual(['analysts', 'ml']);
  });

  it('reads a claim holding one string', () => {
    expect(groupsOf({ role: 'other-team' }, 'role')).toEqual(['other-team']);
  });

  it('finds no group in a missing claim or in values that are not strings', () => {
    expect(groupsOf({}, 'groups')).toEqual([]);
    expect(groupsOf({ groups: [{ name: 'ops' }, 7] }, 'groups')).toEqual([]);
  });
});

/** The admin actions the audit log records. */
export const AUDITED_ACTIONS = [
  'token.create',
  'token.revoke',
  'model.create',
  'model.retrain',
  'model.update',
  'model.promote',
  'model.delete',
  'model.score',
  'user.export',
  'user.delete',
  'user.unsuppress',
  'webhook.create',
  'webhook.delete',
  'audience.create',
  'audience.delete',
  'organization.create',
  'organization.update',
  'organization.sso-grants',
] as const;
export type AuditedAction = (typeof AUDITED_ACTIONS)[number];

/** What a token may be issued with. */
export const SCOPES = ['ingest', 'read', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a route may require: a token scope, or `manage` (models, versions, schedules, scoring runs,
 * audiences, webhooks), which is no token scope of its own: an `admin` token holds it, and it is
 * what the editor role adds to `read`.
 */
export type RouteScope = Scope | 'manage';

/** Roles of people signed in through single sign-on, weakest first. */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The scopes each role holds (CONTRACT.md "Dashboard"). People send no events, so no role holds `ingest`. */
export const ROLE_SCOPES: Readonly<Record<Role, readonly RouteScope[]>> = {
  viewer: ['read'],
  editor: ['read', 'manage'],
  admin: ['read', 'manage', 'admin'],
};

/** A token's route scopes: its own, and `manage` with `admin`. */
export function tokenRouteScopes(scopes: readonly Scope[]): readonly RouteScope[] {
  return scopes.includes('admin') ? [...scopes, 'manage'] : scopes;
}

export const ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
export type TokenEnvironment = (typeof ENVIRONMENTS)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isEnvironment(value: string): value is TokenEnvironment {
  return (ENVIRONMENTS as readonly string[]).includes(value);
}

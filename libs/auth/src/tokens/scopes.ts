export const SCOPES = ['ingest', 'read', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
export type TokenEnvironment = (typeof ENVIRONMENTS)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isEnvironment(value: string): value is TokenEnvironment {
  return (ENVIRONMENTS as readonly string[]).includes(value);
}

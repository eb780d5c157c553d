import { createContext, useContext } from 'react';

/** Who is signed in and what they may do: a pasted token's scopes, or a person's role's. */
export interface Access {
  /** `read`, `manage` (models, versions, webhooks: admin tokens, editors) and `admin` (tokens, privacy, settings, audit). */
  readonly scopes: readonly string[];
  /** Shown in the header: the token's environment and reach, or the person and their role. */
  readonly label: string;
  /** A person signed in through single sign-on (their session ends on the server), or a pasted token. */
  readonly person: boolean;
  /** The id of the pasted token this tab signed in with (null for a person): marked on the Tokens page. */
  readonly tokenId: string | null;
}

export const AccessContext = createContext<Access | null>(null);

/** Everyone signed in sees everything they may read; only these scopes act. */
export function useCanAct(scope: 'manage' | 'admin' = 'admin'): boolean {
  return useContext(AccessContext)?.scopes.includes(scope) ?? false;
}

/** The id of the token this tab is signed in with, or null for a person signed in through single sign-on. */
export function useSignedInTokenId(): string | null {
  return useContext(AccessContext)?.tokenId ?? null;
}

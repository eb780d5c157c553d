import { createContext, useContext } from 'react';
import type { CurrentToken } from '../api/types';

/** The signed-in token's scopes: read-scope tokens see everything, only admin tokens act. */
export const AccessContext = createContext<CurrentToken | null>(null);

export function useCanAct(): boolean {
  return useContext(AccessContext)?.scopes.includes('admin') ?? false;
}

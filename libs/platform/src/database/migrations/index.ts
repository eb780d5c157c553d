import { OrganizationsAndTokens1763700000000 } from './1763700000000-organizations-and-tokens';

/** Every migration, oldest first. Schema changes happen only here. */
export const MIGRATIONS = [OrganizationsAndTokens1763700000000];

/** A person's groups: the values of the configured claim (a list, or one string); values that are not strings are ignored. */
export function groupsOf(claims: Readonly<Record<string, unknown>>, claim: string): string[] {
  const value = claims[claim];
  return [...new Set((Array.isArray(value) ? value : [value]).filter((group): group is string => typeof group === 'string'))];
}

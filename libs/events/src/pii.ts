// Both patterns run in linear time: no quantified group can match the same text in two ways, and
// the e-mail pattern needs one character before the @ instead of a run (same matches, unanchored).
// The old `[^\s@]+@` retried the whole run from every start position: quadratic on long names.
const EMAIL = /[^\s@]@[^\s@]+\.[^\s@]{2}/;
/** Eight or more digits, optionally with +, spaces, dots, dashes or parentheses between them. */
const PHONE = /(?:\+|\b)\d(?:[\s().-]*\d){7,}/;

/** True when a name (event name, property key) looks like an e-mail address or a phone number. */
export function looksLikePersonalData(name: string): boolean {
  return EMAIL.test(name) || PHONE.test(name);
}

/**
 * Paths (`a.b.c`) of the keys in a JSON object, at any depth, that look like personal data.
 * Recursive: callers bound the depth first (shapeProblems).
 */
export function personalDataKeys(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (!Array.isArray(value) && looksLikePersonalData(key)) found.push(childPath);
    found.push(...personalDataKeys(child, childPath));
  }
  return found;
}

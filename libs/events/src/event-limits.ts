/** Nesting deeper than this is a 400, never a 500. */
export const MAX_NESTING_DEPTH = 32;

export interface ShapeProblem {
  /** `field.key.key` from the event's top level. */
  path: string;
  message: string;
}

interface Visit {
  value: unknown;
  depth: number;
  key: string;
  parent: Visit | undefined;
}

/**
 * What Postgres or the stack cannot hold, found by one iterative walk (an explicit stack, never
 * recursion) before anything recursive (zod, the PII scan, JSON.stringify, encryption) touches the
 * event: nesting deeper than MAX_NESTING_DEPTH below a top-level field, a NUL character in any key
 * or string (Postgres text and jsonb refuse it), a number JSON parsing turned into Infinity, and a
 * prototype key (`__proto__`, `constructor` holding `prototype`: what Fastify's parser refuses
 * elsewhere), which ingestion parses as an own property so that it refuses one event, not a body.
 * At most one problem per top-level field, so a hostile event cannot make the answer large.
 */
export function shapeProblems(event: unknown): ShapeProblem[] {
  if (typeof event !== 'object' || event === null) return [];
  const problems: ShapeProblem[] = [];
  for (const [field, value] of Object.entries(event)) {
    const problem = fieldProblem(field, value);
    if (problem) problems.push(problem);
  }
  return problems;
}

function fieldProblem(field: string, value: unknown): ShapeProblem | undefined {
  const stack: Visit[] = [{ value, depth: 0, key: field, parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const problem = visit.key.includes('\0') ? NUL_IN_KEY : isPrototypeKey(visit) ? PROTOTYPE_KEY : valueProblem(visit);
    if (problem) return { path: problem === TOO_DEEP ? field : pathOf(visit), message: problem };
    if (typeof visit.value !== 'object' || visit.value === null) continue;
    for (const [key, child] of Object.entries(visit.value)) stack.push({ value: child, depth: visit.depth + 1, key, parent: visit });
  }
  return undefined;
}

const TOO_DEEP = `nested deeper than ${MAX_NESTING_DEPTH} levels`;
const NUL_IN_KEY = 'a key must not contain a NUL character (\\u0000)';
const PROTOTYPE_KEY = 'a prototype key (__proto__, or constructor holding prototype) is not accepted';

function isPrototypeKey({ key, value }: Visit): boolean {
  return key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'));
}

function valueProblem({ value, depth }: Visit): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? 'must not contain a NUL character (\\u0000)' : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'a number too large to store';
  if (typeof value === 'object' && value !== null && depth >= MAX_NESTING_DEPTH) return TOO_DEEP;
  return undefined;
}

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at; at = at.parent) keys.push(at.key.replace(/\0/g, '\\u0000'));
  return keys.reverse().join('.');
}

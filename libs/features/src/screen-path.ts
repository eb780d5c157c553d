/** A path segment that names one record rather than a kind of page: it holds a digit (ids, SKUs, dates, hashes). */
const RECORD_SEGMENT = /\d/;

/**
 * The screen or page an event was on, as features group it: a URL loses its origin, query string
 * and fragment, and every path segment that names one record becomes `:id`, so `/products/sku-0042?ref=ad`
 * and `/products/sku-0007` are the same page, `/products/:id`. App screen names pass through trimmed.
 */
export function normaliseScreen(screen: string): string {
  let path = screen.trim();
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(path);
  if (origin) path = path.slice(origin[0].length) || '/';
  path = path.replace(/[?#].*$/s, '');
  if (!path.includes('/')) return path;
  const normalised = path
    .split('/')
    .map((segment) => (RECORD_SEGMENT.test(segment) ? ':id' : segment))
    .join('/');
  return normalised.length > 1 ? normalised.replace(/\/+$/, '') : normalised;
}

/** Distinct raw screens remembered by normalisedScreenOf; a page with ids in its path has one per record. */
const MEMO_LIMIT = 10_000;
const memo = new Map<string, string>();

/** normaliseScreen, remembered: feature computation meets the same few screens millions of times. */
export function normalisedScreenOf(screen: string): string {
  let normalised = memo.get(screen);
  if (normalised === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    normalised = normaliseScreen(screen);
    memo.set(screen, normalised);
  }
  return normalised;
}

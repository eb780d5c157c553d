/**
 * Origin and path only: query strings and fragments often carry e-mail addresses, tokens or
 * search terms (the example page keeps its token in the fragment).
 */
export function pageUrl(href: string): string {
  const url = new URL(href);
  return url.origin + url.pathname;
}

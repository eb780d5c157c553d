import { createHash } from 'node:crypto';

/**
 * What every HTML page the API serves, and each file it loads, is sent with (CONTRACT.md, Dashboard):
 * its Content-Security-Policy, never framed, never sniffed into another type, no Referer sent from it.
 */
export function pageHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

/** CSP sources allowing exactly the inline `<script>` (or `<style>`) blocks of a page we ship, by their hashes. */
export function inlineBlockHashes(html: string, tag: 'script' | 'style'): string[] {
  const blocks = html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'));
  return [...blocks].map(([, text]) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`);
}

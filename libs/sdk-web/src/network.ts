import type { HttpPost } from '@foresight/sdk-core';

/** Browsers refuse keepalive requests whose bodies in flight exceed 64 KiB. */
const KEEPALIVE_BODY_LIMIT = 60 * 1024;

export const browserPost: HttpPost = (url, body, headers) => {
  const encoded = new TextEncoder().encode(body);
  // keepalive lets a flush started on page hide outlive the page. sendBeacon, the usual tool for
  // that, cannot carry the Authorization header. No cookies: the token is the only credential.
  return fetch(url, { method: 'POST', headers, body: encoded, keepalive: encoded.byteLength < KEEPALIVE_BODY_LIMIT, credentials: 'omit' });
};

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSettings } from '@foresight/platform';

/** The header the dashboard sends its session's CSRF token in, on every call it makes with the cookie. */
export const CSRF_HEADER = 'x-foresight-csrf';

/**
 * The cookies of single sign-on. Over https (the redirect URL's scheme) they are `Secure` and
 * `__Host-` prefixed (no Domain, Path=/: this host only); over plain http (local development) the
 * browser would refuse both, so they go without.
 */
export class SessionCookies {
  readonly secure: boolean;
  /** The dashboard's own origin: the only one whose calls the cookie is good for. */
  readonly origin: string;

  constructor(settings: DashboardSettings) {
    const redirect = new URL(settings.sso?.redirectUrl ?? 'http://localhost/');
    this.secure = redirect.protocol === 'https:';
    this.origin = redirect.origin;
  }

  get sessionName(): string {
    return this.secure ? '__Host-foresight-session' : 'foresight-session';
  }

  get signInName(): string {
    return this.secure ? '__Host-foresight-sign-in' : 'foresight-sign-in';
  }

  set(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
    void reply.header('set-cookie', `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${this.secure ? '; Secure' : ''}`);
  }

  clear(reply: FastifyReply, name: string): void {
    this.set(reply, name, '', 0);
  }

  /**
   * The session secret, on the dashboard's own calls only: they carry the CSRF header (which no other
   * origin can add without a CORS preflight this API never grants), and no Origin or Sec-Fetch-Site
   * saying another origin sent them. Anything else is a request without the cookie.
   */
  sessionSecret(request: FastifyRequest): { secret: string; csrf: string } | undefined {
    const csrf = request.headers[CSRF_HEADER];
    const secret = cookie(request, this.sessionName);
    if (typeof csrf !== 'string' || secret === undefined) return undefined;
    return { secret, csrf };
  }

  /** The cookie's value whatever the request; for sign-out and the session check, which do their own checks. */
  value(request: FastifyRequest, name: string): string | undefined {
    return cookie(request, name);
  }

  sameOrigin(request: FastifyRequest): boolean {
    const origin = request.headers.origin;
    const site = request.headers['sec-fetch-site'];
    return (origin === undefined || origin === this.origin) && (site === undefined || site === 'same-origin');
  }
}

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

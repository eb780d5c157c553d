/**
 * pg-pool's refusal when every connection of the pool stayed checked out for connectionTimeoutMillis:
 * the database is answering too slowly for the load (or stopped answering mid-query), not refusing to
 * connect; its own connect timeout says "Connection terminated due to connection timeout" instead.
 */
const POOL_EXHAUSTED_MESSAGE = 'timeout exceeded when trying to connect';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
  '53300', // too_many_connections
]);

const CONNECTION_MESSAGES = [
  'Connection terminated',
  'Connection is closed',
  "Stream isn't writeable",
  'connect ECONNREFUSED',
  POOL_EXHAUSTED_MESSAGE,
  'Client has encountered a connection error',
  // ioredis's commandTimeout: Redis took too long to answer (overloaded, or failing over).
  'Command timed out',
];

/** True when every database connection of this process stayed busy until the wait for one timed out. */
export function isDatabasePoolExhausted(error: unknown): boolean {
  return causeChain(error).some(({ message }) => message === POOL_EXHAUSTED_MESSAGE);
}

/** True when an error means Postgres or Redis cannot be reached (answered as 503, not 500). */
export function isInfrastructureUnavailable(error: unknown): boolean {
  return causeChain(error).some(({ code, message }) => (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) || CONNECTION_MESSAGES.some((m) => message.includes(m)));
}

interface ErrorLike {
  message: string;
  code?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/** The error and what it wraps (TypeORM's driverError, or cause), four deep at most. */
function causeChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let current = error; isErrorLike(current) && chain.length < 4; current = current.driverError ?? current.cause) chain.push(current);
  return chain;
}

/** An error by its shape: one made by Node's own modules (a socket's ECONNREFUSED) fails `instanceof Error` in another realm (a vm context, as Jest runs code in). */
function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

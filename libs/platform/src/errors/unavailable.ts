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
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  // ioredis's commandTimeout: Redis took too long to answer (overloaded, or failing over).
  'Command timed out',
];

/** True when an error means Postgres or Redis cannot be reached (answered as 503, not 500). */
export function isInfrastructureUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
    if (CONNECTION_MESSAGES.some((m) => (current as Error).message.includes(m))) return true;
    current = (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

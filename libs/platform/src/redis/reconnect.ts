/** Every Redis connection of a process retries this often, so all of them are back within 2 s of Redis. */
export function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 200, 2000);
}

/**
 * The one way a test waits: polls `check` until it returns a value other than undefined (a thrown
 * assertion counts as not yet), instead of a fixed sleep that is too long on a fast machine and too
 * short on a slow one. After `timeoutMs` it throws the last assertion's failure, or names `what`.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) throw failure instanceof Error ? failure : new Error(`timed out waiting for ${what}`, { cause: failure });
    await new Promise((r) => setTimeout(r, 100));
  }
}

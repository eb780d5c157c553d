/**
 * The objects of an NDJSON body, one at a time, as the bytes arrive: memory holds one chunk and
 * one unfinished line, however long the stream. Stopping the loop early cancels the download.
 */
export async function* ndjsonObjects<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let pending = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = done ? '' : (lines.pop() ?? '');
      for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as T;
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

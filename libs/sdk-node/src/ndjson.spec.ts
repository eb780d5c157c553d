import { ndjsonObjects } from './ndjson';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(chunks: Uint8Array[]): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const row of ndjsonObjects(streamOf(chunks))) rows.push(row);
  return rows;
}

describe('ndjsonObjects', () => {
  it('yields one object per line wherever the chunks are cut, multi-byte characters included', async () => {
    const bytes = new TextEncoder().encode('{"model":"café"}\n{"n":2}\n\n{"emoji":"🎉"}\n{"last":true}');
    const expected = [{ model: 'café' }, { n: 2 }, { emoji: '🎉' }, { last: true }];
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const chunks = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size));
      expect(await collect(chunks)).toEqual(expected);
    }
  });

  it('cancels the stream when the loop stops early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode('{"n":1}\n')),
      cancel: () => void (cancelled = true),
    });
    for await (const row of ndjsonObjects(body)) {
      expect(row).toEqual({ n: 1 });
      break;
    }
    expect(cancelled).toBe(true);
  });
});

/**
 * JSON as text, not as values: so a body can hold what JSON.stringify cannot write (1e309, duplicate
 * keys, `__proto__` keys, 5,000 levels of nesting, invalid UTF-8 inside a string literal).
 */
export type JsonText =
  | { t: 'raw'; text: string }
  | { t: 'str'; value: string }
  | { t: 'bytes'; before: string; bytes: number[]; after: string }
  | { t: 'obj'; entries: Array<[string, JsonText]> }
  | { t: 'arr'; items: JsonText[] };

export const raw = (text: string): JsonText => ({ t: 'raw', text });
export const str = (value: string): JsonText => ({ t: 'str', value });
export const obj = (entries: Array<[string, JsonText]>): JsonText => ({ t: 'obj', entries });
export const arr = (items: JsonText[]): JsonText => ({ t: 'arr', items });

export function toBytes(node: JsonText): Buffer {
  const parts: Buffer[] = [];
  write(node, parts);
  return Buffer.concat(parts);
}

function write(node: JsonText, out: Buffer[]): void {
  switch (node.t) {
    case 'raw':
      out.push(Buffer.from(node.text, 'utf8'));
      return;
    case 'str':
      out.push(Buffer.from(JSON.stringify(node.value), 'utf8'));
      return;
    case 'bytes':
      out.push(Buffer.from(JSON.stringify(node.before).slice(0, -1), 'utf8'), Buffer.from(node.bytes), Buffer.from(JSON.stringify(node.after).slice(1), 'utf8'));
      return;
    case 'obj':
      out.push(Buffer.from('{'));
      node.entries.forEach(([key, value], i) => {
        if (i > 0) out.push(Buffer.from(','));
        out.push(Buffer.from(`${JSON.stringify(key)}:`, 'utf8'));
        write(value, out);
      });
      out.push(Buffer.from('}'));
      return;
    case 'arr':
      out.push(Buffer.from('['));
      node.items.forEach((item, i) => {
        if (i > 0) out.push(Buffer.from(','));
        write(item, out);
      });
      out.push(Buffer.from(']'));
  }
}

/** A short, readable rendering for counterexamples (long runs of one character are folded). */
export function describe(node: JsonText | undefined, limit = 600): string {
  if (node === undefined) return '(no body)';
  const text = toBytes(readable(node)).toString('utf8');
  return fold(text, limit);
}

/** Invalid bytes shown as `\xNN` (sent as the bytes themselves). */
function readable(node: JsonText): JsonText {
  switch (node.t) {
    case 'bytes': {
      const hex = node.bytes.map((b) => `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
      return raw(`${JSON.stringify(node.before).slice(0, -1)}${hex}${JSON.stringify(node.after).slice(1)}`);
    }
    case 'obj':
      return obj(node.entries.map(([k, v]) => [k, readable(v)]));
    case 'arr':
      return arr(node.items.map(readable));
    default:
      return node;
  }
}

export function fold(text: string, limit = 600): string {
  const folded = text
    .replace(/(.)\1{19,}/gsu, (run, ch: string) => `${ch}…×${[...run].length}`)
    .replace(/(.{2,8}?)\1{9,}/gsu, (run, unit: string) => `(${unit})…×${run.length / unit.length}`);
  return folded.length > limit ? `${folded.slice(0, limit)}… (${text.length} chars)` : folded;
}

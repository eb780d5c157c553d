/** A batch already serialized: `rows` records joined for the format (no leading or trailing separator). */
export interface SerializedBatch {
  bytes: Buffer;
  rows: number;
}

/** Separators between records: a newline (NDJSON, CSV) or a comma (the elements of a JSON array). */
export const RECORD_SEPARATOR = { newline: 0x0a, comma: 0x2c } as const;

/**
 * The records (each row's first column, text Postgres wrote) joined by `separator` into one Buffer,
 * so no string larger than a record is ever built (large strings live until a full GC).
 */
export function packRecords(rows: ReadonlyArray<readonly [record: string, ...rest: string[]]>, separator: number): Buffer {
  let size = rows.length - 1;
  for (const [record] of rows) size += Buffer.byteLength(record);
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const [i, [record]] of rows.entries()) {
    if (i > 0) bytes[offset++] = separator;
    offset += bytes.write(record, offset);
  }
  return bytes;
}

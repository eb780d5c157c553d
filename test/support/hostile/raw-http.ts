import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 over a plain socket, so a request can carry what fetch and node:http refuse or normalise:
 * undecoded bytes in the target, invalid header values, a Content-Length that lies, a body on GET.
 */
export interface RawRequest {
  method: string;
  /** The request-target's bytes exactly as written on the request line (already percent-encoded, or not; UTF-8, or not). */
  target: Buffer;
  headers: Array<[string, string]>;
  body?: Buffer;
  /** `auto` writes the true length; a number writes that (a lie); `omit` writes none. */
  contentLength?: number | string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The whole answer as received, for failure messages. */
  raw: string;
}

export type RawOutcome = { kind: 'response'; response: RawResponse } | { kind: 'no-response'; reason: string; received: string };

export function rawRequest(baseUrl: string, request: RawRequest, timeoutMs = 15_000): Promise<RawOutcome> {
  const { hostname, port } = new URL(baseUrl);
  const lines = [` HTTP/1.1`, `host: ${hostname}:${port}`, 'connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  const body = request.body ?? Buffer.alloc(0);
  const length = request.contentLength ?? (request.body === undefined ? 'omit' : 'auto');
  if (length === 'auto') lines.push(`content-length: ${body.length}`);
  else if (length !== 'omit') lines.push(`content-length: ${length}`);
  const head = Buffer.concat([Buffer.from(`${request.method} `), request.target, Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8')]);

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: hostname, port: Number(port) });
    const finish = (reason?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const received = Buffer.concat(chunks);
      const parsed = received.length > 0 ? parseResponse(received) : undefined;
      if (parsed) resolve({ kind: 'response', response: parsed });
      else resolve({ kind: 'no-response', reason: reason ?? 'connection closed without an answer', received: received.toString('latin1').slice(0, 500) });
    };
    const timer = setTimeout(() => finish(`no complete answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Streams end when the server closes (connection: close); a complete answer is also enough.
      if (isComplete(Buffer.concat(chunks))) finish();
    });
    // The server may answer and close before reading a body it refuses (EPIPE, ECONNRESET on our write): read what it sent.
    socket.on('error', (error) => setTimeout(() => finish(`socket error: ${error.message}`), 200));
    socket.on('close', () => finish());
    socket.write(Buffer.concat([head, body]));
    // A body shorter than its Content-Length: tell the server nothing more comes.
    if (typeof length === 'number' && length > body.length) socket.end();
  });
}

/** A connection written piece by piece and then left alone, as a slow or stalled client leaves it. */
export interface HeldConnection {
  readonly socket: Socket;
  /** Whether the server has closed the connection (or refused it). */
  isClosed(): boolean;
  /** Everything the server sent so far, as an HTTP answer once one is complete. */
  answer(): RawResponse | undefined;
  /** Resolves when the server closes the connection. */
  readonly closed: Promise<void>;
}

/** Opens a connection and resolves once it is established (or already closed by the server). */
export function holdConnection(baseUrl: string): Promise<HeldConnection> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect({ host: hostname, port: Number(port) });
  const chunks: Buffer[] = [];
  let closedYet = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset or a write after the server closed: the close event follows.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => {
    closedYet = true;
    resolve();
  }));
  const held: HeldConnection = { socket, closed, isClosed: () => closedYet, answer: () => parseResponse(Buffer.concat(chunks)) };
  return new Promise((resolve) => {
    socket.once('connect', () => resolve(held));
    void closed.then(() => resolve(held));
  });
}

function splitHead(data: Buffer): { head: string; rest: Buffer } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  return { head: data.subarray(0, end).toString('latin1'), rest: data.subarray(end + 4) };
}

function headersOf(head: string): { status: number; headers: Record<string, string> } | undefined {
  const [statusLine, ...headerLines] = head.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
  }
  return { status: Number(match[1]), headers };
}

function isComplete(data: Buffer): boolean {
  const split = splitHead(data);
  if (!split) return false;
  const parsed = headersOf(split.head);
  if (!parsed) return false;
  if (parsed.headers['transfer-encoding']?.includes('chunked')) return split.rest.includes('\r\n0\r\n\r\n') || split.rest.subarray(0, 5).toString() === '0\r\n\r\n';
  const length = parsed.headers['content-length'];
  if (length !== undefined) return split.rest.length >= Number(length);
  return parsed.status === 204 || parsed.status === 304;
}

function parseResponse(data: Buffer): RawResponse | undefined {
  const split = splitHead(data);
  if (!split) return undefined;
  const parsed = headersOf(split.head);
  if (!parsed) return undefined;
  let body = split.rest;
  if (parsed.headers['transfer-encoding']?.includes('chunked')) body = dechunk(body);
  else if (parsed.headers['content-length'] !== undefined) body = body.subarray(0, Number(parsed.headers['content-length']));
  return { ...parsed, body, raw: data.toString('utf8').slice(0, 2000) };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

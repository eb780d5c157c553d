import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does to one request on a scripted path:
 * - `rate-limited`: answers 429 as the API does (Retry-After: 1), the API never sees the request;
 * - `server-error`: answers 500;
 * - `drop-before`: cuts the connection before the API sees the request;
 * - `drop-after`: passes the request on, lets the API answer (the events are stored), then cuts the
 *   connection before the answer reaches the client: the client cannot know it succeeded;
 * - `pass`: no fault, the API answers.
 */
export type Fault = 'rate-limited' | 'server-error' | 'drop-before' | 'drop-after' | 'pass';

/** An HTTP proxy in front of the real API that injects faults, in order, into requests to one path. */
export class FaultProxy {
  private readonly faults: Fault[] = [];
  /** Requests to the scripted path, faulted or not. */
  requests = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly target: string,
    private readonly path: string,
  ) {}

  static async start(target: string, path: string): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new FaultProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, target, path);
    server.on('request', (request, response) => void proxy.handle(request, response));
    return proxy;
  }

  /** Faults for the next requests to the path, one each, in order; later requests pass unharmed. */
  inject(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  get pendingFaults(): number {
    return this.faults.length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const scripted = request.url?.split('?')[0] === this.path;
    if (scripted) this.requests++;
    const fault = scripted ? this.faults.shift() : undefined;
    if (fault === 'rate-limited') return void response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"rate_limited","retry_after":1}');
    if (fault === 'server-error') return void response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal_error","message":"injected"}');
    if (fault === 'drop-before') return void request.socket.destroy();
    const upstream = await fetch(`${this.target}${request.url}`, {
      method: request.method,
      headers: Object.fromEntries(['authorization', 'content-type', 'accept'].flatMap((name) => (request.headers[name] ? [[name, String(request.headers[name])]] : []))),
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (fault === 'drop-after') return void request.socket.destroy();
    response.writeHead(upstream.status, Object.fromEntries(upstream.headers)).end(body);
  }
}

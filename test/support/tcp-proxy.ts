import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './ports';

/** A loopback TCP proxy that a test can cut, to make Postgres "go away" under a running API. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  private open = true;
  /** Connections refused while cut: how often a client tried to get through. */
  refused = 0;

  private constructor(readonly port: number) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort());
    proxy.server = createServer((client) => {
      if (!proxy.open) {
        proxy.refused += 1;
        return client.destroy();
      }
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('close', () => proxy.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.server?.listen(proxy.port, '127.0.0.1', resolve));
    return proxy;
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

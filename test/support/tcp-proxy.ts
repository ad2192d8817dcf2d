import net from 'node:net';

/**
 * A TCP proxy to `host:port` that can be taken down (every connection dropped, new ones refused
 * by closing them at once) and brought back: a database or API that becomes unreachable.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private available = true;
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(host: string, port: number): Promise<TcpProxy> {
    // eslint-disable-next-line prefer-const -- assigned once, after the server whose handler reads it is made
    let proxy: TcpProxy | undefined;
    const server = net.createServer((client) => {
      if (!proxy!.available) return void client.destroy();
      const upstream = net.connect(port, host);
      for (const socket of [client, upstream]) {
        proxy!.sockets.add(socket);
        socket.once('close', () => proxy!.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  down(): void {
    this.available = false;
    for (const socket of this.sockets) socket.destroy();
  }

  up(): void {
    this.available = true;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

import net from 'node:net';

/**
 * A loopback TCP relay in front of a real server (PostgreSQL, Temporal), so a
 * test can take the server away from its clients and give it back without
 * touching the server itself. `cut()` resets every relayed connection and
 * refuses new ones; `restore()` accepts again on the same port.
 */
export interface TcpProxy {
  port: number;
  address: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const relay = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  };
  let server = net.createServer(relay);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  let listening = true;
  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((r) => server.close(() => r()));
  };
  return {
    port,
    address: `127.0.0.1:${port}`,
    async cut() {
      const closing = stopListening();
      for (const s of sockets) s.resetAndDestroy();
      await closing;
    },
    async restore() {
      if (listening) return;
      server = net.createServer(relay);
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
      listening = true;
    },
    async close() {
      const closing = stopListening();
      for (const s of sockets) s.destroy();
      await closing;
    },
  };
}

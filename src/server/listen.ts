import type { Server } from 'node:http';

/** Listens and resolves with the port, which differs from `port` when that is 0. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.once('error', reject).listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    }),
  );
}

/** Closes the server and every connection it holds, idle or not. */
export function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

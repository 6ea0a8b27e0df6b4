import type { Server } from 'node:http';
import { SETTINGS, type SectionSettings } from '../config/settings.js';

/**
 * Listens on HOST and the port of the setting `key` (PORT or METRICS_PORT), and resolves with the
 * port, which differs from the setting when that is 0. An address that cannot be had stops
 * start-up with the setting to change and the address: Node's own "listen EADDRINUSE: address
 * already in use 127.0.0.1:9464" names neither, and the metrics port has a fixed default, so two
 * gateways on one host clash on it.
 */
export function listen(server: Server, key: 'port' | 'metricsPort', settings: SectionSettings<'server'>): Promise<number> {
  const port = settings[key];
  const { host } = settings;
  return new Promise((resolve, reject) =>
    server
      .once('error', (error: NodeJS.ErrnoException) => reject(new Error(unavailable(error, SETTINGS[key].env, port, host))))
      .listen(port, host, () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      }),
  );
}

/** A host as it stands before `:port` in an address or URL: an IPv6 one in brackets. */
export const hostInAddress = (host: string): string => (host.includes(':') ? `[${host}]` : host);

function unavailable(error: NodeJS.ErrnoException, variable: string, port: number, host: string): string {
  const address = `${hostInAddress(host)}:${port}`;
  if (error.code === 'EADDRINUSE') return `${variable}=${port}: ${address} is already in use; set ${variable} to a free port.`;
  if (error.code === 'EADDRNOTAVAIL') {
    return `${SETTINGS.host.env}=${host}: ${address} is not an address of this machine; set ${SETTINGS.host.env} to one of its addresses (0.0.0.0 for all).`;
  }
  return `${variable}=${port}: cannot listen on ${address} (${error.code ?? error.message}).`;
}

/** Closes the server and every connection it holds, idle or not. */
export function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

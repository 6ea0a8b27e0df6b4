// The gateway under test, started exactly as src/main.ts starts it (createGateway behind the
// http front), against the upstream named in UPSTREAM_URL.

import type { AddressInfo } from 'node:net';
import { defaultSettings } from '../src/config/settings.js';
import { createGateway } from '../src/gateway.js';
import { createHttpServer } from '../src/server/http-server.js';
import { reportToParent } from './probe.js';

// Production's defaults (no GraphiQL, introspection or CORS), as a deployment runs.
const settings = defaultSettings({ production: true });
const gateway = createGateway({ ...settings, upstreamUrl: new URL(process.env.UPSTREAM_URL!) });
const server = createHttpServer(gateway, settings);
server.listen(0, '127.0.0.1', () => reportToParent((server.address() as AddressInfo).port));

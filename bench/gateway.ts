// The gateway under test, started exactly as src/main.ts starts it (createGateway behind the
// http front), against the upstream named in UPSTREAM_URL.

import type { AddressInfo } from 'node:net';
import { createGateway } from '../src/gateway.js';
import { DEFAULT_MAX_BODY_BYTES, createHttpServer } from '../src/http.js';
import { reportToParent } from './probe.js';

const gateway = createGateway({ upstreamUrl: new URL(process.env.UPSTREAM_URL!), graphiql: false });
const server = createHttpServer(gateway.yoga, { maxBodyBytes: DEFAULT_MAX_BODY_BYTES });
server.listen(0, '127.0.0.1', () => reportToParent((server.address() as AddressInfo).port));

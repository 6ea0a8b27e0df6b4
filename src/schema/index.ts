import { builder } from './builder.js';
import './audited-record.js';
import './api-key.js';
import './hotspot.js';
import './identity-provider.js';
import './category.js';
import './user.js';
import './service.js';
import './folder.js';

/** The gateway's schema, built once at start-up. */
export const schema = builder.toSchema();

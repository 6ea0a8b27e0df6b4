# syntax=docker/dockerfile:1
# The gateway as a container: compiled in one stage, shipped with production dependencies only,
# run as the unprivileged "node" user. Built with podman: npm run image (scripts/build-image.sh).

# The Node LTS the image ships: the version in .node-version, the one the project runs and CI tests on.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
# Owned by root and only readable by the app user: the process cannot change its own code.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The source revision, in gateway_build_info and the start-up line: scripts/build-image.sh passes
# the git commit (--build-arg REVISION=...); a build that passes none says unknown.
ARG REVISION=unknown
ENV GATEWAY_REVISION=${REVISION}
LABEL org.opencontainers.image.revision=${REVISION}
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# node itself, not npm: it is PID 1 and receives SIGTERM directly (npm start would also rebuild).
# Under a container memory limit Node sizes V8's heap from the limit, and with it the young
# generation: at 768 MiB that cost 16-24% more CPU per request. 64 MB semi-spaces are what V8 picks
# on a large host (docs/performance.md, "Memory").
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]

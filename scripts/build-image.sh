#!/usr/bin/env bash
# Builds the container image from the Dockerfile with podman, as .ci/run does before the image test
# (test/ops/image.test.ts), and prints its size and layers. The base is the Dockerfile's NODE_IMAGE
# when a registry serves it; where none does, a base made here as alike as can be: Debian's minimal
# system (debootstrap), the Node of .node-version and npm from the npm registry, and a "node" user
# with uid 1000. That base is kept under its tag and reused by later builds.
#
#   scripts/build-image.sh [tag]     default localhost/vms-graphql-gateway:dev
#
# Needs root (debootstrap, podman) and podman, runc and debootstrap (apt-get install podman runc debootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${1:-localhost/vms-graphql-gateway:dev}
NODE_VERSION=$(cat .node-version)
# The base the Dockerfile names, e.g. node:24.21.0-bookworm-slim; a test keeps it on .node-version.
BASE=$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)
SUITE=$(sed -E 's/^.*-([a-z]+)-slim$/\1/' <<<"$BASE")
LOCAL_BASE=localhost/vms-gateway-${BASE%%:*}:${BASE#*:}
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/scripts/containers.conf}

step() { echo "build-image: $*" >&2; }
seconds() { echo $((SECONDS - $1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The base: the registry's when it can be pulled (a pull that fails does so within seconds here, no
# registry being reachable), else the one made here before, else a new one.
started=$SECONDS
if podman image exists "docker.io/library/$BASE" || timeout 120 podman pull --quiet "docker.io/library/$BASE" >/dev/null 2>"$work/pull.log"; then
  base=docker.io/library/$BASE
  step "base $base (from the registry)"
elif podman image exists "$LOCAL_BASE"; then
  base=$LOCAL_BASE
  step "base $base (made here earlier; 'podman rmi $LOCAL_BASE' makes it anew)"
else
  base=$LOCAL_BASE
  step "no registry serves $BASE ($(tail -1 "$work/pull.log")); making $base"
  case "$(uname -m)" in
    x86_64) platform=linux-x64 ;;
    aarch64 | arm64) platform=linux-arm64 ;;
    *) step "no node-linux package for $(uname -m)"; exit 1 ;;
  esac
  rootfs=$work/rootfs
  debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" >"$work/debootstrap.log" 2>&1 ||
    { cat "$work/debootstrap.log" >&2; exit 1; }
  # What the registry's -slim images leave out too: package lists and archives, documentation, locales.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc "$rootfs"/usr/share/man "$rootfs"/usr/share/info "$rootfs"/usr/share/locale
  # The Node of .node-version and the npm that builds this project, both from the npm registry.
  npm_version=$(npm --version)
  (cd "$work" && npm pack --silent "node-$platform@$NODE_VERSION" "npm@$npm_version" >/dev/null)
  tar -xzf "$work/node-$platform-$NODE_VERSION.tgz" -C "$work" package/bin/node
  install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # The user the registry's node images have, and deploy/deployment.yaml runs as.
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  tar --numeric-owner -C "$rootfs" -c . |
    podman import --quiet --change 'CMD ["node"]' --message "Debian $SUITE (minbase), Node $NODE_VERSION, npm $npm_version" - "$base" >/dev/null
  rm -rf "$rootfs"
  step "base $base made in $(seconds "$started") s (Debian $SUITE minbase, Node $NODE_VERSION, npm $npm_version)"
fi

# Where the machine reaches the npm registry through a proxy with its own certificate authority
# (NODE_EXTRA_CA_CERTS), the build's npm must trust it too; podman build's --env does not reach RUN.
mounts=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ]; then
  echo 'cafile=/run/build-ca.crt' >"$work/npmrc"
  mounts=(--volume "$NODE_EXTRA_CA_CERTS:/run/build-ca.crt:ro" --volume "$work/npmrc:/root/.npmrc:ro")
fi
started=$SECONDS
# Docker's format keeps the HEALTHCHECK, which the OCI format drops; the build's npm ci needs the
# network; the two stages that install dependencies run side by side.
# The commit the image is built from (gateway_build_info's revision), marked when the tree differs from it.
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
[ "$revision" = unknown ] || git diff --quiet HEAD -- 2>/dev/null || revision=$revision-dirty
podman build --format docker --network host --jobs 2 --build-arg "NODE_IMAGE=$base" --build-arg "REVISION=$revision" "${mounts[@]}" --tag "$IMAGE" . >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; exit 1; }
step "image $IMAGE (revision $revision) built in $(seconds "$started") s"

# What the image weighs, layer by layer, and what its production dependencies are made of.
echo "image $IMAGE: $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }'), layers:"
podman history --no-trunc --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" |
  grep -v '^0 B' | sed -E 's@/bin/sh -c #\(nop\) @@; s@(dir|file):[0-9a-f]+ @@' | cut -c1-100 | sed 's/^/  /'
podman run --rm --interactive --network none --no-healthcheck --user 0 --entrypoint sh "$IMAGE" -s <<'EOF'
cd /app/node_modules
total=$(du -sb . | cut -f1)
mb() { awk -v b="$1" -v t="$total" 'BEGIN { printf "%5.1f MB %3.0f %%", b / 1e6, 100 * b / t }'; }
files() { find . -type f "$@" -print0 | du -cb --files0-from=- | tail -1 | cut -f1; }
echo "production node_modules: $(mb "$total")"
echo "  largest packages:"
du -sb -- @*/* [!@]* | sort -rn | head -8 | while read -r bytes name; do echo "    $(mb "$bytes")  $name"; done
echo "  OpenTelemetry, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set:"
echo "    $(mb "$(du -sb @opentelemetry | cut -f1)")  @opentelemetry/*"
echo "  files that Node never loads:"
echo "    $(mb "$(files -name '*.map')")  source maps"
echo "    $(mb "$(files \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \))")  type declarations"
echo "    $(mb "$(files \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) ! -name '*.d.*ts')")  TypeScript sources"
echo "    $(mb "$(files -iname '*.md')")  Markdown"
EOF
echo "Test it: GATEWAY_IMAGE=$IMAGE npx vitest run test/ops/image.test.ts"

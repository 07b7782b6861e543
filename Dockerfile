# syntax=docker/dockerfile:1

# The portal's image, built with the project's own npm scripts: `npm ci`, then
# `npm run build` (the web app into web/dist). The server is TypeScript that
# Node 24 runs directly (type stripping), so there is nothing else to compile.
#
#   docker build -t slipstream-portal .          # the last stage, `runtime`
#   docker compose up -d                         # with Postgres and a node, see docs/production.md
#
# Which Node runs the server: the project pins Node 24 with the `node` npm
# package, a production dependency whose install script fetches the Node build
# for the platform into node_modules. The runtime stage runs that binary
# (/app/node_modules/.bin/node): the exact version the lockfile names, the one
# `npm start` and the tests run on, whatever 24.x the node:24 image carries
# that day. The node:24 image's own Node only runs npm during the build, and
# the runtime image is plain Debian with a single Node in it.
#
# The `bitcoind` stage (Bitcoin Knots from Debian) is for docker-compose.yml.

ARG NODE_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=debian:bookworm-slim
ARG KNOTS_IMAGE=debian:trixie-slim

# --- The package manifests: the npm ci layers below are rebuilt only when they change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY mempool-engine/package.json mempool-engine/
COPY server/package.json server/
COPY web/package.json web/

# --- Every dependency, for the build. Install scripts must run: the `node`
# package's fetches the Node binary.
FROM manifests AS deps
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# --- The web app, by the same script a clone uses.
FROM deps AS build
COPY tsconfig.base.json ./
COPY server server
COPY web web
RUN npm run build

# --- Production dependencies only (the `node` package and its binary among them),
# of the root and the server workspace: the web app's (React and the rest) are
# in web/dist already. The server's dependency on the mempool engine workspace
# is a link, node_modules/@slipstream/mempool-engine -> mempool-engine, whose
# code the runtime stage copies beside the server's. The Node package also carries Node's C headers (about
# 67 MB), used only to compile native addons during an install, which is over
# by then.
FROM manifests AS prod-deps
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --workspace server --include-workspace-root --no-audit --no-fund \
    && rm -rf node_modules/node/node_modules/node-*/include

# --- A pool's node for docker-compose.yml: Bitcoin Knots, which Debian ships in
# trixie-backports. That suite is in the archive the image already uses, so its
# source entry is the image's own first one with the suite changed: no mirror
# is named here. Knots rather than Core because Core refuses -acceptnonstdtxn
# on mainnet (docs/production.md, "Which node"); to run your own Bitcoin Core
# image instead, see the same section.
FROM ${KNOTS_IMAGE} AS bitcoind
RUN set -eux; \
    sed -n '1,/^$/p' /etc/apt/sources.list.d/debian.sources \
      | sed 's/^Suites:.*/Suites: trixie-backports/' > /etc/apt/sources.list.d/trixie-backports.sources; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -t trixie-backports bitcoin-knots; \
    rm -rf /var/lib/apt/lists/*; \
    id bitcoin >/dev/null 2>&1 || useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin bitcoin; \
    install -d -o bitcoin -g bitcoin -m 0750 /var/lib/bitcoin
USER bitcoin
# RPC, P2P, ZMQ (-zmqpubsequence in docker-compose.yml). None is published by compose.
EXPOSE 8332 8333 28332
# Options come as arguments (docker-compose.yml's `command`), then the words of
# BITCOIND_EXTRA_ARGS (e.g. `-connect=10.0.0.5:8335 -dbcache=4000`), which
# is split on spaces and never glob-expanded.
ENTRYPOINT ["/bin/sh", "-c", "set -f; exec bitcoind \"$@\" ${BITCOIND_EXTRA_ARGS:-}", "bitcoind"]
CMD ["-datadir=/var/lib/bitcoin", "-printtoconsole=1", "-nodebuglogfile"]

# --- The portal. Last, so that a plain `docker build .` builds it.
FROM ${RUNTIME_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/portal \
    PATH=/app/node_modules/.bin:$PATH
# An unprivileged user. It owns DATA_DIR only (the spool of submission records
# kept while the database is down): the code is root's and read-only to it.
RUN groupadd --system --gid 10001 portal \
    && useradd --system --uid 10001 --gid portal --no-create-home --home-dir /var/lib/portal --shell /usr/sbin/nologin portal \
    && install -d -o portal -g portal -m 0700 /var/lib/portal
WORKDIR /app
COPY --from=prod-deps /app/node_modules node_modules
# Fails the build, not the first start, if the base image lacks a library Node links to.
RUN ["/app/node_modules/.bin/node", "--version"]
COPY package.json ./
COPY server/package.json server/
COPY mempool-engine/package.json mempool-engine/
# The server's code and the mempool engine's only: server/dev/ (regtest launcher,
# regtest wallet, development identity provider, demo:tx) and mempool-engine/dev/
# (the reference assembler) are development tooling; a start without
# BITCOIN_RPC_URL or OIDC_ISSUER says so and names the setting.
COPY server/src server/src
COPY mempool-engine/src mempool-engine/src
COPY --from=build /app/web/dist web/dist
USER portal
EXPOSE 8080
# GET /rest-api/health answers 200 while this server can take submissions
# (node, database, mempool projection) and 503 otherwise. Node's own fetch:
# the image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["/app/node_modules/.bin/node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/rest-api/health`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without its first half: the web app is built above, and npm is
# not in this image. SIGTERM stops the server cleanly (jobs, audit queue, database).
CMD ["/app/node_modules/.bin/node", "server/src/cli/start.ts"]

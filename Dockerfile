# syntax=docker/dockerfile:1
# Switchyard's image: built with dev dependencies, run with the production ones only (`npm ci --omit=dev`)
# and the compiled dist/ (the status page's files included) on distroless Node 20 (no shell, no package
# manager), as the non-root user 65532, with nothing written outside the state path and /tmp (so a
# read-only root filesystem works). It starts from examples/container/switchyard.yaml, baked in at
# /etc/switchyard/switchyard.yaml: every value from the environment, an unset key variable stops it.
#   docker build -t switchyard:0.1.0 --build-arg REVISION=$(git rev-parse HEAD) .
#   docker run --rm -p 8080:8080 --read-only --tmpfs /tmp \
#     -e SWITCHYARD_API_KEY -e SWITCHYARD_ADMIN_KEY -e ANTHROPIC_API_KEY switchyard:0.1.0
# Your own config: mount it over /etc/switchyard/switchyard.yaml (or pass --config).
# Node handles SIGTERM itself (the drain: /readyz 503, serve on for server.drain_delay_ms, finish streams
# within shutdown_grace_ms; see docs/deploy.md), so PID 1 needs no init; give `docker stop` a -t above
# drain_delay_ms + shutdown_grace_ms. test/e2e/production-install.test.ts rebuilds this layout without
# Docker and runs it as non-root from a read-only tree, every route included.

ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs20-debian12:nonroot

# 1. Compile TypeScript with the dev dependencies.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-status-page.mjs ./scripts/
COPY src ./src
# tsc, then the status page's files into dist/status/page (scripts/copy-status-page.mjs).
RUN npm run build

# 2. The production dependencies alone (same base, so native prebuilt packages match the runtime's glibc).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts=false && npm cache clean --force

# 3. Runtime: dependencies + dist, owned by root and read-only to the process.
FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="switchyard" \
      org.opencontainers.image.description="A model gateway: Anthropic Messages and OpenAI Responses front doors over Anthropic, OpenAI Responses and Chat Completions upstreams." \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/switchyard/switchyard"
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY examples/container/switchyard.yaml /etc/switchyard/switchyard.yaml
# In a container the gateway listens on all interfaces; SWITCHYARD_HOST / SWITCHYARD_PORT win over a
# config's server.host / server.port, and the start-up line says which applied. The embedded default
# (no config) has no keys and refuses a non-loopback host, so the image names a config with keys.
ENV NODE_ENV=production \
    SWITCHYARD_HOST=0.0.0.0 \
    SWITCHYARD_PORT=8080 \
    SWITCHYARD_CONFIG=/etc/switchyard/switchyard.yaml
USER 65532:65532
EXPOSE 8080
STOPSIGNAL SIGTERM
# Liveness with node itself (the image has no curl or shell). Kubernetes ignores this and uses the
# Deployment's probes (deploy/kubernetes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/nodejs/bin/node", "-e", "fetch('http://127.0.0.1:'+(process.env.SWITCHYARD_PORT||8080)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The distroless entrypoint is node: these are its arguments.
CMD ["dist/main.js"]

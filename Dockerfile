# The Passportal Documents API fake as a container image.
#   docker build -t passportal-docs-fake .
#   docker run --rm -p 4010:4010 passportal-docs-fake
# Custom fixtures: mount a fixture file or folder at /fixtures (-v "$PWD/my-fixtures:/fixtures:ro").
# Every option is an environment variable (see the README's "Run it" section or `docker run ... --help`).

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: dev dependencies (a layer of their own, kept while only the source changes), then
# the build (TypeScript, spec cache, precompiled validators, bundle, pages) ----------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY spec ./spec
COPY src ./src
RUN npm run build \
 && test -f dist/cli.js && test -f dist/index.js && test -f dist/start.js && test -f dist/bundle/cli.js \
 && test -f dist/ui/inspector.html && test -f dist/ui/assets/inspector.js \
 && find dist -type f \( -name '*.d.ts' -o -name '*.map' \) -delete

# --- production dependencies only, no lifecycle scripts; cached apart from the source ---------
# Pruned of what never runs: type declarations, source maps and markdown (about a quarter).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
      -o -name '*.map' -o -name '*.md' \) -delete \
 && rm -rf node_modules/@types

# --- the runtime's system: the Node base without what only installing needs (npm, npx, yarn,
# corepack, C headers, apt, dpkg and perl) or nobody reads in a container (docs but the
# copyright notices, man pages, translations), flattened below into one layer so what is
# removed here is not in the image at all --------------------------------------------------------
FROM ${NODE_IMAGE} AS system
RUN rm -rf /usr/local/lib/node_modules /usr/local/include /usr/local/share/man \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/yarn /usr/local/bin/yarnpkg \
      /usr/local/bin/corepack /opt/yarn* /usr/local/bin/docker-entrypoint.sh \
      /usr/bin/apt* /usr/lib/apt /usr/lib/dpkg /var/lib/apt /var/cache/apt /var/cache/debconf \
      /usr/bin/dpkg* /usr/share/dpkg /var/lib/dpkg/info \
      /usr/bin/perl* /usr/lib/x86_64-linux-gnu/perl-base /usr/share/perl5 \
      /usr/share/man /usr/share/info /usr/share/locale /usr/share/bash-completion \
      /var/log/* /tmp/* /root/.npm \
 && find /usr/share/doc -type f ! -name copyright -delete \
 && node -e "process.exit(0)"

# --- runtime: compiled code, spec, default fixtures, production node_modules ------------------
FROM scratch AS runtime
COPY --from=system / /
LABEL org.opencontainers.image.title="passportal-docs-fake" \
      org.opencontainers.image.description="A faithful fake of the Passportal Documents API v2 for contract testing" \
      org.opencontainers.image.licenses="MIT"
# HTTPS on 4443 (the same app; the HTTP port is then also a proxy for the vendor's hosts only):
# the `node` user cannot bind ports below 1024 on every engine. For a network alias such as
# us-clover.passportalmsp.com to work with the URL unchanged, set HTTPS_PORT=443 and the sysctl
# net.ipv4.ip_unprivileged_port_start=0 (examples/docker-compose.yml does), or have the client use
# HTTPS_PROXY=http://<fake>:4010 instead. The CA is generated into /tls on first start (no key is
# ever in the image); mount a volume there to keep it, or pass TLS_CA_CERT and TLS_CA_KEY.
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010 \
    HTTPS_PORT=4443 \
    TLS_DIR=/tls
WORKDIR /app
# Files stay owned by root and read-only to the `node` user that runs the server.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json LICENSE ./
COPY spec ./spec
COPY fixtures/default ./fixtures/default
COPY docker/entrypoint.mjs docker/healthcheck.mjs ./docker/
COPY --from=build /app/dist ./dist
# Where a state file goes (STATE_FILE=/state/fake.json); a named volume there starts owned by `node`.
RUN mkdir /state /tls && chown node:node /state /tls && chmod 700 /tls
USER node
# Only the HTTP port is declared: podman's Docker API lists every declared port among a
# container's bindings, and Testcontainers then waits for 4443 to be published even when a suite
# asked for 4010 alone. Publish HTTPS when you want it: -p 4443:4443.
EXPOSE 4010
# Checked every second, so it reports healthy about a second after the server answers (the
# engines this image meets do not all support --start-interval); unhealthy after 15 failures in
# a row, the same 15 s of tolerance as a 5 s interval with 3 retries.
HEALTHCHECK --interval=1s --timeout=3s --start-period=20s --retries=15 \
  CMD ["node", "/app/docker/healthcheck.mjs"]
# Node runs as PID 1 (no shell in between): the CLI handles SIGTERM and SIGINT itself.
ENTRYPOINT ["node", "/app/docker/entrypoint.mjs"]
CMD []

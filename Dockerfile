# The Passportal Documents API fake as a container image.
#   docker build -t passportal-docs-fake .
#   docker run --rm -p 4010:4010 passportal-docs-fake
# Custom fixtures: mount a fixture file or folder at /fixtures (-v "$PWD/my-fixtures:/fixtures:ro").
# Every option is an environment variable (docs/options.md, or `docker run --rm passportal-docs-fake --help`);
# the image, Compose and Testcontainers: docs/containers.md; a container engine, or the image from a
# release's files (docker load): docs/install.md.

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
# The build validates the default fixture set once and keeps it beside the bundle.
COPY fixtures/default ./fixtures/default
COPY src ./src
RUN npm run build \
 && test -f dist/cli.js && test -f dist/index.js && test -f dist/start.js && test -f dist/bundle/cli.js \
 && test -f dist/ui/inspector.html && test -f dist/ui/assets/inspector.js \
 && find dist -type f \( -name '*.d.ts' -o -name '*.map' \) -delete

# --- the runtime's system, for an image FROM scratch: the Node binary without its debugging
# information and static symbol table (about 18 MB; scripts/strip-elf.mjs, as base images have no
# binutils), the C libraries it links (what `ldd` lists), the `root` and `node` users and groups,
# and the folders the server writes to: /tmp, /state (STATE_FILE) and /tls, the last two owned by
# `node`. Of the rest of Debian only a POSIX shell with cat, awk and grep (about 1 MB), because
# Testcontainers' default wait strategy checks a port from inside the container with
# `/bin/sh -c 'cat /proc/net/tcp* | awk ... | grep ...'`. No package manager, npm, curl or CA
# bundle (Node carries its own root certificates). Only the Node base and one script are its
# inputs, so it is cached apart from the source. --------------------------------------------------
FROM ${NODE_IMAGE} AS system
COPY scripts/strip-elf.mjs /tmp/strip-elf.mjs
RUN set -eu; R=/rootfs; node=$(command -v node); \
    mkdir -p $R/usr/local/bin $R/etc $R/tmp $R/state $R/tls $R/home/node; \
    node /tmp/strip-elf.mjs "$node" $R/usr/local/bin/node || cp "$node" $R/usr/local/bin/node; \
    mkdir -p $R/usr/bin; ln -s usr/bin $R/bin; \
    for tool in sh cat awk grep; do cp -L "$(command -v $tool)" $R/usr/bin/$tool; done; \
    for lib in $(ldd "$node" $R/usr/bin/* | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do \
      mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"; \
    done; \
    grep -E '^(root|node):' /etc/passwd > $R/etc/passwd; \
    grep -E '^(root|node):' /etc/group > $R/etc/group; \
    printf 'passwd: files\ngroup: files\nhosts: files dns\n' > $R/etc/nsswitch.conf; \
    chmod 1777 $R/tmp; chown node:node $R/state $R/tls $R/home/node; chmod 700 $R/tls; \
    env -i /usr/sbin/chroot --userspec=node:node $R /usr/local/bin/node -e "require('node:zlib').gzipSync('x'); \
      require('node:crypto').generateKeyPairSync('ec', { namedCurve: 'P-256' }); \
      new Intl.DateTimeFormat('de-DE', { timeZone: 'Europe/Berlin' }).format(0); \
      if (require('node:tls').rootCertificates.length < 50) process.exit(1)"

# --- the image's files: the app as scripts/image-files.mjs selects it (the built code without
# the CommonJS entries, the spec, the default fixtures, and from node_modules only the files the
# server loads: about 16 MB instead of a production install's 85), on the system above; then a
# start of the server in it (as `node`, HTTP and HTTPS, a throwaway CA) checks it runs and leaves
# Node's compile cache for later starts (scripts/warm-image.mjs) ----------------------------------
FROM build AS image
COPY --from=system /rootfs /rootfs
COPY LICENSE ./
COPY docker/entrypoint.mjs docker/healthcheck.mjs docker/healthcheck.sh ./docker/
RUN node scripts/image-files.mjs /rootfs/app \
 && node scripts/warm-image.mjs /rootfs

# --- runtime: one layer, the files above and nothing else ----------------------------------------
FROM scratch AS runtime
COPY --from=image /rootfs /
LABEL org.opencontainers.image.title="passportal-docs-fake" \
      org.opencontainers.image.description="A faithful fake of the Passportal Documents API v2 for contract testing" \
      org.opencontainers.image.licenses="MIT"
# HTTPS on 4443 (the same app; the HTTP port is then also a proxy for the vendor's hosts only):
# the `node` user cannot bind ports below 1024 on every engine. For a network alias such as
# us-clover.passportalmsp.com to work with the URL unchanged, set HTTPS_PORT=443 and the sysctl
# net.ipv4.ip_unprivileged_port_start=0 (examples/docker-compose.yml does), or have the client use
# HTTPS_PROXY=http://<fake>:4010 instead. The CA is generated into /tls on first start (no key is
# ever in the image); mount a volume there to keep it, or pass TLS_CA_CERT and TLS_CA_KEY.
ENV PATH=/usr/local/bin:/usr/bin \
    NODE_ENV=production \
    NODE_COMPILE_CACHE=/app/.compile-cache \
    HOST=0.0.0.0 \
    PORT=4010 \
    HTTPS_PORT=4443 \
    TLS_DIR=/tls
WORKDIR /app
# Files stay owned by root and read-only to the `node` user that runs the server; a named volume
# at /state (STATE_FILE=/state/fake.json) starts owned by `node`, as /tls does.
USER node
# Only the HTTP port is declared: podman's Docker API lists every declared port among a
# container's bindings, and Testcontainers then waits for 4443 to be published even when a suite
# asked for 4010 alone. Publish HTTPS when you want it: -p 4443:4443.
EXPOSE 4010
# Checked half a second after the start and after each check, so a container reports healthy
# about as soon as its server answers (the first checks keep trying a refused port for 2.5 s), on
# engines with or without --start-interval (which podman 4 and Docker before 25 reject here).
# While the container is young, a listening port is healthy without starting Node
# (docker/healthcheck.sh reads /proc: the fake listens only once it is ready). Past the 20 s start
# period each check asks /__admin/health with Node's http client after waiting 2 s
# (docker/healthcheck.mjs), so a long-running container is checked about every 3 s, and 5
# failures in a row (about 15 s) make it unhealthy. No curl or wget is in the image.
HEALTHCHECK --interval=0.5s --timeout=5s --start-period=20s --retries=5 \
  CMD ["/bin/sh", "/app/docker/healthcheck.sh"]
# Node runs as PID 1 (no shell in between): the CLI handles SIGTERM and SIGINT itself.
ENTRYPOINT ["node", "/app/docker/entrypoint.mjs"]
CMD []

# The fake's image built from the installed npm package (its folder as the build context), for
# projects without a checkout of the repository:
#   docker build -f node_modules/passportal-docs-fake/docker/package.Dockerfile \
#     -t passportal-docs-fake:<version> node_modules/passportal-docs-fake
# or PassportalFakeContainer.buildImage() from 'passportal-docs-fake/testcontainers'.
# The package ships its code built, so this only installs the production dependencies. The
# repository's Dockerfile builds the same image from source (with the lock file's versions).

ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="passportal-docs-fake" \
      org.opencontainers.image.description="A faithful fake of the Passportal Documents API v2 for contract testing" \
      org.opencontainers.image.licenses="MIT"
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010
WORKDIR /app
COPY package.json ./
RUN npm install --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund --no-package-lock \
 && rm -rf /root/.npm /tmp/*
COPY LICENSE ./
COPY spec ./spec
COPY fixtures/default ./fixtures/default
COPY docker/entrypoint.mjs docker/healthcheck.mjs docker/healthcheck.sh ./docker/
COPY dist ./dist
RUN mkdir /state && chown node:node /state
USER node
EXPOSE 4010
# The repository's Dockerfile explains the schedule (docker/healthcheck.mjs paces itself).
HEALTHCHECK --interval=0.5s --timeout=5s --start-period=20s --retries=5 \
  CMD ["/bin/sh", "/app/docker/healthcheck.sh"]
ENTRYPOINT ["node", "/app/docker/entrypoint.mjs"]
CMD []

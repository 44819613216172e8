# The operator's image: `flux-operator run` by default (see deploy/install.yaml and deploy/helm).
#   docker build -t ghcr.io/flux-framework/flux-operator-ts:<version> .
# Every stage runs the Node of .node-version, the one the tests ran on (a unit test checks it): the
# Deployment's NODE_OPTIONS flag needs a recent 24.x.

# The image holds the operator alone: package.json names the repository's workbench (workbench/: the
# quickstart, the local cluster, the images) as an npm workspace, which the build context leaves out and
# `npm ci --workspaces=false` installs nothing of.

# Build: compile TypeScript to dist/ with the dev dependencies; the build (hack/build.ts) copies the
# scripts and the RESTful server the code reads at run time beside the compiled modules.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --workspaces=false
COPY tsconfig.json tsconfig.build.json ./
COPY hack/build.ts ./hack/build.ts
COPY src ./src
RUN npm run build

# Production dependencies only, without the dev tools of the build stage.
FROM node:24.21.0-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --workspaces=false && npm cache clean --force

FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=dependencies /app/package.json ./package.json
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# `flux-operator` on the PATH: the Deployment's command (the file starts with #!/usr/bin/env node).
RUN chmod 0755 /app/dist/src/cli/main.js \
  && ln -s /app/dist/src/cli/main.js /usr/local/bin/flux-operator
# The image's "node" user, by number so that runAsNonRoot can verify it is not root.
USER 1000:1000
EXPOSE 8443 8081
ENTRYPOINT ["node", "/app/dist/src/cli/main.js"]
CMD ["run"]

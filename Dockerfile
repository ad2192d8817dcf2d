# syntax=docker/dockerfile:1
# Hangar's container image: built in one stage, run from the built bundle and the production
# dependencies only in the next.
#   docker build --build-arg SOURCE_COMMIT=$(git rev-parse HEAD) -t hangar .
# Every command the docs name runs in it as `hangar …` (bin/hangar.mjs, on the PATH):
#   hangar start (the CMD), hangar --help, hangar users confirm <email>, hangar backup <dir>, …
# No container runtime runs in CI: scripts/production-smoke.sh lays out /app from this file's own
# COPY lines of the last stage (parsed, so a file missing here is missing there), links `hangar`
# as the RUN ln line below does, and runs the CMD, the HEALTHCHECK and those commands in it.
#
# The base image is pinned by digest (docs/deployment.md, "Updating the pinned images"): the tag
# says which release it is, the digest is what is pulled. To move to a newer Node.js 24 release:
#   docker buildx imagetools inspect node:24.X.Y-bookworm-slim --format '{{json .Manifest.Digest}}'
# and put the tag and that digest here (both stages use NODE_IMAGE).
ARG NODE_IMAGE=node:24.18.0-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

FROM ${NODE_IMAGE} AS build
# better-sqlite3 and argon2 build from source when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The commit reported by GET /version and hangar --version (the build context has no .git).
ARG SOURCE_COMMIT=
RUN SOURCE_COMMIT="${SOURCE_COMMIT}" npm run -s build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf dist/test

FROM ${NODE_IMAGE}
# glibc's malloc: blocks of 128 KiB and more are always mapped and unmapped on their own (its
# threshold no longer moves up), so what a password hash takes (19 MiB, on the thread pool) goes
# back to the system (decision 0023).
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=3000 CONTENT_PORT=3001 MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/bin ./bin
COPY --from=build /src/scripts/ensure-built.mjs /src/scripts/check-native-modules.mjs ./scripts/
# `hangar` on the PATH, as npm links a package's bin.
RUN ln -s /app/bin/hangar.mjs /usr/local/bin/hangar && mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000 3001
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["hangar", "start"]

# syntax=docker/dockerfile:1
# Hangar's container image: built in one stage, run from the built bundle and the production
# dependencies only in the next. docker build --build-arg SOURCE_COMMIT=$(git rev-parse HEAD) -t hangar .
# The start command (CMD) and the health check are run by scripts/production-smoke.sh against a
# production install, as no container runtime runs in CI.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 and argon2 build from source when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The commit reported by GET /version and --version (the build context has no .git).
ARG SOURCE_COMMIT=
RUN SOURCE_COMMIT="${SOURCE_COMMIT}" npm run -s build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf dist/test

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=3000 CONTENT_PORT=3001
WORKDIR /app
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000 3001
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/bundle/main.js"]

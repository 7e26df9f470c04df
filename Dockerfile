# The gateway image: Node 20, production dependencies, the bundle, and Debian's Chromium for PDFs.
# test/config/dockerfile.test.ts replays these steps without a Docker engine: keep to the steps it knows.

# Build: compilers for better-sqlite3's native module, the production dependencies, dist/gateway.mjs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY shared ./shared
COPY gateway ./gateway
COPY dashboard ./dashboard
RUN npm run build

# Run: no compilers. Debian's Chromium (/usr/bin/chromium, where the gateway looks first) prints the
# compliance reports and the notices of violation to PDF; the fonts give it the text faces to print with.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-dejavu-core fonts-liberation && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/shared ./shared
COPY --from=build /app/gateway ./gateway
COPY --from=build /app/dashboard ./dashboard
COPY --from=build /app/dist ./dist
# Inside a container the gateway listens on every interface (the configuration's default is 127.0.0.1):
# what is reachable is what `docker run -p` publishes.
ENV GATEWAY_DATA_DIR=/data HTTP_PORT=8080 HTTP_HOST=0.0.0.0 MQTT_HOST=0.0.0.0 MALLOC_ARENA_MAX=1
# The store's directory, made and given to the image's user before it is declared a volume: a new named
# volume starts with the ownership of this directory, so the gateway (not root) can write its store.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
EXPOSE 8080 1883 8883
USER node
# Healthy while /api/health answers 200 (the store works); docker-compose.yml waits for it.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HTTP_PORT || 8080}/api/health`).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "--max-semi-space-size=2", "--max-old-space-size=128", "dist/gateway.mjs"]

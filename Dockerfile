# The gateway image: Node 20, production dependencies, TypeScript run by tsx.
FROM node:20-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY shared ./shared
COPY gateway ./gateway
COPY dashboard ./dashboard
RUN npm run build
# Inside a container the gateway listens on every interface (the configuration's default is 127.0.0.1):
# what is reachable is what `docker run -p` publishes.
ENV GATEWAY_DATA_DIR=/data HTTP_PORT=8080 HTTP_HOST=0.0.0.0 MQTT_HOST=0.0.0.0 MALLOC_ARENA_MAX=1
VOLUME /data
EXPOSE 8080 1883
USER node
# Healthy while /api/health answers 200 (the store works); docker-compose.yml waits for it.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HTTP_PORT || 8080}/api/health`).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "--max-semi-space-size=2", "--max-old-space-size=128", "dist/gateway.mjs"]

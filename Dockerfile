# One image for every role: `node src/main.ts api | worker | migrate | admin ...`.
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY src ./src
# Generated OAuth keys live in DATA_DIR; mount a volume there (or set OAUTH_JWKS and
# OAUTH_COOKIE_KEYS) so that they survive a new container and are shared by every api replica.
RUN mkdir -p /data && chown node:node /data
ENV DATA_DIR=/data
USER node
EXPOSE 3000
CMD ["node", "src/main.ts", "api"]

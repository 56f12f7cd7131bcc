# One image for every role: `node src/main.ts api | worker | migrate | admin ...`.
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY src ./src
USER node
EXPOSE 3000
CMD ["node", "src/main.ts", "api"]

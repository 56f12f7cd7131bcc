/**
 * `npm run bench:mcp`: tools/call of search_listings over MCP (protocol 2026-07-28) against
 * GET /api/v1/listings for the same query, at 50 connections in one run, in alternating rounds;
 * then the same for a signed-in operation (list_my_listings) with an OAuth JWT access token, whose
 * verification is local (no database query per call). Target: MCP throughput ≥ 70 % of REST.
 * MCP_DIRECT_TOOL_CALLS=false measures the SDK's own path for every call.
 */
import http from 'node:http';
import type autocannon from 'autocannon';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { importJWK, SignJWT } from 'jose';
import { createApp } from '../src/app.ts';
import { createUser } from '../src/auth/users.ts';
import { loadConfig } from '../src/config.ts';
import { operations } from '../src/operations/index.ts';
import { createServices, type Services } from '../src/services.ts';
import { benchDatabase, compare, listen, load, printTable, runBench } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 20_000);

/** The exact HTTP request the official client sends for one tools/call, to replay under load. */
async function recordToolCall(mcpUrl: string, name: string, args: Record<string, unknown>, token?: string) {
  let recorded: { headers: Record<string, string>; body: string } | undefined;
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    fetch: async (url, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"tools/call"')) recorded = { headers: Object.fromEntries(new Headers(init?.headers).entries()), body };
      return fetch(url, init);
    },
  });
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  await client.close();
  if (!recorded) throw new Error('no tools/call request was seen');
  return recorded;
}

/** An access token exactly as the authorization server issues it (ES256, audience {base}/mcp). */
async function accessToken(services: Services, userId: number): Promise<string> {
  const jwk = services.oauthKeys.signing[0]!;
  return new SignJWT({ scope: 'account:read listings:write', gid: 'bench-grant', client_id: 'bench' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid as string })
    .setIssuer(services.config.baseUrl)
    .setSubject(String(userId))
    .setAudience(`${services.config.baseUrl}/mcp`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(await importJWK(jwk as never, 'ES256'));
}

async function main() {
  const database = await benchDatabase(LISTINGS);
  try {
    // The app must know its own origin (token audience, Host check): listen first, then configure.
    let handler: http.RequestListener = () => {};
    const app = await listen((req, res) => handler(req, res));
    const port = new URL(app.url).port;
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      PORT: port,
      BASE_URL: `http://127.0.0.1:${port}`,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      DATA_DIR: database.dataDir,
      MCP_DIRECT_TOOL_CALLS: process.env.MCP_DIRECT_TOOL_CALLS,
    });
    const services = createServices(config, { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' });
    handler = createApp(services, operations).callback();
    const mcpUrl = `${app.url}/mcp`;

    const search = await recordToolCall(mcpUrl, 'search_listings', { q: 'analytics' });
    const user = await createUser(services.db, 'bench@example.com');
    const token = await accessToken(services, user.id);
    const mine = await recordToolCall(mcpUrl, 'list_my_listings', {}, token);

    const searchTargets: { name: string; options: autocannon.Options }[] = [
      { name: 'REST GET /listings?q=analytics', options: { url: `${app.url}/api/v1/listings?q=analytics` } },
      { name: 'MCP tools/call search_listings', options: { url: mcpUrl, method: 'POST', headers: search.headers, body: search.body } },
    ];
    const only = process.env.BENCH_ONLY;
    if (only) {
      // One side alone, for profiling (BENCH_ONLY=REST or MCP).
      printTable([await load(only, searchTargets.find((t) => t.name.startsWith(only))!.options)]);
      return;
    }
    const [rest, mcp] = await compare(searchTargets);
    const [restMine, mcpMine] = await compare([
      {
        name: 'REST GET /me/listings (JWT)',
        options: { url: `${app.url}/api/v1/me/listings`, headers: { authorization: `Bearer ${token}` } },
      },
      { name: 'MCP list_my_listings (JWT)', options: { url: mcpUrl, method: 'POST', headers: mine.headers, body: mine.body } },
    ]);
    printTable([rest, mcp]);
    printTable([restMine, mcpMine]);
    const ratio = mcp.rps / rest.rps;
    console.log(`\nMCP search_listings ${(ratio * 100).toFixed(0)} % of REST — target ≥ 70 %: ${ratio >= 0.7 ? 'met' : 'MISSED'}`);
    await app.close();
    await services.close();
  } finally {
    await database.stop();
  }
}

runBench(main);

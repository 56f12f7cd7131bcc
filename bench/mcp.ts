/**
 * `npm run bench:mcp`: every MCP call a client makes, in every protocol revision /mcp serves,
 * against its REST twin, at 50 connections, in alternating rounds (REST and all revisions of a
 * call take turns, so a slow spell of a shared machine falls on all of them alike):
 *   initialize (2026-07-28: server/discover) ↔ GET /api/v1 (the index: what this server offers)
 *   tools/list                               ↔ GET /api/v1/openapi.json (every operation's contract)
 *   tools/call search_listings               ↔ GET /api/v1/listings?q=analytics
 *   tools/call list_my_listings (OAuth JWT)  ↔ GET /api/v1/me/listings (JWT for the REST audience)
 * Requests are recorded from the official client (2026-07-28 pinned, and the plain 2025 handshake)
 * and replayed; older 2025 revisions replay the 2025-11-25 requests with their version.
 * Target: every MCP call ≥ 70 % of its REST twin's throughput.
 * MCP_DIRECT_TOOL_CALLS=false measures the SDK's own path for every call. BENCH_SECONDS sets the
 * seconds per target (default 3, in BENCH_ROUNDS = 4 turns: about 3 minutes in all; more rounds
 * on a busy machine); BENCH_REVISIONS (comma-separated) and BENCH_CALLS (a part of the call's
 * name) limit what runs.
 */
import http from 'node:http';
import os from 'node:os';
import type autocannon from 'autocannon';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { importJWK, SignJWT } from 'jose';
import { createApp } from '../src/app.ts';
import { resourceIdentifier, type ResourceName } from '../src/auth/oauth/resources.ts';
import { createUser } from '../src/auth/users.ts';
import { loadConfig } from '../src/config/config.ts';
import { MCP_REVISIONS, MODERN_REVISIONS } from '../src/mcp/revisions.ts';
import { operations } from '../src/operations/index.ts';
import { createServices, type Services } from '../src/services.ts';
import { benchDatabase, CONNECTIONS, compare, listen, runBench, type LoadResult } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** Short rounds, many of them: on a shared machine a slow spell then falls on every target alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const TARGET = 0.7;
const REVISIONS = process.env.BENCH_REVISIONS?.split(',') ?? MCP_REVISIONS;
/** Only the calls whose name contains this (e.g. `tools/call`), for profiling. */
const ONLY_CALLS = process.env.BENCH_CALLS;
/** The revision whose recorded requests stand in for the older initialize-based ones. */
const LEGACY_RECORDED = '2025-11-25';

interface Recorded {
  headers: Record<string, string>;
  body: string;
}
/** One client's requests by JSON-RPC method: the handshake, tools/list and both tools/calls. */
type Session = Map<string, Recorded>;

/** The exact HTTP requests the official client sends (modern pinned, or the plain 2025 handshake). */
async function recordSession(mcpUrl: string, modern: boolean, token: string): Promise<Session> {
  const session: Session = new Map();
  const record = (token?: string) =>
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
      fetch: async (url, init) => {
        const body = typeof init?.body === 'string' ? init.body : '';
        const message = body ? JSON.parse(body) : undefined;
        const name = message?.method === 'tools/call' ? `tools/call ${message.params.name}` : message?.method;
        if (name && !session.has(name)) session.set(name, { headers: Object.fromEntries(new Headers(init?.headers).entries()), body });
        return fetch(url, init);
      },
    });
  const options = modern ? { versionNegotiation: { mode: { pin: MODERN_REVISIONS[0]! } } } : {};
  for (const [name, args, auth] of [
    ['search_listings', { q: 'analytics' }, undefined],
    ['list_my_listings', {}, token],
  ] as const) {
    const client = new Client({ name: 'bench', version: '1.0.0' }, options);
    await client.connect(record(auth));
    await client.listTools();
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    await client.close();
  }
  return session;
}

/** A 2025-11-25 request as an older initialize-based revision sends it. */
function asRevision(recorded: Recorded, revision: string): Recorded {
  const headers = { ...recorded.headers };
  if (headers['mcp-protocol-version']) headers['mcp-protocol-version'] = revision;
  return { headers, body: recorded.body.replaceAll(`"protocolVersion":"${LEGACY_RECORDED}"`, `"protocolVersion":"${revision}"`) };
}

/** An access token exactly as the authorization server issues it (ES256) for one resource. */
async function accessToken(services: Services, userId: number, resource: ResourceName): Promise<string> {
  const jwk = services.oauthKeys.signing[0]!;
  return new SignJWT({ scope: 'account:read listings:write', gid: 'bench-grant', client_id: 'bench' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid as string })
    .setIssuer(services.config.baseUrl)
    .setSubject(String(userId))
    .setAudience(resourceIdentifier(services.config, resource))
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(await importJWK(jwk as never, 'ES256'));
}

interface Call {
  name: string;
  /** The JSON-RPC method recorded for this call in each era (modern, legacy). */
  method: { modern: string; legacy: string };
  rest: autocannon.Options;
}

/**
 * One row per revision: throughput against REST (the verdict), and server CPU per request (main
 * thread, µs), whose REST/MCP ratio says the same with much less noise on a shared machine.
 */
function printCall(call: Call, rest: LoadResult, mcp: LoadResult[]): boolean {
  console.log(`\n${call.name}   (REST twin: ${rest.name}, ${rest.cpuUs.toFixed(0)} µs CPU/request)`);
  console.log('revision      MCP req/s  REST req/s   ratio   p50/p99 ms MCP   µs CPU/req  CPU ratio   verdict');
  let met = true;
  for (const r of mcp) {
    const ratio = r.rps / rest.rps;
    met &&= ratio >= TARGET;
    const cpu = `${r.cpuUs.toFixed(0).padStart(11)} ${`${((rest.cpuUs / r.cpuUs) * 100).toFixed(0)} %`.padStart(10)}`;
    console.log(
      `${r.name.padEnd(12)} ${r.rps.toFixed(0).padStart(10)} ${rest.rps.toFixed(0).padStart(11)} ${`${(ratio * 100).toFixed(0)} %`.padStart(7)}   ${`${r.p50}/${r.p99}`.padStart(14)} ${cpu}   ${ratio >= TARGET ? 'met' : 'MISSED'}`,
    );
  }
  return met;
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
    const user = await createUser(services.db, 'bench@example.com');
    const mcpToken = await accessToken(services, user.id, 'mcp');
    const restToken = await accessToken(services, user.id, 'api');
    const sessions = { modern: await recordSession(mcpUrl, true, mcpToken), legacy: await recordSession(mcpUrl, false, mcpToken) };

    const calls: Call[] = [
      { name: 'initialize', method: { modern: 'server/discover', legacy: 'initialize' }, rest: { url: `${app.url}/api/v1` } },
      { name: 'tools/list', method: { modern: 'tools/list', legacy: 'tools/list' }, rest: { url: `${app.url}/api/v1/openapi.json` } },
      {
        name: 'tools/call search_listings',
        method: { modern: 'tools/call search_listings', legacy: 'tools/call search_listings' },
        rest: { url: `${app.url}/api/v1/listings?q=analytics` },
      },
      {
        name: 'tools/call list_my_listings (JWT)',
        method: { modern: 'tools/call list_my_listings', legacy: 'tools/call list_my_listings' },
        rest: { url: `${app.url}/api/v1/me/listings`, headers: { authorization: `Bearer ${restToken}` } },
      },
    ];
    console.log(
      `\n${CONNECTIONS} connections, ${SECONDS} s per target, node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`,
    );
    let allMet = true;
    for (const call of calls.filter((c) => !ONLY_CALLS || c.name.includes(ONLY_CALLS))) {
      const targets = REVISIONS.map((revision) => {
        const modern = MODERN_REVISIONS.includes(revision);
        const recorded = (modern ? sessions.modern : sessions.legacy).get(modern ? call.method.modern : call.method.legacy);
        if (!recorded) throw new Error(`no ${call.name} request was recorded for ${revision}`);
        const request = modern || revision === LEGACY_RECORDED ? recorded : asRevision(recorded, revision);
        return { name: revision, options: { url: mcpUrl, method: 'POST' as const, ...request } };
      });
      const [rest, ...mcp] = await compare(
        [{ name: call.rest.url!.slice(app.url.length), options: call.rest }, ...targets],
        ROUNDS,
        SECONDS,
      );
      allMet = printCall(call, rest!, mcp) && allMet;
    }
    const paths = (await services.metrics.mcpAnswers.get()).values.map((v) => `${v.labels.path} ${v.value}`);
    console.log(`\nMCP requests answered by: ${paths.join(', ')}`);
    console.log(`every MCP call ≥ ${TARGET * 100} % of REST: ${allMet ? 'met' : 'MISSED'}   (load ${os.loadavg()[0]!.toFixed(2)})`);
    await app.close();
    await services.close();
  } finally {
    await database.stop();
  }
}

runBench(main);

import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type CallToolResult } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { clientMetadataFetch } from '../../src/auth/oauth/metadata-fetch.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { freePort, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { authorizeInBrowser, CALLBACK_URL, MemoryOAuthClient } from '../helpers/oauth-client.ts';

/**
 * A client identified by a client ID metadata document instead of registration: the document is
 * served over https by the test (self-signed certificate made with openssl), and the test
 * configuration lets the authorization server fetch from that loopback host and trust that CA.
 */
let env: TestEnv;
let browser: Browser;
let documentServer: https.Server;
let clientId: string;
let tmp: string;
const served: string[] = [];

/** A TCP listener that only counts who connects: nothing may reach it. */
async function trap(host: string) {
  const trapped = { port: 0, connections: 0, server: net.createServer((socket) => void (trapped.connections++, socket.destroy())) };
  await new Promise<void>((resolve) => trapped.server.listen(0, host, resolve));
  trapped.port = (trapped.server.address() as AddressInfo).port;
  return trapped;
}
let traps: { v4: Awaited<ReturnType<typeof trap>>; v6: Awaited<ReturnType<typeof trap>> };

test.before(async () => {
  traps = { v4: await trap('127.0.0.1'), v6: await trap('::1') };
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'cimd-'));
  const [key, cert] = [path.join(tmp, 'key.pem'), path.join(tmp, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const port = await freePort();
  clientId = `https://localhost:${port}/agents/client.json`;
  documentServer = https.createServer({ key: await fs.readFile(key), cert: await fs.readFile(cert) }, (req, res) => {
    served.push(req.url ?? '');
    if (req.url === '/agents/redirect.json')
      return void res.writeHead(302, { location: `https://127.0.0.1:${traps.v4.port}/c.json` }).end();
    if (req.url !== '/agents/client.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(
      JSON.stringify({
        client_id: clientId,
        client_name: 'Metadata Document Agent',
        redirect_uris: [CALLBACK_URL],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => documentServer.listen(port, '127.0.0.1', resolve));
  env = await startTestEnv(import.meta.url, {
    OAUTH_CLIENT_METADATA_HOSTS: `localhost:${(documentServer.address() as AddressInfo).port}`,
    OAUTH_CLIENT_METADATA_CA_FILE: cert,
  });
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await env?.close();
  documentServer?.close();
  traps?.v4.server.close();
  traps?.v6.server.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

class DocumentClient extends MemoryOAuthClient {
  readonly clientMetadataUrl = clientId;
}

test.serial('the official client signs in with a client ID metadata document, no registration', async (t) => {
  const metadata = await request(env, 'GET', '/.well-known/oauth-authorization-server');
  t.true(metadata.body.client_id_metadata_document_supported);

  const user = { email: 'cimd@example.com', password: 'metadata document password' };
  await createVerifiedUser(env.services.db, user.email, user.password);
  const auth = new DocumentClient('Metadata Document Agent');
  const connect = async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`), { authProvider: auth });
    await client.connect(transport);
    return { client, transport };
  };
  const first = await connect();
  await t.throwsAsync(first.client.callTool({ name: 'list_my_listings', arguments: {} }), { instanceOf: UnauthorizedError });
  t.is(auth.authorizationUrl?.searchParams.get('client_id'), clientId);
  const { callback, consentText } = await authorizeInBrowser(browser, auth.authorizationUrl!, user);
  t.regex(consentText, /Metadata Document Agent/);
  await first.transport.finishAuth(callback.searchParams);
  await first.client.close();

  const second = await connect();
  const mine = (await second.client.callTool({ name: 'list_my_listings', arguments: {} })) as CallToolResult;
  t.falsy(mine.isError, JSON.stringify(mine));
  await second.client.close();
  t.true(served.includes('/agents/client.json'));
  const registered = await env.services.db('oauth_payloads').where({ model: 'Client' });
  t.is(registered.length, 0, 'nothing was registered');
});

/** An authorization request naming `clientId`, as anyone can send it without signing in. */
function authorizeWith(clientId: string) {
  const url = new URL(`${env.baseUrl}/oauth/authorize`);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', CALLBACK_URL);
  url.searchParams.set('code_challenge', 'x'.repeat(43));
  url.searchParams.set('code_challenge_method', 'S256');
  return request(env, 'GET', `${url.pathname}${url.search}`);
}

test.serial('attack: client ids on loopback addresses make the server connect nowhere (IP literals, localhost)', async (t) => {
  const { v4, v6 } = traps;
  const before = { v4: v4.connections, v6: v6.connections, served: served.length };
  const clientIds = [
    `https://127.0.0.1:${v4.port}/c.json`,
    `https://localhost:${v4.port}/c.json`,
    `https://LOCALHOST.:${v4.port}/c.json`,
    `https://agent.localhost:${v4.port}/c.json`,
    `https://[::1]:${v6.port}/c.json`,
    `https://[::ffff:127.0.0.1]:${v4.port}/c.json`,
    `https://[::ffff:7f00:1]:${v4.port}/c.json`,
    `https://0x7f.0.0.1:${v4.port}/c.json`,
    `https://2130706433:${v4.port}/c.json`,
    `https://127.1:${v4.port}/c.json`,
    `https://10.0.0.1:${v4.port}/c.json`,
    `https://169.254.169.254/latest/meta-data`,
    `https://93.184.216.34/c.json`, // public, but an IP literal all the same
    // The trusted development host, but on another port: not the same host.
    `https://localhost:${v4.port}/agents/client.json`,
  ];
  for (const clientId of clientIds) {
    const res = await authorizeWith(clientId);
    t.is(res.status, 400, clientId);
    t.regex(String(res.body), /cannot continue/, clientId);
  }
  t.deepEqual({ v4: v4.connections, v6: v6.connections, served: served.length }, before, 'no connection was opened');
});

test.serial('attack: the metadata fetch refuses loopback at connect time, whatever the name', async (t) => {
  const fetchDocument = clientMetadataFetch(env.services.config);
  const before = traps.v4.connections;
  const err = await t.throwsAsync(fetchDocument(`https://localhost:${traps.v4.port}/c.json`));
  t.regex(err.message, /loopback/);
  t.is(traps.v4.connections, before);
});

test.serial('attack: a trusted host redirecting to loopback is not followed', async (t) => {
  const before = { trap: traps.v4.connections, served: served.length };
  const res = await authorizeWith(clientId.replace('/agents/client.json', '/agents/redirect.json'));
  t.is(res.status, 400);
  t.true(served.length > before.served, 'the trusted document host was asked');
  t.is(traps.v4.connections, before.trap, 'its redirect was not followed');
});

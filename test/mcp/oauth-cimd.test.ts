import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type CallToolResult } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
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

test.before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'cimd-'));
  const [key, cert] = [path.join(tmp, 'key.pem'), path.join(tmp, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const port = await freePort();
  clientId = `https://localhost:${port}/agents/client.json`;
  documentServer = https.createServer({ key: await fs.readFile(key), cert: await fs.readFile(cert) }, (req, res) => {
    served.push(req.url ?? '');
    if (req.url !== '/agents/client.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(JSON.stringify({
      client_id: clientId,
      client_name: 'Metadata Document Agent',
      redirect_uris: [CALLBACK_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
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

test.serial('a metadata document URL on a host that is not allowed is refused, not fetched', async (t) => {
  const before = served.length;
  const url = new URL(`${env.baseUrl}/oauth/authorize`);
  url.searchParams.set('client_id', 'https://127.0.0.1:9/client.json');
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', CALLBACK_URL);
  url.searchParams.set('code_challenge', 'x'.repeat(43));
  url.searchParams.set('code_challenge_method', 'S256');
  const res = await request(env, 'GET', `${url.pathname}${url.search}`);
  t.is(res.status, 400);
  t.is(served.length, before);
});

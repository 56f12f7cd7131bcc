import test from 'ava';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { insertDraft, markDraftFailed } from '../../src/domain/drafts/drafts.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;

test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

/** `count` drafts of one owner, created a minute apart (oldest first); returns their ids. */
async function draftsOf(ownerId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const draft = await insertDraft(env.services.db, { ownerId, siteId: 1, url: `https://d${i}.example/` });
    const createdAt = new Date(Date.UTC(2026, 0, 1, 12, i));
    await env.services.db('drafts').where({ id: draft.id }).update({ created_at: createdAt, updated_at: createdAt });
    ids.push(draft.id);
  }
  return ids;
}

test('list_my_drafts pages through the caller’s drafts, newest first', async (t) => {
  const owner = await env.user(['account:read']);
  const ids = await draftsOf(owner.userId, 5);
  await markDraftFailed(env.services.db, ids[1]!, 'dns_failure', 'The name d1.example does not resolve.');
  const first = await api(env, 'GET', '/drafts?per_page=2', { key: owner.key });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(first.body, { page: 1, per_page: 2, total: 5 });
  t.deepEqual(
    first.body.items.map((d: { id: number }) => d.id),
    [ids[4], ids[3]],
  );
  t.like(first.body.items[0], { url: 'https://d4.example/', status: 'crawling', name: null, workflow_id: `draft:${ids[4]}` });
  t.false('evidence' in first.body.items[0]);
  const last = await api(env, 'GET', '/drafts?per_page=2&page=3', { key: owner.key });
  t.deepEqual(
    last.body.items.map((d: { id: number }) => d.id),
    [ids[0]],
  );
  const middle = await api(env, 'GET', '/drafts?per_page=2&page=2', { key: owner.key });
  t.like(middle.body.items[1], { id: ids[1], status: 'failed', failure: { code: 'dns_failure' } });
  const past = await api(env, 'GET', '/drafts?page=9', { key: owner.key });
  t.deepEqual(past.body, { items: [], page: 9, per_page: 20, total: 5 });
});

test('list_my_drafts shows only the caller’s drafts (BOLA)', async (t) => {
  const alice = await env.user(['account:read']);
  const bob = await env.user(['account:read']);
  const aliceIds = await draftsOf(alice.userId, 2);
  const bobs = await api(env, 'GET', '/drafts', { key: bob.key });
  t.deepEqual(bobs.body, { items: [], page: 1, per_page: 20, total: 0 });
  const alices = await api(env, 'GET', '/drafts', { key: alice.key });
  t.deepEqual(alices.body.items.map((d: { id: number }) => d.id).sort(), [...aliceIds].sort());
});

test('list_my_drafts needs account:read and valid paging', async (t) => {
  const anonymous = await api(env, 'GET', '/drafts');
  t.is(anonymous.status, 401);
  const writer = await env.user(['listings:write']);
  const forbidden = await api(env, 'GET', '/drafts', { key: writer.key });
  t.is(forbidden.status, 403);
  t.is(forbidden.body.code, 'insufficient_scope');
  const reader = await env.user(['account:read']);
  for (const query of ['page=0', 'per_page=101', 'page=abc', 'per_page=-1', 'page=1&page=2']) {
    const res = await api(env, 'GET', `/drafts?${query}`, { key: reader.key });
    t.is(res.status, 400, query);
    t.is(res.body.code, 'validation_failed', query);
  }
});

test('list_my_drafts over MCP answers the same page as REST, and only the caller’s drafts', async (t) => {
  const owner = await env.user(['account:read']);
  const other = await env.user(['account:read']);
  await draftsOf(owner.userId, 3);
  await draftsOf(other.userId, 1);
  const client = new Client({ name: 'test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const headers = { Authorization: `Bearer ${owner.key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`), { requestInit: { headers } }));
  t.teardown(() => client.close());
  const result = (await client.callTool({ name: 'list_my_drafts', arguments: { per_page: 2 } })) as CallToolResult;
  t.falsy(result.isError, JSON.stringify(result));
  const rest = await api(env, 'GET', '/drafts?per_page=2', { key: owner.key });
  t.deepEqual(result.structuredContent, rest.body);
  t.is((result.structuredContent as { total: number }).total, 3);
  const bad = (await client.callTool({ name: 'list_my_drafts', arguments: { per_page: 0 } })) as CallToolResult;
  t.true(bad.isError);
  t.is(JSON.parse((bad.content[0] as { text: string }).text).code, 'validation_failed');
});

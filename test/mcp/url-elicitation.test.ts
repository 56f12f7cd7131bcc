import { randomBytes } from 'node:crypto';
import test from 'ava';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ElicitRequestURLParams } from '@modelcontextprotocol/client';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// URL elicitation with the official MCP client in both protocol eras: create_checkout and an email
// claim ask a client that declares URL elicitation to show the pay page / the claim's
// verification step to its person (elicitation/create, mode "url"); a client without it gets the
// result only; a client whose person declines still gets the result, which always has the URL.

const ERAS = ['2026-07-28', '2025-11-25'] as const;
type Era = (typeof ERAS)[number];

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
});
test.after.always(async () => {
  await env?.close();
});

const db = () => env.services.db;

interface Elicited {
  params: ElicitRequestURLParams;
}

/** The official client of an era; `answer` (when given) declares URL elicitation and answers its requests. */
async function connect(era: Era, key: string, answer?: 'accept' | 'decline') {
  const seen: Elicited[] = [];
  let elicited: (() => void) | undefined;
  const firstElicitation = new Promise<void>((resolve) => (elicited = resolve));
  const options = answer ? { capabilities: { elicitation: { url: {} } } } : {};
  const client =
    era === '2026-07-28'
      ? new Client({ name: 'elicitation-test', version: '1.0.0' }, { ...options, versionNegotiation: { mode: { pin: era } } })
      : new Client({ name: 'elicitation-test', version: '1.0.0' }, { ...options, supportedProtocolVersions: [era] });
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push({ params: request.params as ElicitRequestURLParams });
      elicited!();
      return { action: answer };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  return { client, seen, firstElicitation };
}

async function owned() {
  const tag = `elicit${randomBytes(4).toString('hex')}`;
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: tag, ownerId: owner.userId, url: `https://${tag}.com/` });
  return { owner, listingId };
}

const checkoutArgs = (listingId: number) => ({
  items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
  billing_country: 'DE',
});
const bodyOf = (result: CallToolResult) => {
  if (result.isError) throw new Error((result.content[0] as { text: string }).text);
  return result.structuredContent as Record<string, any>;
};

for (const era of ERAS) {
  test(`${era}: create_checkout asks a client with URL elicitation to show the pay page; the result carries it too`, async (t) => {
    const { owner, listingId } = await owned();
    const { client, seen, firstElicitation } = await connect(era, owner.key, 'accept');
    t.teardown(() => client.close());
    t.is(client.getNegotiatedProtocolVersion(), era);
    const order = bodyOf((await client.callTool({ name: 'create_checkout', arguments: checkoutArgs(listingId) })) as CallToolResult);
    t.regex(order.checkout_url, new RegExp(`^${env.baseUrl}/checkout/`));
    await firstElicitation;
    t.is(seen.length, 1);
    const params = seen[0]!.params;
    t.is(params.mode, 'url');
    t.is(params.url, order.checkout_url);
    t.regex(params.message, new RegExp(`order ${order.number}.*never to the assistant`));
    if (era === '2025-11-25') t.regex(params.elicitationId, /^[0-9a-f-]{36}$/);
    // One order, not one per round.
    t.is(await countOrders(owner.userId), 1);
  });

  test(`${era}: a client without URL elicitation gets only the result`, async (t) => {
    const { owner, listingId } = await owned();
    const { client } = await connect(era, owner.key);
    t.teardown(() => client.close());
    const result = (await client.callTool({ name: 'create_checkout', arguments: checkoutArgs(listingId) })) as CallToolResult;
    t.regex(bodyOf(result).checkout_url, /\/checkout\//);
    t.is(await countOrders(owner.userId), 1);
  });

  test(`${era}: when the person declines to open the page, the result still comes with checkout_url`, async (t) => {
    const { owner, listingId } = await owned();
    const { client, seen, firstElicitation } = await connect(era, owner.key, 'decline');
    t.teardown(() => client.close());
    const order = bodyOf((await client.callTool({ name: 'create_checkout', arguments: checkoutArgs(listingId) })) as CallToolResult);
    await firstElicitation;
    t.is(seen[0]!.params.url, order.checkout_url);
    t.truthy(order.checkout_url);
    t.is(await countOrders(owner.userId), 1);
  });

  test(`${era}: an email claim shows the verification step; a DNS claim and a refused checkout show nothing`, async (t) => {
    const tag = `claim${randomBytes(4).toString('hex')}`;
    const claimant = await env.user();
    const listingId = await insertLiveListing(db(), { name: tag, url: `https://${tag}.com/` });
    const { slug } = (await db()('listings').where({ id: listingId }).first('slug'))!;
    const { client, seen, firstElicitation } = await connect(era, claimant.key, 'accept');
    t.teardown(() => client.close());
    const claim = bodyOf(
      (await client.callTool({ name: 'claim_listing', arguments: { slug, method: 'email', email: `boss@${tag}.com` } })) as CallToolResult,
    );
    t.like(claim, { method: 'email', status: 'pending' });
    await firstElicitation;
    t.is(seen.length, 1);
    t.is(seen[0]!.params.mode, 'url');
    t.is(seen[0]!.params.url, `${env.baseUrl}/account/claims#claim-${claim.id}`);
    t.regex(seen[0]!.params.message, new RegExp(`boss@${tag}\\.com`));

    const other = await insertLiveListing(db(), { name: `${tag}dns`, url: `https://${tag}dns.com/` });
    const { slug: otherSlug } = (await db()('listings').where({ id: other }).first('slug'))!;
    bodyOf((await client.callTool({ name: 'claim_listing', arguments: { slug: otherSlug, method: 'dns' } })) as CallToolResult);
    const refused = (await client.callTool({ name: 'create_checkout', arguments: { items: [], billing_country: 'DE' } })) as CallToolResult;
    t.true(refused.isError);
    t.is(seen.length, 1, 'nothing more was shown');
  });
}

async function countOrders(userId: number): Promise<number> {
  const row = await db()('orders').where({ user_id: userId }).count({ n: '*' }).first();
  return Number(row?.n);
}

/** A raw 2026-07-28 tools/call (to look at the input_required round itself); `state` retries with a requestState. */
async function rawModernCall(key: string, name: string, args: unknown, retry?: { state: string; responses: Record<string, unknown> }) {
  const res = await request(env, 'POST', '/mcp', {
    key,
    headers: {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
        },
        ...(retry ? { requestState: retry.state, inputResponses: retry.responses } : {}),
      },
    },
  });
  const text = res.text.startsWith('event:')
    ? res.text
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6)
    : res.text;
  return JSON.parse(text);
}

test('2026-07-28: the requestState holding the result is signed, bound to the caller and to the tool; the retry gives the first result', async (t) => {
  const { owner, listingId } = await owned();
  const first = await rawModernCall(owner.key, 'create_checkout', checkoutArgs(listingId));
  t.is(first.result.resultType, 'input_required');
  const ask = first.result.inputRequests.pay_page;
  t.is(ask.method, 'elicitation/create');
  t.like(ask.params, { mode: 'url' });
  t.regex(ask.params.url, /\/checkout\//);
  t.is(typeof first.result.requestState, 'string');
  const state: string = first.result.requestState;
  const responses = { pay_page: { action: 'accept' } };

  // One character of the signature changed (the last one may only carry padding bits).
  const tampered = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.slice(-1)}`;
  t.like((await rawModernCall(owner.key, 'create_checkout', checkoutArgs(listingId), { state: tampered, responses })).error, {
    code: -32602,
  });
  const stranger = await env.user();
  t.like((await rawModernCall(stranger.key, 'create_checkout', checkoutArgs(listingId), { state, responses })).error, { code: -32602 });
  const otherTool = await rawModernCall(owner.key, 'claim_listing', { slug: 'x', method: 'dns' }, { state, responses });
  t.like(otherTool.error, { code: -32602 });

  const done = await rawModernCall(owner.key, 'create_checkout', checkoutArgs(listingId), {
    state,
    responses: { pay_page: { action: 'decline' } },
  });
  t.is(done.result.structuredContent.checkout_url, ask.params.url);
  t.is(await countOrders(owner.userId), 1);
});

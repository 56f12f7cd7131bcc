import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile, imageBytes, PUBLISHABLE, words } from '../helpers/founders.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { workflowResult } from '../helpers/workflows.ts';

/** Owner content through MCP: the same results, problems, ownership and idempotency as REST. */

type Args = Record<string, unknown>;
type User = { userId: number; key: string; email: string };

type Parity = ReturnType<typeof mcpParity>;

let env: TestEnv;
let questionIds: number[];
let parity: Parity;

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
  parity = mcpParity(env);
  questionIds = (await api(env, 'GET', '/interview-questions')).body.items.map((q: { id: number }) => q.id);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;

const viaMcp = (...args: Parameters<Parity['viaMcp']>) => parity.viaMcp(...args);
const viaRest = (...args: Parameters<Parity['viaRest']>) => parity.viaRest(...args);

/**
 * Masks what differs between two identical fixtures: ids, timestamps, numeric path segments of
 * URLs and the fixture's random tag (in names, slugs and URLs). Everything else must match.
 */
function normalize(value: unknown, tag: string, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, tag, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, tag, k)]));
  }
  if (value !== null && /(^|_)id$|^edited_by$/.test(key)) return '<id>';
  if (typeof value !== 'string') return value;
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value)) return '<time>';
  // A card image URL's version is a hash of the listing's name, which holds the tag.
  return value
    .replaceAll(tag, '<tag>')
    .replace(/\/\d+(?=[/?#]|$)/g, '/<id>')
    .replace(/(\/media\/cards\/.*\.png\?v=)[0-9a-f]{16}$/, '$1<version>');
}

interface Twin {
  tag: string;
  user: User;
  listingId: number;
  /** The same company's listing on the makers site (for apply_to). */
  siblingId: number;
}

/** An owner with a live listing on main and one of the same company on makers. */
async function twin(): Promise<Twin> {
  const tag = randomBytes(4).toString('hex');
  const user = await env.user();
  const url = `https://twin${tag}.com/`;
  const listingId = await insertLiveListing(db(), { name: `Twin ${tag}`, ownerId: user.userId, url, headline: 'Before' });
  const siblingId = await insertLiveListing(db(), { name: `Twin ${tag} M`, ownerId: user.userId, url, site: 'makers', headline: 'Before' });
  return { tag, user, listingId, siblingId };
}

interface WriteCase {
  op: string;
  args: (t: Twin) => Args | Promise<Args>;
  /** What the result must say, beyond matching REST. */
  check?: (t: ExecutionContext, body: any, twin: Twin) => void | Promise<void>;
}

const milestone = { date: '2024-02-29', title: 'Leap day launch', description: 'We launched.', url: 'https://twin.example.com/launch' };

const writes: WriteCase[] = [
  {
    op: 'update_my_listing',
    args: (t) => ({
      listing_id: t.listingId,
      fields: { headline: 'Rockets for all', seo_title: 'Rockets', founded_year: 2020 },
      socials: { github: 'https://github.com/rockets' },
      faqs: [{ question: 'Why?', answer: 'Because.' }],
      apply_to: ['makers'],
    }),
    async check(t, body, twin) {
      t.like(body, { headline: 'Rockets for all', socials: { github: 'https://github.com/rockets' } });
      t.like(body.applied, [{ site: 'makers', listing_id: twin.siblingId, status: 'updated' }]);
      // Only the site fields travel with apply_to, not socials or facts.
      const sibling = await db()('listings').where({ id: twin.siblingId }).first('headline', 'seo_title', 'socials', 'facts');
      t.deepEqual(sibling, { headline: 'Rockets for all', seo_title: 'Rockets', socials: {}, facts: {} });
    },
  },
  { op: 'add_milestone', args: (t) => ({ listing_id: t.listingId, ...milestone }) },
  {
    op: 'delete_milestone',
    async args(t) {
      const added = await viaRest(t.user.key, 'add_milestone', { listing_id: t.listingId, ...milestone });
      return { listing_id: t.listingId, milestone_id: added.body.id };
    },
    async check(t, body) {
      t.deepEqual(await db()('milestones').where({ id: body.id }), []);
    },
  },
  { op: 'post_listing_update', args: (t) => ({ listing_id: t.listingId, title: 'We shipped', body: 'Version 2 is out.\n\nThanks!' }) },
  { op: 'follow_listing', args: (t) => ({ listing_id: t.listingId }) },
  {
    op: 'unfollow_listing',
    async args(t) {
      await viaRest(t.user.key, 'follow_listing', { listing_id: t.listingId });
      return { listing_id: t.listingId };
    },
  },
  {
    op: 'update_founder_profile',
    args: () => ({ display_name: 'Ada <b>Founder</b>', bio: words(25, 'bio'), links: ['https://ada.example.com/'] }),
  },
  { op: 'upload_founder_photo', args: async () => ({ image_base64: (await imageBytes('jpeg', 300, 200)).toString('base64') }) },
  { op: 'answer_interview', args: () => ({ answers: [{ question_id: questionIds[0], answer: 'Rockets, cheaper.' }] }) },
  {
    op: 'set_founder_story',
    // Older section names (story, why_started) map onto the current ones on both transports.
    args: (t) => ({ listing_id: t.listingId, title: 'Our story', story: words(120, 'a'), why_started: words(100, 'b') }),
    check(t, body) {
      t.like(body, { status: 'draft', word_count: 220, sections: { how_started: words(120, 'a'), problem: words(100, 'b') } });
    },
  },
];

for (const c of writes) {
  test(`${c.op}: the MCP tool gives what the REST route gives`, async (t) => {
    const [viaTool, viaRoute] = await Promise.all([twin(), twin()]);
    const mcp = await viaMcp(viaTool.user.key, c.op, await c.args(viaTool));
    const rest = await viaRest(viaRoute.user.key, c.op, await c.args(viaRoute));
    t.false(mcp.error, JSON.stringify(mcp.body));
    t.true(rest.status < 300, JSON.stringify(rest.body));
    t.deepEqual(normalize(mcp.body, viaTool.tag), normalize(rest.body, viaRoute.tag));
    await c.check?.(t, mcp.body, viaTool);
  });
}

test('read-only tools give exactly what their REST routes give', async (t) => {
  const owner = await twin();
  const fan = await env.user();
  await completeProfile(env, owner.user.key);
  await db()('listings').where({ id: owner.listingId }).update({ plan: 'paid' });
  await viaRest(owner.user.key, 'set_founder_story', { listing_id: owner.listingId, ...PUBLISHABLE });
  await viaRest(owner.user.key, 'add_milestone', { listing_id: owner.listingId, ...milestone });
  await viaRest(owner.user.key, 'answer_interview', { answers: [{ question_id: questionIds[1], answer: 'Makers.' }] });
  await viaRest(fan.key, 'follow_listing', { listing_id: owner.listingId });
  const posted = await viaRest(owner.user.key, 'post_listing_update', { listing_id: owner.listingId, title: 'News', body: 'Body.' });
  await workflowResult(env, posted.body.workflow_id);
  const { slug } = (await db()('listings').where({ id: owner.listingId }).first('slug'))!;

  const reads: [string, User | null, Args][] = [
    ['list_sites', null, {}],
    ['get_listing', null, { slug }],
    ['list_latest_updates', null, { per_page: 5 }],
    ['list_interview_questions', null, {}],
    ['list_listing_versions', owner.user, { listing_id: owner.listingId }],
    ['get_founder_story', owner.user, { listing_id: owner.listingId }],
    ['get_founder_profile', owner.user, {}],
    ['list_my_notifications', fan, { page: 1, per_page: 10 }],
  ];
  for (const [name, user, args] of reads) {
    const mcp = await viaMcp(user?.key, name, args);
    const rest = await viaRest(user?.key, name, args);
    t.false(mcp.error, `${name}: ${JSON.stringify(mcp.body)}`);
    t.is(rest.status, 200, name);
    t.deepEqual(mcp.body, rest.body, name);
  }
  const listing = (await viaMcp(undefined, 'get_listing', { slug })).body;
  t.like(listing, { follower_count: 1, milestones: [{ title: milestone.title }] });
  t.is((await viaMcp(owner.user.key, 'get_founder_story', { listing_id: owner.listingId })).body.status, 'published');
  t.like((await viaMcp(fan.key, 'list_my_notifications', {})).body, { total: 1, items: [{ update: { title: 'News' } }] });
  t.true((await viaMcp(undefined, 'list_sites', {})).body.items.some((s: { key: string }) => s.key === 'makers'));
});

test('bad input is the problem object of REST, with field paths', async (t) => {
  const { user, listingId } = await twin();
  const notAnImage = Buffer.from('GIF89a is what I claim, but I am text').toString('base64');
  // name, arguments, failing paths, and the code when it is not validation_failed (400)
  const cases: [string, Args, string[], ('invalid_answers' | 'unsupported_image')?][] = [
    ['update_my_listing', { listing_id: listingId, fields: { colour: 'red' } }, ['fields.colour']],
    ['update_my_listing', { listing_id: listingId, fields: { headline: 'ok' }, apply_to: ['makers', 'nowhere'] }, ['apply_to.1']],
    ['update_my_listing', { listing_id: listingId, socials: { twitter: 'https://github.com/x' } }, ['socials.twitter']],
    ['list_sites', { colour: 'red' }, ['colour']],
    ['list_listing_versions', { listing_id: listingId, per_page: 1000 }, ['per_page']],
    ['add_milestone', { listing_id: listingId, date: '2023-02-29', title: 'Not a day' }, ['date']],
    ['add_milestone', { listing_id: listingId, date: '2024-01-01', title: ' ', url: 'http://insecure.example.com' }, ['title', 'url']],
    ['delete_milestone', { listing_id: listingId, milestone_id: 'one' }, ['milestone_id']],
    ['get_listing', { slug: 'x'.repeat(81) }, ['slug']],
    ['post_listing_update', { listing_id: listingId, title: 'Two\nlines' }, ['title', 'body']],
    ['follow_listing', { listing_id: -1 }, ['listing_id']],
    ['unfollow_listing', { listing_id: 1.5 }, ['listing_id']],
    ['list_latest_updates', { page: 0 }, ['page']],
    ['list_my_notifications', { per_page: 'ten' }, ['per_page']],
    ['set_founder_story', { listing_id: listingId, story: 'older', how_started: 'current' }, ['story', 'how_started']],
    ['set_founder_story', { listing_id: listingId, problem: 'x'.repeat(10_001) }, ['problem']],
    ['get_founder_story', { listing_id: 0 }, ['listing_id']],
    ['answer_interview', { answers: [{ question_id: 2_000_000_000, answer: 'x' }] }, ['answers.0.question_id'], 'invalid_answers'],
    ['answer_interview', { answers: [{ question_id: questionIds[0], answer: '   ' }] }, ['answers.0.answer']],
    ['get_founder_profile', { colour: 'red' }, ['colour']],
    ['update_founder_profile', { links: ['http://insecure.example.com'], display_name: 'Two\nlines' }, ['display_name', 'links.0']],
    ['upload_founder_photo', { image_base64: '%%% not base64 %%%' }, ['image_base64']],
    ['upload_founder_photo', { image_base64: notAnImage }, [], 'unsupported_image'],
  ];
  for (const [name, args, paths, code = 'validation_failed'] of cases) {
    const label = `${name} ${JSON.stringify(args).slice(0, 60)}`;
    const mcp = await viaMcp(user.key, name, args);
    const rest = await viaRest(user.key, name, args);
    t.true(mcp.error, label);
    t.is(mcp.body.status, code === 'invalid_answers' ? 422 : 400, label);
    t.is(mcp.body.code, code, label);
    t.deepEqual([...new Set((mcp.body.errors ?? []).map((e: { path: string }) => e.path))].sort(), [...paths].sort(), label);
    if (Object.keys(args).includes('colour')) {
      // REST skips unknown query parameters (links carry tracking ones); tool arguments are strict.
      t.is(rest.status, 200, label);
      continue;
    }
    const { request_id: _a, ...fromTool } = mcp.body;
    const { request_id: _b, ...fromRoute } = rest.body;
    t.deepEqual(fromTool, fromRoute, label);
  }
  t.is(
    await db()('milestones')
      .where({ listing_id: listingId })
      .count({ n: '*' })
      .first()
      .then((r) => Number(r?.n)),
    0,
  );
  t.is((await db()('listings').where({ id: listingId }).first('headline'))!.headline, 'Before');
  t.is(await db()('founder_profiles').where({ user_id: user.userId }).first(), undefined);
});

/** Everything of a listing that an owner operation could change. */
async function listingState(listingId: number) {
  const of = (table: string) => db()(table).where({ listing_id: listingId }).orderBy('id');
  return {
    listing: await db()('listings').where({ id: listingId }).first(),
    milestones: await of('milestones'),
    versions: await of('listing_versions'),
    updates: await of('listing_updates'),
    story: await db()('founder_stories').where({ listing_id: listingId }).first(),
  };
}

test("another owner's listing is not found through MCP, and nothing changes", async (t) => {
  const victim = await twin();
  const stranger = await env.user();
  const added = await viaRest(victim.user.key, 'add_milestone', { listing_id: victim.listingId, ...milestone });
  await viaRest(victim.user.key, 'set_founder_story', { listing_id: victim.listingId, title: 'Mine', how_started: 'My words.' });
  const before = await listingState(victim.listingId);
  const id = victim.listingId;
  const cases: [string, Args][] = [
    ['update_my_listing', { listing_id: id, fields: { headline: 'Hijacked' }, apply_to: ['all'] }],
    ['list_listing_versions', { listing_id: id }],
    ['add_milestone', { listing_id: id, ...milestone }],
    ['delete_milestone', { listing_id: id, milestone_id: added.body.id }],
    ['post_listing_update', { listing_id: id, title: 'Hijacked', body: 'Not mine.' }],
    ['set_founder_story', { listing_id: id, how_started: 'Hijacked.' }],
    ['get_founder_story', { listing_id: id }],
  ];
  for (const [name, args] of cases) {
    const mcp = await viaMcp(stranger.key, name, args);
    t.true(mcp.error, name);
    t.like(mcp.body, { status: 404, code: 'not_found' }, name);
    t.is((await viaRest(stranger.key, name, args)).status, 404, name);
  }
  // A listing that is not live does not exist for followers-to-be.
  await db()('listings').where({ id: victim.siblingId }).update({ status: 'draft' });
  t.like((await viaMcp(stranger.key, 'follow_listing', { listing_id: victim.siblingId })).body, { status: 404, code: 'not_found' });
  t.like((await viaMcp(undefined, 'get_listing', { slug: 'no-such-listing' })).body, { status: 404, code: 'not_found' });
  t.deepEqual(await listingState(victim.listingId), before);
  t.is((await db()('listing_followers').where({ user_id: stranger.userId })).length, 0);
});

const replayCases: [string, (t: Twin) => Args, (t: Twin) => Promise<number>][] = [
  ['add_milestone', (o) => ({ listing_id: o.listingId, ...milestone }), (o) => count('milestones', o.listingId)],
  [
    'post_listing_update',
    (o) => ({ listing_id: o.listingId, title: 'Once', body: 'Only once.' }),
    (o) => count('listing_updates', o.listingId),
  ],
  ['update_my_listing', (o) => ({ listing_id: o.listingId, fields: { headline: 'Once' } }), (o) => count('listing_versions', o.listingId)],
];

async function count(table: string, listingId: number): Promise<number> {
  return Number((await db()(table).where({ listing_id: listingId }).count({ n: '*' }).first())?.n);
}

for (const [name, args, rows] of replayCases) {
  test(`${name}: an idempotency_key replays over MCP and REST, and refuses other arguments`, async (t) => {
    const owner = await twin();
    const key = `replay-${randomBytes(4).toString('hex')}`;
    const first = await viaMcp(owner.user.key, name, { ...args(owner), idempotency_key: key });
    t.false(first.error, JSON.stringify(first.body));
    const again = await viaMcp(owner.user.key, name, { ...args(owner), idempotency_key: key });
    t.deepEqual(again.body, first.body);
    // The key belongs to the credential and the operation, whichever transport carries it.
    const overRest = await viaRest(owner.user.key, name, args(owner), { 'idempotency-key': key });
    t.is(overRest.headers.get('idempotent-replayed'), 'true');
    t.deepEqual(overRest.body, first.body);
    t.is(await rows(owner), 1);
    const other = await viaMcp(owner.user.key, name, { ...args(owner), listing_id: owner.siblingId, idempotency_key: key });
    t.like(other.body, { status: 422, code: 'idempotency_conflict' });
    t.is(await rows({ ...owner, listingId: owner.siblingId }), 0);
  });
}

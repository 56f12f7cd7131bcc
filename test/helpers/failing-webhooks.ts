import type { Db } from '../../src/db/knex.ts';
import { insertLiveListing } from './listings.ts';
import type { mcpParity } from './mcp-parity.ts';
import type { TestEnv } from './env.ts';
import { unique } from './staff-cast.ts';

/** The path and query of the test addresses: a token, as chat and automation services put there. */
export const URL_TOKEN = 'T0SECRETPATHTOKEN';

/**
 * An owner with a listing on the main site and an endpoint (made through the API, so it has a
 * real sealed secret) whose last `failures` tries failed with 502, hours apart from `since`, after
 * one success before them; `disabled` turns it off as the delivery flow does after 3 days.
 */
export async function failingEndpoint(
  env: TestEnv,
  parity: ReturnType<typeof mcpParity>,
  o: { failures: number; since: Date; disabled?: boolean },
) {
  const db: Db = env.services.db;
  const owner = await env.user(['account:read', 'webhooks:write']);
  await insertLiveListing(db, { name: `Hooked ${unique()}`, ownerId: owner.userId, url: `https://h-${unique()}.example/` });
  const res = await parity.viaRest(owner.key, 'create_webhook_endpoint', {
    url: `http://127.0.0.1:9/hooks/${URL_TOKEN}?key=${URL_TOKEN}`,
    events: ['listing.live', 'order.paid'],
  });
  if (res.status !== 201) throw new Error(res.text);
  const endpoint = res.body as { id: number; secret: string };
  const event = async () =>
    (
      await db('webhook_events')
        .insert({
          user_id: owner.userId,
          type: 'listing.live',
          payload: JSON.stringify({ type: 'listing.live', created_at: o.since.toISOString(), data: { private: 'PAYLOAD-MARKER' } }),
          dedupe_key: `staff-test:${unique()}`,
        })
        .returning('id')
    )[0]!.id;
  const at = (h: number) => new Date(o.since.getTime() + h * 3_600_000);
  const [ok] = await db('webhook_deliveries')
    .insert({
      event_id: await event(),
      endpoint_id: endpoint.id,
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      succeeded_at: at(-1),
    })
    .returning('id');
  await db('webhook_attempts').insert({ delivery_id: ok!.id, round: 0, ok: true, status_code: 200, duration_ms: 5, attempted_at: at(-1) });
  const [failing] = await db('webhook_deliveries')
    .insert({
      event_id: await event(),
      endpoint_id: endpoint.id,
      status: o.disabled ? 'failed' : 'pending',
      attempts: o.failures,
      last_status_code: 502,
      last_error: 'The endpoint answered 502.',
      first_attempt_at: at(0),
      last_attempt_at: at(o.failures - 1),
    })
    .returning('id');
  for (let i = 0; i < o.failures; i++) {
    await db('webhook_attempts').insert({
      delivery_id: failing!.id,
      round: 0,
      ok: false,
      status_code: 502,
      error: 'The endpoint answered 502.',
      duration_ms: 5,
      attempted_at: at(i),
    });
  }
  await db('webhook_endpoints')
    .where({ id: endpoint.id })
    .update(
      o.disabled
        ? { failing_since: o.since, enabled: false, disabled_at: at(o.failures), disabled_reason: 'failing' }
        : { failing_since: o.since },
    );
  const { secret_box } = (await db('webhook_endpoints').where({ id: endpoint.id }).first('secret_box'))!;
  return { id: endpoint.id, secret: endpoint.secret, secretBox: secret_box, owner };
}

import { z } from 'zod';
import { createPromo, disablePromo, listPromos, promoRedemptions } from '../domain/orders/promos-admin.ts';
import { findPromo, type PromoCode } from '../domain/orders/promos.ts';
import { notFound } from '../errors/errors.ts';
import { defineOperation } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

/** The uses listed per code: the latest ones; the counts cover them all. */
const REDEMPTIONS_SHOWN = 20;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const PromoView = z.object({
  id: z.int(),
  code: z.string(),
  percent: z.number().nullable().describe('Percent off (12.5 is 12.5 %), or null for an amount off'),
  amount_cents: z.int().nullable().describe('Amount off in cents, or null for a percent off'),
  starts_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  max_redemptions: z.int().nullable(),
  per_account: z.int().nullable(),
  first_order_only: z.boolean(),
  min_net_cents: z.int().nullable(),
  products: z.array(z.string()).nullable().describe('The products it applies to; null: all'),
  disabled_at: z.string().nullable(),
});

const promoView = (p: PromoCode) => ({
  id: p.id,
  code: p.code,
  percent: p.percent_bp === null ? null : p.percent_bp / 100,
  amount_cents: p.amount_cents,
  starts_at: iso(p.starts_at),
  expires_at: iso(p.expires_at),
  max_redemptions: p.max_redemptions,
  per_account: p.per_account,
  first_order_only: p.first_order_only,
  min_net_cents: p.min_net_cents,
  products: p.products,
  disabled_at: iso(p.disabled_at),
});

const Redemption = z.object({
  email: z.string().describe('The buyer’s email'),
  order_number: z.string(),
  state: z.enum(['reserved', 'counted', 'released']).describe('counted: paid; reserved: held by an unpaid checkout'),
  at: z.string(),
});

export const staffListPromoCodesOp = defineOperation({
  name: 'staff_list_promo_codes',
  summary: 'Site team: this site’s promo codes and their uses',
  description:
    'Every promo code of this site with its terms, how many uses are counted (paid) and reserved (held by an unpaid checkout), ' +
    `and its latest ${REDEMPTIONS_SHOWN} uses: who, on which order, when. For admins; the read is recorded in the staff audit log.`,
  method: 'GET',
  path: '/staff/promo-codes',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({}),
  output: z.object({
    items: z.array(PromoView.extend({ counted: z.int(), reserved: z.int(), redemptions: z.array(Redemption) })),
  }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    const promos = await listPromos(ctx.db, ctx.site.key);
    const uses = await promoRedemptions(
      ctx.db,
      promos.map((p) => p.id),
      REDEMPTIONS_SHOWN,
    );
    await audit(ctx, actor, { operation: 'staff_list_promo_codes', input, after: { found: promos.length } });
    const items = promos.map((p) => ({
      ...promoView(p),
      counted: p.counted,
      reserved: p.reserved,
      redemptions: uses
        .filter((u) => u.promo_code_id === p.id)
        .map((u) => ({ email: u.email, order_number: u.order_number, state: u.state, at: new Date(u.at).toISOString() })),
    }));
    return { items };
  },
});

const dateTime = z.iso.datetime({ offset: true });

export const staffCreatePromoCodeOp = defineOperation({
  name: 'staff_create_promo_code',
  summary: 'Site team: create a promo code',
  description:
    'A percent off (more than 0, at most 100) or an amount off in cents, never both; optionally a validity window (expiry after start), ' +
    'a cap on uses in all and per account, first orders only, a minimum, and the products it applies to. Codes are 3–40 letters, digits, ' +
    '- or _, matched without case; an existing code is a 409. For admins; recorded in the staff audit log.',
  method: 'POST',
  path: '/staff/promo-codes',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: false,
  successStatus: 201,
  errorCodes: [...STAFF_ERROR_CODES, 'promo_code_exists', 'promo_code_refused'],
  tags: ['staff'],
  input: z.object({
    code: z.string().max(100),
    percent: z.number().optional().describe('Percent off, e.g. 25 or 12.5'),
    amount_cents: z.int().min(1).max(100_000_000).optional().describe('Amount off, in cents'),
    starts_at: dateTime.optional(),
    expires_at: dateTime.optional(),
    max_redemptions: z.int().min(1).max(1_000_000_000).optional().describe('Uses in all'),
    per_account: z.int().min(1).max(1_000_000_000).optional().describe('Uses per account'),
    first_order_only: z.boolean().default(false),
    min_net_cents: z.int().min(0).max(1_000_000_000).optional().describe('The least the products it applies to must add up to'),
    products: z.array(z.string().max(40)).max(20).optional().describe('Product keys; none: every product'),
  }),
  output: PromoView,
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    return ctx.db.transaction(async (trx) => {
      const created = await createPromo(trx, {
        site: ctx.site.key,
        code: input.code,
        percent: input.percent,
        amountCents: input.amount_cents,
        startsAt: input.starts_at === undefined ? undefined : new Date(input.starts_at),
        expiresAt: input.expires_at === undefined ? undefined : new Date(input.expires_at),
        maxRedemptions: input.max_redemptions,
        perAccount: input.per_account,
        firstOrderOnly: input.first_order_only,
        minNetCents: input.min_net_cents,
        products: input.products,
      });
      const after = promoView(created);
      await audit(
        ctx,
        actor,
        { operation: 'staff_create_promo_code', input, target: { kind: 'promo_code', id: created.code }, before: null, after },
        trx,
      );
      return after;
    });
  },
});

export const staffDisablePromoCodeOp = defineOperation({
  name: 'staff_disable_promo_code',
  summary: 'Site team: disable a promo code',
  description:
    'Buyers can no longer use the code (it reads as unknown); checkouts that already hold it keep it. Disabling a disabled code changes nothing. ' +
    'For admins; recorded in the staff audit log.',
  method: 'POST',
  path: '/staff/promo-codes/{code}/disable',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: false,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ code: z.string().min(1).max(100) }),
  output: PromoView,
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    return ctx.db.transaction(async (trx) => {
      const before = await findPromo(trx, ctx.site.id, input.code);
      if (!before) throw notFound(`Promo code "${input.code}"`);
      await disablePromo(trx, ctx.site.key, input.code);
      const after = promoView((await findPromo(trx, ctx.site.id, input.code))!);
      const target = { kind: 'promo_code', id: before.code };
      await audit(
        ctx,
        actor,
        { operation: 'staff_disable_promo_code', input, target, before: { disabled_at: iso(before.disabled_at) }, after },
        trx,
      );
      return after;
    });
  },
});

export const staffPromoCodeOperations = [staffListPromoCodesOp, staffCreatePromoCodeOp, staffDisablePromoCodeOp] as const;

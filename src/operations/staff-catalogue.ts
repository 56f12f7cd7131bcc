import { z } from 'zod';
import { allProducts, updateProduct, type AdminProduct } from '../domain/catalog/products-admin.ts';
import { isProductKey, unitOf } from '../domain/orders/product-options.ts';
import { notFound } from '../errors/errors.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

/**
 * The site's products and their prices for its admin. A price applies to every quote and checkout
 * from the moment it is set (orders already made keep the price they snapshotted).
 */

const StaffProduct = z.object({
  key: z.string(),
  name: z.string(),
  price_cents: z.int().describe('The price of one unit in USD cents, excluding VAT'),
  unit: z.string().describe('What one unit is: week, day, category or item'),
  active: z.boolean().describe('Whether buyers can order it'),
});

const view = (p: AdminProduct) => ({
  key: p.key,
  name: p.name,
  price_cents: p.price_cents,
  unit: isProductKey(p.key) ? unitOf(p.key) : 'item',
  active: p.active,
});

const productKey = z.string().min(1).max(40).describe('The product’s key, e.g. featured');

export const staffListProductsOp = defineOperation({
  name: 'staff_list_products',
  summary: 'Site team: this site’s products and prices',
  description:
    'Every product of this site, on sale or not, with the price of one unit. For admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/products',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({}),
  output: z.object({ items: z.array(StaffProduct) }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    const items = (await allProducts(ctx.db, ctx.site.key)).map(view);
    await audit(ctx, actor, { operation: 'staff_list_products', input, after: { found: items.length } });
    return { items };
  },
});

export const staffSetProductPriceOp = defineOperation({
  name: 'staff_set_product_price',
  summary: 'Site team: set a product’s price',
  description:
    'Sets the price of one unit (whole USD cents, excluding VAT, 0 to 100000000). Quotes and checkouts use it at once; ' +
    'orders already made keep their price. For admins; recorded in the staff audit log with the old and new price.',
  method: 'POST',
  path: '/staff/products/{product}/price',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: false,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ product: productKey, price_cents: z.int().describe('The new price of one unit, in cents') }),
  output: StaffProduct,
  handler: (input, ctx) => changeProduct(ctx, 'staff_set_product_price', input.product, { price_cents: input.price_cents }, input),
});

export const staffSetProductActiveOp = defineOperation({
  name: 'staff_set_product_active',
  summary: 'Site team: put a product on sale or take it off',
  description:
    'An inactive product is no longer listed nor sold (orders already made keep it). For admins; recorded in the staff audit log.',
  method: 'POST',
  path: '/staff/products/{product}/active',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: false,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ product: productKey, active: z.boolean() }),
  output: StaffProduct,
  handler: (input, ctx) => changeProduct(ctx, 'staff_set_product_active', input.product, { active: input.active }, input),
});

async function changeProduct(
  ctx: OperationContext,
  operation: string,
  key: string,
  change: { price_cents?: number; active?: boolean },
  input: Record<string, unknown>,
) {
  const actor = await asStaff(ctx, ['admin']);
  const changed = await ctx.db.transaction(async (trx) => {
    const before = (await allProducts(trx, ctx.site.key)).find((p) => p.key === key);
    if (!before) throw notFound(`Product "${key}"`);
    // The domain's checks (the price's range) are the command line's too.
    const after = await updateProduct(trx, ctx.site.key, key, change);
    const pick = (p: AdminProduct) => ({ price_cents: p.price_cents, active: p.active });
    await audit(ctx, actor, { operation, input, target: { kind: 'product', id: key }, before: pick(before), after: pick(after) }, trx);
    return after;
  });
  // Quotes read the product list through this cache: the new price counts from the next quote on.
  ctx.caches.catalog.products.delete(String(ctx.site.id));
  return view(changed);
}

export const staffProductOperations = [staffListProductsOp, staffSetProductPriceOp, staffSetProductActiveOp] as const;

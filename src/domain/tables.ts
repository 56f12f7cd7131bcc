/**
 * Every table of src/db/migrations, declared for knex by area (each area's tables.ts); the row
 * types are exported here too, for the modules that name them. Dropped tables (promo_attempts,
 * oauth_registrations: 023; signin_attempts: 025) are not declared.
 */
export type * from './sites/tables.ts';
export type * from './listings/tables.ts';
export type * from './launches/tables.ts';
export type * from './orders/tables.ts';
export type * from './webhooks/tables.ts';
export type * from './staff/tables.ts';
export type * from './comments/tables.ts';
export type * from './sign-in/tables.ts';
export type * from './newsletter/tables.ts';
export type * from './account/tables.ts';

import { draftOperations } from './drafts.ts';
import { founderOperations } from './founders.ts';
import { listingOperations } from './listings.ts';
import type { Operation } from './operation.ts';
import { publicOperations } from './public.ts';

/** THE CONTRACT: every operation of the service. REST, MCP and OpenAPI are generated from it. */
export const operations: readonly Operation[] = [
  ...publicOperations,
  ...draftOperations,
  ...listingOperations,
  ...founderOperations,
] as unknown as readonly Operation[];

import type { AppSecrets } from '../auth/secrets.ts';
import type { Clock } from '../domain/time/clock.ts';
import type { MediaStore } from '../domain/media/media-port.ts';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Principal, Scope } from '../auth/scopes.ts';
import type { Caches } from '../services.ts';
import type { ConfiguredProvider } from '../payments/index.ts';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import type { Site } from '../domain/sites/sites.ts';
import type { SearchEngine } from '../domain/listings/search-port.ts';
import type { WorkflowStarter, WorkflowStartQueue } from '../domain/ports.ts';
import { payloadTooLarge, type AppError, type ErrorCode } from '../errors/errors.ts';

/** A request body limit: bytes, and the error a larger body gets. */
export interface BodyLimit {
  bytes: number;
  tooLarge: () => AppError;
}

/** 1 MB of JSON: far more than any text field allows, little enough to refuse floods early. */
export const DEFAULT_BODY_LIMIT: BodyLimit = { bytes: 1024 * 1024, tooLarge: () => payloadTooLarge(1024 * 1024) };

/** The body limit of an operation. */
export const bodyLimitOf = (op: Pick<Operation, 'bodyLimit'>) => op.bodyLimit ?? DEFAULT_BODY_LIMIT;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Everything an operation handler may use; built per call by the transport. */
export interface OperationContext {
  db: Db;
  config: Config;
  workflows: WorkflowStarter;
  /** Where the workflow starts a write recorded are made (right after its commit). */
  workflowStarts: WorkflowStartQueue;
  search: SearchEngine;
  /** The process's in-process caches. */
  caches: Caches;
  /** The guarded HTTP agent badge checks fetch through. */
  badgeAgent: Dispatcher;
  /** The configured payment provider; null when payments are not configured. */
  payments: ConfiguredProvider | null;
  /** Where listing logos, preview images and card images are stored. */
  media: MediaStore;
  log: Logger;
  requestId: string;
  /** The site the request came to (by host), or the default site. */
  site: Site;
  /** Null on public operations called without credentials. */
  principal: Principal | null;
  /** The client's address (after trusted proxies), for per-address limits. */
  clientIp: string;
  /** Where rules read "now". */
  clock: Clock;
  /** Named server secrets shared through PostgreSQL (the webhooks' sealing key...). */
  secrets: AppSecrets;
}

/** The signed-in caller's user id; invoke() guarantees a principal on scoped operations. */
export function callerId(ctx: Pick<OperationContext, 'principal'>): number {
  if (!ctx.principal) throw new Error('operation without a scope used callerId()');
  return ctx.principal.userId;
}

/**
 * One operation of the contract. REST routes, MCP tools and the OpenAPI document are all
 * generated from these objects. `input` is one flat object: path parameters, then query
 * parameters (GET/DELETE) or body fields (POST/PUT/PATCH).
 */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  name: string;
  summary: string;
  description?: string;
  method: HttpMethod;
  /** OpenAPI-style path under /api/v1, e.g. `/drafts/{id}`. */
  path: string;
  /** Required scope; absent means public. */
  scope?: Scope;
  /** Accepts an Idempotency-Key (REST header, MCP `idempotency_key` argument). */
  idempotent: boolean;
  /** Changes nothing (MCP readOnlyHint). */
  readOnly: boolean;
  /** Removes or overwrites data (MCP destructiveHint). */
  destructive?: boolean;
  /** The largest request body (REST JSON, or MCP message) and the 413 beyond it; default DEFAULT_BODY_LIMIT. */
  bodyLimit?: BodyLimit;
  /** Starts a Temporal workflow, so it answers 503 workflow_unavailable while Temporal is unreachable. */
  startsWorkflow?: boolean;
  /**
   * The error codes its handler can throw beyond the ones its flags imply (see operationErrorCodes):
   * the contract publishes them, and invoke() refuses an undeclared one in tests.
   */
  errorCodes?: ErrorCode[];
  /** HTTP status of a success; default 200. */
  successStatus?: number;
  tags: string[];
  input: I;
  output: O;
  handler: (input: z.output<I>, ctx: OperationContext) => Promise<z.input<O>>;
}

/**
 * Keeps the handler's input and output types tied to the schemas, and makes the input strict:
 * an unknown field is a 400 naming it on every transport, never silently dropped.
 */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(op: Operation<I, O>): Operation<I, O> {
  const strict = op.input.strict();
  const meta = op.input.meta(); // JSON Schema facts (anyOf...) stay with the strict copy
  return { ...op, input: (meta ? strict.meta(meta) : strict) as unknown as I };
}

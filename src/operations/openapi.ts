import { bodyLimitOf, type Operation } from './operation.ts';
import { ERROR_CATALOGUE, ERROR_CODES, formatBytes, type ErrorCode } from '../errors/errors.ts';
import { errorCodesByStatus, operationErrorCodes } from './error-codes.ts';
import { absoluteUrl, paths } from '../lib/paths.ts';
import { IDEMPOTENCY_KEY_SCHEMA } from './idempotency-key.ts';
import { hasBody, operationSchemas, pathParams, type JsonSchema } from './json-schema.ts';

const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { $ref: '#/components/schemas/ErrorCode' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    request_id: { type: 'string' },
    // Extension members of 429 quota_exceeded (the wait is in the body too: MCP has no headers).
    quota: { type: 'string', description: 'Which quota: drafts_in_flight, drafts_per_hour, updates_per_listing_per_hour' },
    limit: { type: 'integer', description: 'The quota’s limit' },
    window_seconds: { type: ['integer', 'null'], description: 'The quota’s window; null for a limit on work in flight' },
    retry_after_seconds: { type: 'integer', description: 'Same as the Retry-After header' },
    // Extension members of 409 already_listed: the listing that holds the company, to claim.
    slug: { type: 'string', description: 'already_listed: the slug of the listing to claim (claim_listing)' },
    claim_url: { type: 'string', format: 'uri', description: 'already_listed: the web page where a person claims that listing' },
  },
};

/** The whole catalogue as one enum; each code's status, title and what to do in `x-enum-descriptions`. */
const ERROR_CODE_SCHEMA = {
  type: 'string',
  description: 'Stable machine code of a problem. Each operation lists the ones it can return in `x-error-codes`.',
  enum: ERROR_CODES,
  'x-enum-descriptions': Object.fromEntries(
    ERROR_CODES.map((code) => {
      const { status, title, action } = ERROR_CATALOGUE[code];
      return [code, `${status} ${title}: ${action}`];
    }),
  ),
};

/** Each error status an operation can answer, described by the codes it returns with that status. */
function errorResponses(op: Operation): Record<string, { description: string; 'x-error-codes': ErrorCode[] }> {
  const describe = (status: string, codes: ErrorCode[]) =>
    status === '413'
      ? `The body is larger than ${formatBytes(bodyLimitOf(op).bytes)} (${codes.map((code) => `\`${code}\``).join(', ')})`
      : codes.map((code) => `\`${code}\` (${ERROR_CATALOGUE[code].title})`).join(', ');
  return Object.fromEntries(
    Object.entries(errorCodesByStatus(op)).map(([status, codes]) => [
      status,
      { description: describe(status, codes), 'x-error-codes': codes },
    ]),
  );
}

/** The OpenAPI 3.1 document of the REST API, generated from the operation registry. */
export function openApiDocument(operations: readonly Operation[], baseUrl: string) {
  const pathItems: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    (pathItems[op.path] ??= {})[op.method.toLowerCase()] = pathItemOperation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Listing Directory API',
      version: '1.0.0',
      description: 'A ranked weekly directory of company/product listings. Every operation is also an MCP tool of the same name at /mcp.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: absoluteUrl(baseUrl, paths.api) }],
    tags: [...new Set(operations.flatMap((o) => o.tags))].map((name) => ({ name })),
    paths: pathItems,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA, ErrorCode: ERROR_CODE_SCHEMA },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `An API key (ld_...) or an OAuth access token issued for resource=${baseUrl}/api/v1 (MCP tokens are not accepted here)`,
        },
      },
    },
  };
}

function pathItemOperation(op: Operation) {
  const { input, output } = operationSchemas(op);
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const inPath = pathParams(op.path);
  const parameters: unknown[] = inPath.map((name) => ({ name, in: 'path', required: true, schema: properties[name] }));
  if (!hasBody(op)) {
    for (const [name, schema] of Object.entries(properties)) {
      if (inPath.includes(name)) continue;
      parameters.push({ name, in: 'query', required: required.has(name), schema, description: schema.description });
    }
  }
  if (op.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: IDEMPOTENCY_KEY_SCHEMA.description,
      schema: IDEMPOTENCY_KEY_SCHEMA,
    });
  }
  const responses: Record<string, unknown> = {
    [String(op.successStatus ?? 200)]: { description: 'Success', content: { 'application/json': { schema: output } } },
  };
  for (const [status, response] of Object.entries(errorResponses(op))) {
    responses[status] = { ...response, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  }
  const result: Record<string, unknown> = {
    operationId: op.name,
    summary: op.summary,
    description: [op.description, op.scope ? `Requires scope \`${op.scope}\`.` : 'Public: no sign-in needed.'].filter(Boolean).join('\n\n'),
    tags: op.tags,
    parameters,
    responses,
    // OpenAPI 3.1 lets non-OAuth schemes name the roles (here: scopes) they need.
    security: op.scope ? [{ bearerAuth: [op.scope] }] : [],
    'x-required-scope': op.scope ?? null,
    'x-error-codes': operationErrorCodes(op),
  };
  if (hasBody(op)) {
    const schema = bodySchema(input, inPath);
    // Without a body every required field is missing (400): say so, so that clients and fuzzers send one.
    result.requestBody = { required: Boolean(schema.required?.length), content: { 'application/json': { schema } } };
  }
  return result;
}

function bodySchema(input: JsonSchema, inPath: string[]): JsonSchema {
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).filter(([k]) => !inPath.includes(k)));
  const required = (input.required ?? []).filter((k) => !inPath.includes(k));
  return { ...input, properties, ...(required.length ? { required } : { required: undefined }) };
}

/** What `GET /api/v1` answers: where the contract is, and every route with its MCP tool name. */
export function apiIndex(operations: readonly Operation[], baseUrl: string) {
  return {
    name: 'Listing Directory API',
    openapi: absoluteUrl(baseUrl, paths.openApi),
    mcp: absoluteUrl(baseUrl, paths.mcp),
    operations: operations.map((op) => ({
      name: op.name,
      method: op.method,
      path: paths.apiRoute(op.path),
      scope: op.scope ?? null,
      summary: op.summary,
    })),
  };
}

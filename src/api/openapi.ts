import type { Operation } from '../operations/operation.ts';
import { IDEMPOTENCY_KEY_SCHEMA } from '../operations/idempotency-key.ts';
import { hasBody, operationSchemas, pathParams, type JsonSchema } from '../operations/json-schema.ts';

const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable machine code, e.g. validation_failed, not_found, insufficient_scope' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    request_id: { type: 'string' },
  },
};

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Invalid input; `errors` names each failing field',
  '404': 'Not found (also another owner’s resource)',
  '429': 'Too many requests; see Retry-After',
};
const SIGNED_IN_RESPONSES: Record<string, string> = {
  '401': 'Missing or invalid credentials',
  '403': 'The credential lacks the required scope',
};
const WRITE_RESPONSES: Record<string, string> = {
  '409': 'State conflict, or a request with the same Idempotency-Key is in flight',
  '422': 'Refused, e.g. the Idempotency-Key was used with another body',
};

/** The OpenAPI 3.1 document of the REST API, generated from the operation registry. */
export function openApiDocument(operations: readonly Operation[], baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    (paths[op.path] ??= {})[op.method.toLowerCase()] = pathItemOperation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Listing Directory API',
      version: '1.0.0',
      description: 'A ranked weekly directory of company/product listings. Every operation is also an MCP tool of the same name at /mcp.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: `${baseUrl}/api/v1` }],
    tags: [...new Set(operations.flatMap((o) => o.tags))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (ld_...) or an OAuth access token' },
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
  const errors = { ...ERROR_RESPONSES, ...(op.scope ? SIGNED_IN_RESPONSES : {}), ...(op.readOnly ? {} : WRITE_RESPONSES) };
  for (const [status, description] of Object.entries(errors)) {
    responses[status] = { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
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
  };
  if (hasBody(op)) result.requestBody = { required: false, content: { 'application/json': { schema: bodySchema(input, inPath) } } };
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
    openapi: `${baseUrl}/api/v1/openapi.json`,
    mcp: `${baseUrl}/mcp`,
    operations: operations.map((op) => ({ name: op.name, method: op.method, path: `/api/v1${op.path}`, scope: op.scope ?? null, summary: op.summary })),
  };
}

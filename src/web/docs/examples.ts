import type { JsonSchema } from '../../operations/json-schema.ts';
import { hasBody, operationSchemas, pathParams } from '../../operations/json-schema.ts';
import type { Operation } from '../../operations/operation.ts';

/** A plausible value for a schema, for the examples of the API reference. */
export function exampleValue(schema: JsonSchema, name = ''): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const members = (schema.anyOf ?? schema.oneOf ?? []) as JsonSchema[];
  if (members.length) return exampleValue(members.find((m) => m.type !== 'null') ?? members[0]!, name);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return exampleObject(schema);
    case 'string':
      return exampleString(schema, name);
    default:
      return null;
  }
}

function exampleString(schema: JsonSchema, name: string): string {
  if (schema.format === 'uri' || /url$/.test(name)) return 'https://example.com/';
  if (schema.format === 'email' || /email$/.test(name)) return 'you@example.com';
  if (schema.format === 'date') return '2026-01-05';
  if (schema.format === 'date-time') return '2026-01-05T09:00:00Z';
  const text = `example ${name.replace(/_/g, ' ')}`.trim();
  return typeof schema.maxLength === 'number' ? text.slice(0, schema.maxLength) : text;
}

/** Only the required fields: the smallest call that is accepted. */
function exampleObject(schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of schema.required ?? []) out[name] = exampleValue(schema.properties?.[name] ?? {}, name);
  return out;
}

/** The example input of an operation: every required field, path parameters included. */
export function exampleInput(op: Operation): Record<string, unknown> {
  return exampleObject(operationSchemas(op).input);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command calling the operation over REST (`$BASE` is the site, `$KEY` an API key). */
export function curlExample(op: Operation): string {
  const input = exampleInput(op);
  const inPath = pathParams(op.path);
  let path = op.path;
  for (const name of inPath) path = path.replace(`{${name}}`, encodeURIComponent(String(input[name])));
  const rest = Object.fromEntries(Object.entries(input).filter(([k]) => !inPath.includes(k)));
  const lines = [`curl -s -X ${op.method} "$BASE/api/v1${path}${hasBody(op) ? '' : query(rest)}"`];
  if (op.scope) lines.push(`  -H "Authorization: Bearer $KEY"`);
  // A retry with the same key (and input) replays the first answer instead of acting twice.
  if (op.idempotent) lines.push(`  -H 'Idempotency-Key: ${op.name}-0001'`);
  if (hasBody(op)) lines.push(`  -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(rest))}`);
  return lines.join(' \\\n');
}

function query(values: Record<string, unknown>): string {
  const entries = Object.entries(values).map(([k, v]) => [k, String(v)]);
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
}

/** The JSON-RPC `tools/call` request of the operation's MCP tool. */
export function mcpRequest(op: Operation): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.name, arguments: exampleInput(op) } };
}

/** A curl command sending that request to /mcp (stateless Streamable HTTP, no session needed). */
export function mcpCurlExample(op: Operation): string {
  const lines = [
    `curl -s "$BASE/mcp"`,
    `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'`,
    `  -H 'MCP-Protocol-Version: 2025-06-18'`,
  ];
  if (op.scope) lines.push(`  -H "Authorization: Bearer $KEY"`);
  lines.push(`  -d ${shellQuote(JSON.stringify(mcpRequest(op)))}`);
  return lines.join(' \\\n');
}

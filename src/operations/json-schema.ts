import { z } from 'zod';
import type { Operation } from './operation.ts';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const cache = new WeakMap<z.ZodType, { input: JsonSchema; output: JsonSchema }>();

/** JSON Schemas (2020-12, as OpenAPI 3.1 and MCP use) of an operation's input and output. */
export function operationSchemas(op: Operation): { input: JsonSchema; output: JsonSchema } {
  let found = cache.get(op.input);
  if (!found) {
    found = {
      input: strip(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema),
      output: strip(z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any' }) as JsonSchema),
    };
    cache.set(op.input, found);
  }
  return found;
}

function strip({ $schema: _ignored, ...schema }: JsonSchema): JsonSchema {
  return schema;
}

/** The JSON Schema (2020-12, without `$schema`) of one zod schema, as its input. */
export const jsonSchemaOf = (schema: z.ZodType): JsonSchema =>
  strip(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);

/** Names of the `{params}` of an OpenAPI path template. */
export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

export const hasBody = (op: Operation) => op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH';

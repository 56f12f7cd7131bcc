import type { JsonSchema } from '../../operations/json-schema.ts';

/** One row of a field table: a dotted path (`items[].name`) and what the schema says of it. */
export interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  description: string;
  /** Limits and defaults in words: "at most 70 characters", "default 20". */
  rules: string[];
}

const MAX_DEPTH = 5;

/** Every field of an object schema, nested objects and arrays of objects flattened with dotted paths. */
export function fieldRows(schema: JsonSchema, prefix = '', depth = 0): FieldRow[] {
  const required = new Set(schema.required ?? []);
  const rows: FieldRow[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push({ path, type: typeLabel(property), required: required.has(name), description: describe(property), rules: rules(property) });
    if (depth < MAX_DEPTH) rows.push(...nestedRows(property, path, depth + 1));
  }
  return rows;
}

/** Rows of the object inside a field: itself, its array items, or the non-null member of a union. */
function nestedRows(schema: JsonSchema, path: string, depth: number): FieldRow[] {
  const object = objectIn(schema);
  if (object) return fieldRows(object, `${path}.`, depth);
  const items = schema.items as JsonSchema | undefined;
  const itemObject = items && objectIn(items);
  if (itemObject) return fieldRows(itemObject, `${path}[].`, depth);
  return [];
}

function objectIn(schema: JsonSchema): JsonSchema | null {
  if (schema.properties) return schema;
  for (const member of union(schema)) if (member.properties) return member;
  return null;
}

const union = (schema: JsonSchema) => (schema.anyOf ?? schema.oneOf ?? []) as JsonSchema[];

/** A short type name: `string (uri)`, `integer`, `array of string`, `one of: a, b`, `string or null`. */
export function typeLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const members = union(schema);
  if (members.length) return [...new Set(members.map(typeLabel))].join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type as string | undefined);
  if (type === 'array') return `array of ${typeLabel((schema.items as JsonSchema | undefined) ?? {})}`;
  if (type === 'object' && !schema.properties && schema.additionalProperties) {
    return `map of ${typeLabel(schema.additionalProperties as JsonSchema)}`;
  }
  if (!type) return 'any';
  return schema.format ? `${type} (${schema.format})` : type;
}

function describe(schema: JsonSchema): string {
  if (typeof schema.description === 'string') return schema.description;
  for (const member of union(schema)) if (typeof member.description === 'string') return member.description;
  return '';
}

/** Limits of a field in words, from the schema's keywords (and those of a nullable union's members). */
function rules(schema: JsonSchema): string[] {
  const out: string[] = [];
  for (const s of [schema, ...union(schema)]) {
    if (typeof s.minLength === 'number' && s.minLength > 0)
      out.push(s.minLength === 1 ? 'not empty' : `at least ${s.minLength} characters`);
    if (typeof s.maxLength === 'number') out.push(`at most ${s.maxLength} characters`);
    if (typeof s.minimum === 'number' && s.minimum > Number.MIN_SAFE_INTEGER) out.push(`minimum ${s.minimum}`);
    // 2147483647 is only the id column's range, not a rule worth reading.
    if (typeof s.maximum === 'number' && s.maximum < 2_147_483_647) out.push(`maximum ${s.maximum}`);
    if (typeof s.minItems === 'number' && s.minItems > 0) out.push(s.minItems === 1 ? 'at least one item' : `at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number') out.push(`at most ${s.maxItems} items`);
  }
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  return [...new Set(out)];
}

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { STAFF_SCOPES } from '../../src/auth/scopes.ts';
import { grant } from '../../src/domain/staff/roles.ts';
import { load } from 'cheerio';
import { z } from 'zod';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../src/errors/errors.ts';
import { operationErrorCodes } from '../../src/operations/error-codes.ts';
import { operations } from '../../src/operations/index.ts';
import { operationSchemas, pathParams } from '../../src/operations/json-schema.ts';
import { defineOperation } from '../../src/operations/operation.ts';
import { apiReference } from '../../src/web/pages/docs.ts';
import { ALL_SCOPES, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

const run = promisify(execFile);

let env: TestEnv;
let page: WebResponse;
let key: string;

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  page = await new WebClient(env.baseUrl).get('/docs');
  // An admin of the site's staff: the printed examples of the staff reads work as well.
  const { userId } = await env.user();
  await grant(env.services.db, { userId, role: 'admin', siteId: null, by: null, now: new Date() });
  ({ key } = await createApiKey(env.services.db, userId, 'docs examples', [...ALL_SCOPES, ...STAFF_SCOPES]));
});
test.after.always(() => env?.close());

/** The text of one operation's section. */
const section = (name: string) => page.$(`section#${name}`);

test('/docs is an HTML page linked from the home page and the layout', async (t) => {
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  t.is(page.$('h1').text(), 'API reference');
  const home = await new WebClient(env.baseUrl).get('/');
  t.true(home.$('main a[href="/docs"]').length > 0, 'linked from the home page');
  t.true(home.$('header nav a[href="/docs"]').length > 0, 'linked from the nav');
});

test('every registry operation appears with its path, tool name, scope and idempotency', (t) => {
  t.is(page.$('section.operation').length, operations.length);
  for (const op of operations) {
    const s = section(op.name);
    t.is(s.length, 1, op.name);
    const facts = s.find('dl.facts').text();
    t.true(facts.includes(`${op.method} /api/v1${op.path}`), op.name);
    t.true(facts.includes(`MCP tool${op.name}`), `${op.name}: ${facts}`);
    t.true(facts.includes(op.scope ?? 'none (public)'), op.name);
    t.true(facts.includes(op.idempotent ? 'Idempotent' + 'yes' : 'Idempotent' + 'no'), op.name);
    t.is(page.$(`nav a[href="#${op.name}"]`).length, 1, `${op.name} in the contents`);
  }
});

test('an Errors section lists every code with its status and what to do; each operation links its codes there', (t) => {
  const rows = page.$('section#errors tbody tr');
  t.deepEqual(
    rows.map((_, el) => page.$(el).attr('id')).get(),
    ERROR_CODES.map((code) => `error-${code}`),
  );
  const soldOut = page.$('tr#error-sold_out td');
  t.deepEqual([soldOut.eq(1).text(), soldOut.eq(2).text()], ['409', 'Sold out']);
  t.is(soldOut.eq(3).text(), ERROR_CATALOGUE.sold_out.action.replaceAll('`', ''));
  for (const op of operations) {
    const linked = section(op.name)
      .find('h3:contains("Errors") + ul a')
      .map((_, el) => page.$(el).attr('href'))
      .get();
    t.deepEqual(
      linked.sort(),
      operationErrorCodes(op)
        .map((code) => `#error-${code}`)
        .sort(),
      op.name,
    );
  }
  t.is(page.$('nav a[href="#errors"]').length, 1, 'in the contents');
});

test('input and output fields come with their descriptions, errors with their statuses', (t) => {
  for (const op of operations) {
    const s = section(op.name);
    const inputTable = s.find('h3:contains("Input") + div table');
    const { input, output } = operationSchemas(op);
    if (!input.properties || Object.keys(input.properties).length === 0) t.is(inputTable.length, 0, op.name);
    const inputNames = inputTable
      .find('tbody td:first-child code')
      .map((_, el) => page.$(el).text())
      .get();
    t.deepEqual(
      inputNames.filter((n) => !n.includes('.')),
      Object.keys(input.properties ?? {}),
      op.name,
    );
    for (const [name, schema] of Object.entries(input.properties ?? {})) {
      const where = pathParams(op.path).includes(name) ? 'path' : ['GET', 'DELETE'].includes(op.method) ? 'query' : 'body';
      const row = inputTable.find('tbody tr').filter((_, el) => page.$(el).find('td:first-child code').text() === name);
      t.is(row.find('td').eq(1).text(), where, `${op.name}.${name}`);
      if (typeof schema.description === 'string') t.true(row.text().includes(schema.description), `${op.name}.${name}`);
    }
    if (output.properties) t.true(s.find('h3:contains("Output") + div table').length === 1, op.name);
    const errors = s.find('h3:contains("Errors") + ul').text();
    t.regex(errors, /400/, op.name);
    if (op.scope) t.regex(errors, /401[\s\S]*403/, op.name);
  }
  const url = section('create_draft')
    .find('tbody tr')
    .filter((_, el) => page.$(el).find('code').first().text() === 'url');
  t.regex(url.text(), /The website to draft from/);
  t.regex(section('list_my_drafts').text(), /items\[\]\.status/);
});

/** The examples of one operation, run the way a reader would paste them into a shell. */
async function runExample(op: string, index: 0 | 1): Promise<any> {
  const command = section(op).find('pre.example code').eq(index).text();
  const { stdout } = await run('bash', ['-c', command], { env: { ...process.env, BASE: env.baseUrl, KEY: key } });
  return JSON.parse(
    stdout
      .slice(stdout.indexOf('{'))
      .replace(/^data: /m, '')
      .split('\n')[0]!,
  );
}

// Operations that read without path parameters run as printed: the examples are real calls.
const runnable = operations.filter((op) => op.readOnly && op.method === 'GET' && pathParams(op.path).length === 0);

const AUDITED_READS = new Set(['staff_list_audit', 'staff_export_audit']);

test('the curl and MCP examples of the read operations work as printed', async (t) => {
  t.true(runnable.length >= 4);
  for (const op of runnable) {
    const rest = await runExample(op.name, 0);
    t.is(rest.code, undefined, `${op.name}: ${JSON.stringify(rest)}`);
    const mcp = await runExample(op.name, 1);
    t.is(mcp.result?.isError, undefined, `${op.name}: ${JSON.stringify(mcp)}`);
    // Reading the audit log is audited too: the second read sees the first one's row, so the two answers have one shape.
    if (AUDITED_READS.has(op.name)) t.deepEqual(Object.keys(mcp.result.structuredContent).sort(), Object.keys(rest).sort(), op.name);
    else t.deepEqual(mcp.result.structuredContent, rest, op.name);
  }
});

test('the MCP example is a JSON-RPC tools/call of the tool', (t) => {
  for (const op of operations) {
    const command = section(op.name).find('pre.example code').eq(1).text();
    const body = JSON.parse(/-d '(.*)'$/s.exec(command)![1]!.replace(/'\\''/g, "'"));
    t.like(body, { jsonrpc: '2.0', method: 'tools/call', params: { name: op.name } }, op.name);
    t.true(command.includes('Authorization') === Boolean(op.scope), op.name);
  }
});

test('an operation the registry does not have yet is documented from its schemas alone', (t) => {
  const op = defineOperation({
    name: 'paint_widget',
    summary: 'Paint a widget',
    method: 'PUT',
    path: '/widgets/{widget_id}',
    scope: 'orders:write',
    idempotent: true,
    readOnly: false,
    destructive: true,
    tags: ['widgets'],
    input: z.object({
      widget_id: z.int().min(1).describe('The widget'),
      color: z.enum(['red', 'blue']).describe('Paint colour'),
      parts: z
        .array(z.object({ sku: z.string().max(20).describe('Stock unit') }))
        .max(3)
        .optional(),
    }),
    output: z.object({ painted: z.boolean().describe('Whether it worked'), tone: z.string().nullable() }),
    handler: async () => ({ painted: true, tone: null }),
  });
  const $ = load(apiReference([op], 'http://docs.example').value);
  const s = $('section#paint_widget');
  t.true(s.find('dl.facts').text().includes('PUT /api/v1/widgets/{widget_id}'));
  t.true(s.find('dl.facts').text().includes('orders:write'));
  t.regex(s.find('dl.facts').text(), /removes or overwrites data/);
  const rows = s
    .find('h3:contains("Input") + div tbody tr')
    .map((_, el) =>
      $(el)
        .find('td')
        .map((_, td) => $(td).text())
        .get()
        .join(' | '),
    )
    .get();
  t.deepEqual(rows, [
    'widget_id required | path | integer | The widget (minimum 1)',
    'color required | body | one of: "red", "blue" | Paint colour',
    'parts | body | array of object | (at most 3 items)',
    'parts[].sku required | body | string | Stock unit (at most 20 characters)',
  ]);
  t.regex(s.find('h3:contains("Output") + div').text(), /tone\s*string or null/);
  const [curl, mcp] = s
    .find('pre.example code')
    .map((_, el) => $(el).text())
    .get();
  t.is(
    curl,
    [
      'curl -s -X PUT "$BASE/api/v1/widgets/1" \\',
      '  -H "Authorization: Bearer $KEY" \\',
      "  -H 'Idempotency-Key: paint_widget-0001' \\",
      `  -H 'Content-Type: application/json' -d '{"color":"red"}'`,
    ].join('\n'),
  );
  t.true(mcp!.includes(`"params":{"name":"paint_widget","arguments":{"widget_id":1,"color":"red"}}`), mcp);
});

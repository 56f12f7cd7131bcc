import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../../errors/errors.ts';
import { errorCodesByStatus } from '../../operations/error-codes.ts';
import { operations } from '../../operations/index.ts';
import { operationSchemas, pathParams } from '../../operations/json-schema.ts';
import type { Operation } from '../../operations/operation.ts';
import { curlExample, mcpCurlExample } from '../docs/examples.ts';
import { fieldRows, type FieldRow } from '../docs/fields.ts';
import { html, type SafeHtml } from '../html.ts';
import { renderPage } from '../render.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * The API reference at /docs, rendered from the operation registry: whatever operations exist,
 * with the same schemas, scopes and error statuses as the OpenAPI document and the MCP tools.
 */
export const docsPages: PageRoutes = (router, services) => {
  let page: SafeHtml | null = null; // the registry is fixed for the life of the process
  router.get('/docs', async function showApiReference(ctx) {
    page ??= apiReference(operations, services.config.baseUrl);
    await renderPage(ctx, services, { title: 'API reference', main: page });
  });
};

/** The reference of any list of operations: contents, one section per operation, then the error catalogue. */
export function apiReference(ops: readonly Operation[], baseUrl: string): SafeHtml {
  const tags = [...new Set(ops.map((op) => op.tags[0] ?? 'other'))];
  return html`${intro(baseUrl, ops.length)}
<nav aria-labelledby="docs-contents"><h2 id="docs-contents">Operations</h2>
${tags.map(
  (tag) =>
    html`<h3>${tag}</h3><ul>${ops
      .filter((op) => (op.tags[0] ?? 'other') === tag)
      .map((op) => html`<li><a href="#${op.name}"><code>${op.name}</code></a> — ${op.summary}</li>`)}</ul>`,
)}
<p><a href="#errors">Errors</a>: every code, its status and what to do.</p>
</nav>
${ops.map(operationSection)}
${errorCatalogue()}`;
}

function intro(baseUrl: string, count: number): SafeHtml {
  return html`<p>Every one of the ${count} operations below is a REST route under <code>${baseUrl}/api/v1</code> and an MCP
tool of the same name at <code>${baseUrl}/mcp</code>, with the same input, output, scope and errors. The machine-readable
form is the <a href="/api/v1/openapi.json">OpenAPI document</a>.</p>
<ul>
<li><strong>Credentials</strong>: <code>Authorization: Bearer &lt;key&gt;</code> with an API key from
<a href="/account/keys">your account</a> (or an OAuth access token). Each protected operation names the scope it needs.</li>
<li><strong>Errors</strong> are <code>application/problem+json</code> objects with a stable <code>code</code> from <a href="#errors">the catalogue</a>; over MCP the same
object comes back as an <code>isError</code> result.</li>
<li><strong>Idempotent</strong> operations take an <code>Idempotency-Key</code> header (MCP: an <code>idempotency_key</code>
argument): a retry with the same key and input replays the first answer.</li>
<li><strong>Lists</strong> are pages: <code>{items, page, per_page, total}</code>.</li>
</ul>
<p>In the examples, <code>BASE=${baseUrl}</code> and <code>KEY</code> holds an API key.</p>`;
}

function operationSection(op: Operation): SafeHtml {
  const { input, output } = operationSchemas(op);
  const inPath = new Set(pathParams(op.path));
  const where = (row: FieldRow) => {
    const top = row.path.split(/[.[]/)[0]!;
    if (inPath.has(top)) return 'path';
    return op.method === 'GET' || op.method === 'DELETE' ? 'query' : 'body';
  };
  return html`<section class="operation" id="${op.name}" aria-labelledby="${op.name}-title">
<h2 id="${op.name}-title"><code>${op.name}</code></h2>
<p>${op.summary}.${op.description ? html` ${op.description}` : ''}</p>
<dl class="facts">
<dt>REST</dt><dd><code>${op.method} /api/v1${op.path}</code> → ${op.successStatus ?? 200}</dd>
<dt>MCP tool</dt><dd><code>${op.name}</code></dd>
<dt>Scope</dt><dd>${op.scope ? html`<code>${op.scope}</code>` : 'none (public)'}</dd>
<dt>Idempotent</dt><dd>${op.idempotent ? 'yes: send an Idempotency-Key to retry safely' : 'no'}</dd>
<dt>Changes data</dt><dd>${op.readOnly ? 'no (read-only)' : op.destructive ? 'yes, removes or overwrites data' : 'yes'}</dd>
</dl>
<h3>Input</h3>
${fieldTable(fieldRows(input), where)}
<h3>Output</h3>
${fieldTable(fieldRows(output), null)}
<h3>Errors</h3>
<ul>${Object.entries(errorCodesByStatus(op)).map(
    ([status, codes]) => html`<li><strong>${status}</strong> ${codes.map((code, i) => html`${i ? ', ' : ''}${errorLink(code)}`)}</li>`,
  )}</ul>
<h3>Examples</h3>
<pre class="example"><code>${curlExample(op)}</code></pre>
<pre class="example"><code>${mcpCurlExample(op)}</code></pre>
</section>`;
}

const errorLink = (code: ErrorCode) => html`<a href="#error-${code}"><code>${code}</code></a>`;

/** The whole catalogue: what each code means and what the caller does about it. */
function errorCatalogue(): SafeHtml {
  return html`<section id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<p>Every error is a problem object with one of these codes; each operation above lists the ones it can return.
The OpenAPI document has them as the enum <code>ErrorCode</code> and, per operation, <code>x-error-codes</code>.</p>
<div class="table-scroll"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Status</th><th scope="col">Title</th><th scope="col">What to do</th></tr></thead>
<tbody>${ERROR_CODES.map((code) => {
    const { status, title, action } = ERROR_CATALOGUE[code];
    return html`<tr id="error-${code}"><td><code>${code}</code></td><td>${status}</td><td>${title}</td><td>${markdownCode(action)}</td></tr>`;
  })}</tbody>
</table></div>
</section>`;
}

/** The catalogue's texts mark names as `code`, as in the OpenAPI descriptions. */
const markdownCode = (text: string): SafeHtml[] => text.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : html`${part}`));

/** Input tables say where each field goes and which are required; output tables list what comes back. */
function fieldTable(rows: FieldRow[], where: ((row: FieldRow) => string) | null): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No fields.</p>`;
  return html`<div class="table-scroll"><table>
<thead><tr><th scope="col">Field</th>${where && html`<th scope="col">In</th>`}<th scope="col">Type</th><th scope="col">Description</th></tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr><td><code>${row.path}</code>${where && row.required ? html` <span class="muted">required</span>` : ''}</td>${where && html`<td>${where(row)}</td>`}<td>${row.type}</td><td>${[row.description, row.rules.length ? html`<span class="muted">(${row.rules.join('; ')})</span>` : ''].filter((part) => part !== '').map((part, i) => html`${i ? ' ' : ''}${part}`)}</td></tr>`,
  )}</tbody>
</table></div>`;
}

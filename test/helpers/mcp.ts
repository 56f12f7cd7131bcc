import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { operations } from '../../src/operations/index.ts';
import { hasBody } from '../../src/operations/json-schema.ts';
import { api, type HttpResult, type TestEnv } from './env.ts';

type Args = Record<string, unknown>;

/** Calls the same operation as an MCP tool (official client, one per key) and over REST, for parity tests. */
export function parityCaller(env: TestEnv) {
  const clients = new Map<string, Client>();
  async function client(key: string): Promise<Client> {
    let found = clients.get(key);
    if (!found) {
      found = new Client({ name: 'parity-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
      await found.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`), { requestInit: { headers } }));
      clients.set(key, found);
    }
    return found;
  }
  return {
    /** `body` is the structured result, or the problem object of an isError result. */
    async viaMcp(key: string, name: string, args: Args): Promise<{ error: boolean; body: any }> {
      const result = (await (await client(key)).callTool({ name, arguments: args })) as CallToolResult;
      return { error: result.isError === true, body: JSON.parse((result.content[0] as { text: string }).text) };
    },
    /** The request built from the registry entry (path parameters, then query or body). */
    viaRest(key: string, name: string, args: Args, headers: Record<string, string> = {}): Promise<HttpResult> {
      const op = operations.find((o) => o.name === name)!;
      const rest = { ...args };
      const path = op.path.replace(/\{(\w+)\}/g, (_, param: string) => {
        const value = rest[param];
        delete rest[param];
        return encodeURIComponent(String(value));
      });
      if (hasBody(op)) return api(env, op.method, path, { key, body: rest, headers });
      const query = new URLSearchParams(Object.entries(rest).map(([k, v]) => [k, String(v)])).toString();
      return api(env, op.method, query ? `${path}?${query}` : path, { key, headers });
    },
    async close() {
      for (const c of clients.values()) await c.close().catch(() => {});
    },
  };
}

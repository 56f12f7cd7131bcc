// What an MCP request is, for metrics and logs: tool names are bounded to the registry, so a
// caller cannot create series at will.

type Message = { method?: unknown; params?: { name?: unknown } } | null;

/** The tools a message (or a 2025-03-26 batch) calls; names not in the registry count as `unknown`. */
export function calledTools(message: unknown, isTool: (name: string) => boolean): string[] {
  const messages = Array.isArray(message) ? message : [message];
  return messages.flatMap((m) => {
    const call = m as Message;
    if (call?.method !== 'tools/call') return [];
    const name = call.params?.name;
    return [typeof name === 'string' && isTool(name) ? name : 'unknown'];
  });
}

/** The operation label of an MCP request: the tool of a single tools/call, else `mcp:{method}` (or `mcp`). */
export function mcpOperation(message: unknown, isTool: (name: string) => boolean): string {
  const tools = calledTools(message, isTool);
  if (tools.length === 1 && !Array.isArray(message)) return tools[0]!;
  const method = (message as Message)?.method;
  return !Array.isArray(message) && typeof method === 'string' && /^[a-z/_]{1,40}$/.test(method) ? `mcp:${method}` : 'mcp';
}

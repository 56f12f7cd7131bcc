type Jose = typeof import('jose');

let jose: Promise<Jose> | undefined;

/**
 * The `jose` package (JWT verification), imported at the first OAuth access token to verify:
 * importing it costs about 30 ms of CPU, which every process that builds the services (each test
 * file is one) would pay at startup, though only the calls that present an OAuth access token
 * (MCP clients and connected apps; API keys and sessions do not) verify a JWT. Its caller is async
 * anyway. The one place that loads jose; the other modules import only its types.
 */
export function loadJose(): Promise<Jose> {
  return (jose ??= import('jose'));
}

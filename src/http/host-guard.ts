import type { Config } from '../config/config.ts';

/** Names of the loopback interface a loopback BASE_URL is also reached by. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * THE DNS-rebinding check (/mcp, /dev/mailbox): whether a request's `Host` header names us —
 * BASE_URL's host, its loopback aliases when it is loopback, and MCP_ALLOWED_HOSTS. A page read
 * through another name (an attacker's domain rebound to 127.0.0.1) answers nothing.
 */
export function hostGuard(config: Pick<Config, 'baseUrl' | 'mcp'>): (host: string) => boolean {
  const base = new URL(config.baseUrl);
  const hosts = new Set([base.host.toLowerCase(), ...config.mcp.allowedHosts.map((h) => h.toLowerCase())]);
  if (LOOPBACK_NAMES.includes(base.hostname)) {
    for (const name of LOOPBACK_NAMES) hosts.add(base.port ? `${name}:${base.port}` : name);
  }
  return (host) => hosts.has(host.toLowerCase());
}

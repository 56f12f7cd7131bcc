import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './env.ts';

/** Debian's nginx (scripts/nginx.sh installs it; NGINX_PATH names another). */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export interface CachingProxy {
  /** Base URL of each server block, by name. */
  urls: Record<string, string>;
  /** What nginx logged (errors, then requests with their cache status). */
  logs(): Promise<string>;
  close(): Promise<void>;
}

/** One server block: a name, and directives added to its location beside the caching ones. */
export interface ProxyServer {
  name: string;
  extra?: string;
}

/**
 * Starts nginx as a child process (`daemon off`) with a caching proxy to `upstream` (host:port) on
 * 127.0.0.1, one free port per server block, each with its own cache: everything (config, cache,
 * temp files, pid, logs) in a temp dir, so no root is needed. Each block keeps what the origin's
 * Cache-Control allows and nothing else (no proxy_cache_valid), and says what it did in
 * X-Cache-Status.
 */
export async function startCachingProxy(upstream: string, servers: ProxyServer[]): Promise<CachingProxy> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: run scripts/nginx.sh (as root) first`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-nginx-'));
  const ports = await Promise.all(servers.map(() => freePort()));
  await fs.writeFile(path.join(dir, 'nginx.conf'), nginxConf(dir, upstream, servers, ports));
  const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const logs = async () =>
    `${stderr}${await fs.readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}${await fs
      .readFile(path.join(dir, 'access.log'), 'utf8')
      .catch(() => '')}`;
  try {
    await Promise.all(ports.map((port) => listening(port, child)));
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`nginx did not start: ${(err as Error).message}\n${await logs()}`);
  }
  return {
    urls: Object.fromEntries(servers.map((s, i) => [s.name, `http://127.0.0.1:${ports[i]}`])),
    logs,
    async close() {
      await stop(child);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function nginxConf(dir: string, upstream: string, servers: ProxyServer[], ports: number[]): string {
  const at = (name: string) => path.join(dir, name);
  // As root, workers would switch to `nobody`, who cannot write the temp dir.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  const blocks = servers.map(
    (s, i) => `
  proxy_cache_path ${at(`cache-${s.name}`)} levels=1:2 keys_zone=${s.name}:1m max_size=64m inactive=10m use_temp_path=off;
  server {
    listen 127.0.0.1:${ports[i]};
    location / {
      proxy_pass http://${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host ${upstream};
      proxy_cache ${s.name};
      proxy_cache_key $scheme$proxy_host$request_uri;
      proxy_cache_lock on;
      proxy_cache_revalidate on;
      proxy_cache_background_update on;
      proxy_cache_use_stale error timeout updating http_502 http_503 http_504;
      add_header X-Cache-Status $upstream_cache_status always;
      ${s.extra ?? ''}
    }
  }`,
  );
  return `${user}daemon off;
worker_processes 1;
pid ${at('nginx.pid')};
error_log ${at('error.log')} notice;
events { worker_connections 128; }
http {
  access_log ${at('access.log')};
  client_body_temp_path ${at('client-body')};
  proxy_temp_path ${at('proxy-temp')};
  fastcgi_temp_path ${at('fastcgi-temp')};
  uwsgi_temp_path ${at('uwsgi-temp')};
  scgi_temp_path ${at('scgi-temp')};
${blocks.join('\n')}
}
`;
}

/** Resolves once `port` accepts connections; rejects if nginx exits first or after 10 s. */
async function listening(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`port ${port} not open after 10 s`);
}

/** SIGQUIT lets nginx finish (a graceful stop); SIGKILL after 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGQUIT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

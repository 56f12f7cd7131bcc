/** Resident memory of a process, as Linux reports it. */
import fs from 'node:fs/promises';

/** The `VmRSS:` line of a /proc/<pid>/status text, in kB; null when the text has none (a zombie). */
export function parseVmRssKb(status: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) : null;
}

/** VmRSS of `pid` in kB; null when the process is gone. */
export async function rssKb(pid: number): Promise<number | null> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return parseVmRssKb(status);
}

/**
 * Reads how much memory a process holds (its resident set) from Linux's /proc, so that a
 * worker can be measured from outside while it is busy: Buffers, typed arrays and native
 * allocations included, which a V8 heap cap alone does not see.
 */
import { readFileSync } from 'node:fs';

/** Resident bytes of `pid`, or undefined where /proc is not there (or the process is gone). */
export function residentBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time another process has used so far (user + system, all its threads), from /proc/<pid>/stat (Linux).
 * Read before and after a run, it gives the server's CPU per request, which the shared machine's load does not
 * change as much as requests per second.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second, the unit of utime and stime (100 on nearly every Linux). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Microseconds of CPU the process has used (resolution one clock tick, 10 ms). */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces; fields from 3 on follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]); // field 14
  const stime = Number(fields[12]); // field 15
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`unexpected /proc/${pid}/stat: ${stat.slice(0, 120)}`);
  return ((utime + stime) * 1e6) / TICKS_PER_SECOND;
}

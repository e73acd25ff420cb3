/** A process's CPU time, for the benches that say whose CPU a figure costs (Linux: /proc). */
import { readdirSync, readFileSync } from 'node:fs';

/** The Java process that listens on `port` (DynamoDB Local is started with `-port <port>`). */
export function javaListeningOn(port: string): number | undefined {
  const isIt = (pid: string) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000');
      return args[0]?.endsWith('java') && args[args.indexOf('-port') + 1] === port;
    } catch {
      return false;
    }
  };
  const found = readdirSync('/proc').find((entry) => /^\d+$/.test(entry) && isIt(entry));
  return found === undefined ? undefined : Number(found);
}

/** A process's CPU time so far, in ms (user and system: /proc/<pid>/stat's fields 14 and 15, in 10 ms ticks). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Starts counting: what each of `pids` has used since, in ms, when called (0 for a process not found). */
export function cpuSince(pids: readonly (number | undefined)[]): () => number[] {
  const at = (pid: number | undefined) => (pid === undefined ? 0 : cpuMs(pid));
  const before = pids.map(at);
  return () => pids.map((pid, k) => at(pid) - before[k]!);
}

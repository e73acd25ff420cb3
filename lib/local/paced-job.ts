/**
 * A background job of `npm start` (lib/local/start.ts), one run at a time: run when woken, but never
 * two starts within `gapMs` of each other, and at least every `idleMs` when nothing wakes it. A wake
 * during a run runs it once more after it, once its gap is over. A failure is said, and the job goes
 * on; a job nothing wakes simply runs `idleMs` after its last run ended. (On AWS the table's stream
 * wakes the feed's placer; here the writes of this process do, and the idle pace catches what other
 * processes write.)
 */
export interface PacedJob {
  /** Runs the job as soon as its pace allows. */
  wake(): void;
}

export function pacedJob(name: string, pace: { gapMs: number; idleMs: number }, job: () => Promise<unknown>, say: (line: string) => void = console.error): PacedJob {
  let timer: NodeJS.Timeout | undefined;
  let dueAt = Number.POSITIVE_INFINITY;
  let running = false;
  let wokenWhileRunning = false;
  let lastStart = Number.NEGATIVE_INFINITY;

  const runAt = (at: number) => {
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(run, Math.max(0, at - Date.now()));
    timer.unref();
  };

  async function run(): Promise<void> {
    running = true;
    wokenWhileRunning = false;
    dueAt = Number.POSITIVE_INFINITY;
    lastStart = Date.now();
    try {
      await job();
    } catch (error) {
      say(`${name}: ${(error as Error).name}: ${(error as Error).message}`);
    }
    running = false;
    runAt(wokenWhileRunning ? lastStart + pace.gapMs : Date.now() + pace.idleMs);
  }

  runAt(Date.now() + pace.gapMs);
  return {
    wake() {
      if (running) {
        wokenWhileRunning = true;
        return;
      }
      const at = Math.max(Date.now(), lastStart + pace.gapMs);
      if (at < dueAt) runAt(at);
    },
  };
}

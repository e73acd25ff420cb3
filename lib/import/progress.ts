/**
 * Progress of a long run: a bar redrawn in place on a terminal, plain lines otherwise (a log, a CI
 * job), one every tenth of the way, so that neither floods its reader.
 */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

const WIDTH = 30;

export class Progress {
  private label = '';
  private total = 0;
  private done = 0;
  private started = 0;
  private lastDrawn = 0;
  private lastTenth = 0;

  constructor(private readonly stream: ProgressStream) {}

  private get interactive(): boolean {
    return this.stream.isTTY === true;
  }

  start(label: string, total: number): void {
    Object.assign(this, { label, total, done: 0, started: Date.now(), lastDrawn: 0, lastTenth: 0 });
    if (this.interactive) this.draw();
  }

  advance(count: number): void {
    this.done += count;
    if (this.interactive) {
      if (Date.now() - this.lastDrawn >= 100) this.draw();
      return;
    }
    const tenth = this.total ? Math.floor((this.done / this.total) * 10) : 0;
    if (tenth > this.lastTenth && this.done < this.total) {
      this.lastTenth = tenth;
      this.stream.write(`${this.line()}\n`);
    }
  }

  finish(): void {
    if (this.interactive) this.draw();
    this.stream.write(this.interactive ? '\n' : `${this.line()}\n`);
  }

  private line(): string {
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(this.done / seconds) : 0;
    const percent = this.total ? Math.floor((this.done / this.total) * 100) : 100;
    return `${this.label.padEnd(10)} ${this.done}/${this.total} (${percent}%) ${rate}/s`;
  }

  private draw(): void {
    this.lastDrawn = Date.now();
    const filled = this.total ? Math.round((this.done / this.total) * WIDTH) : WIDTH;
    this.stream.write(`\r${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${this.line()}\u001b[K`);
  }
}

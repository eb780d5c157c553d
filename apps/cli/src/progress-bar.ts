const WIDTH = 30;

/**
 * A progress bar on stderr (stdout keeps the command's result): redrawn in place on a terminal,
 * a plain line per change otherwise (logs, pipes).
 */
export class ProgressBar {
  private lastLine = '';

  constructor(
    private readonly unit: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  draw(done: number, total: number): void {
    const fraction = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(fraction * WIDTH);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${done}/${total} ${this.unit}`;
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.stream.write(this.stream.isTTY ? `\r${line}` : `${line}\n`);
  }

  end(): void {
    if (this.stream.isTTY && this.lastLine !== '') this.stream.write('\n');
  }
}

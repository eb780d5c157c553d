/** Prints a command's result: one JSON object with --json (for scripts), readable lines otherwise. */
export function printResult(json: boolean, result: Record<string, unknown>, lines: string[]): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${lines.join('\n')}\n`);
}

export function parseWholeNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a whole number of at least 1`);
    return parsed;
  };
}

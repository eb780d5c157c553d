import { type ChildProcess, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The uid and gid a child process runs under: PostgreSQL and PgBouncer refuse to run as root. */
export interface RunAs {
  uid?: number;
  gid?: number;
}

/** The `postgres` OS user when the tests run as root (CI, containers); the current user otherwise. */
export function postgresUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A fresh temporary directory that `user` owns (the servers write their files and sockets there). */
export function tempDirFor(user: RunAs, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Stops a server started in `dir` with `signal` (its own fast shutdown), waits for it to exit, and removes the directory. */
export async function stopAndRemove(child: ChildProcess, signal: NodeJS.Signals, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}

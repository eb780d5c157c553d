import { type JsonResponse, request } from './http';
import type { RunningProcess } from './processes';

/**
 * Every answer a topology suite got, and those that were not what it expected. The suites' claim is
 * "0 errors": after each test they assert `problems()` is empty and say how many answers that covered.
 */
export class Answers {
  total = 0;
  private unexpected: string[] = [];
  private readonly logRead = new Map<RunningProcess, number>();

  async expect<T>(what: string, answer: Promise<JsonResponse<T>>, status = 200): Promise<JsonResponse<T>> {
    const response = await answer;
    this.total += 1;
    if (response.status !== status) this.unexpected.push(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    return response;
  }

  /** Something wrong the suite found itself (an answer's content), counted with the unexpected answers. */
  wrong(what: string): void {
    this.unexpected.push(what);
  }

  /** The unexpected answers, and the errors the processes logged, since the last call. */
  problems(processes: Record<string, RunningProcess | undefined>): string[] {
    const found = this.unexpected;
    this.unexpected = [];
    for (const [name, running] of Object.entries(processes)) {
      if (!running) continue;
      const output = running.output();
      found.push(...errorLogs(output.slice(this.logRead.get(running) ?? 0)).map((line) => `${name} logged: ${line}`));
      this.logRead.set(running, output.length);
    }
    return found;
  }
}

/**
 * One round of serving traffic: GET /v1/predict for each user (a few in flight at once, as clients
 * send them) and one POST /v1/predict/batch over all of them. Every user must be known.
 */
export async function predictRound(baseUrl: string, token: string, users: string[], answers: Answers): Promise<void> {
  const queue = [...users];
  const drive = async () => {
    for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
      await answers.expect(`GET /v1/predict?userId=${user}`, request(`${baseUrl}/v1/predict?userId=${encodeURIComponent(user)}`, { token }));
    }
  };
  await Promise.all(Array.from({ length: 6 }, drive));
  const batch = await answers.expect(
    `POST /v1/predict/batch (${users.length} users)`,
    request<{ results: Array<{ userId: string; error?: string }> }>(`${baseUrl}/v1/predict/batch`, { token, method: 'POST', body: { userIds: users } }),
  );
  for (const result of batch.body?.results ?? []) {
    if (result.error) answers.wrong(`POST /v1/predict/batch: ${result.userId}: ${result.error}`);
  }
}

/** What the dashboard's user page reads: the user's latest events, sessions and everything stored (GET /v1/users/…). */
export async function lookUpUser(baseUrl: string, token: string, user: string, answers: Answers): Promise<void> {
  for (const path of ['events', 'sessions', 'export']) {
    await answers.expect(`GET /v1/users/${path}?userId=${user}`, request(`${baseUrl}/v1/users/${path}?userId=${encodeURIComponent(user)}`, { token }));
  }
}

/**
 * A deliberate idle gap: nothing is sent for `ms`, so that the pools' idle timeouts close their
 * connections (and a pooler's server connections are recycled) before the next request. The one
 * fixed sleep the topology suites take; it waits for nothing in particular.
 */
export function idle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A process's log entries at level error or fatal (pino's JSON lines, level 50 and 60), each as its message, error and route. */
function errorLogs(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /"level":(50|60)\b/.test(line))
    .map((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; route?: string; err?: { message?: string } };
        return [entry.msg, entry.err?.message, entry.route].filter(Boolean).join(' | ');
      } catch {
        return line;
      }
    });
}

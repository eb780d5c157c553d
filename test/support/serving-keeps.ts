import { DELTA_MARGIN_MS } from '../../libs/events/src/users/kept-windows/kept-windows.sql';
import { KEEP_AFTER_EVENTS } from '../../libs/events/src/users/user-events.service';
import { eventually } from './eventually';
import { request } from './http';
import type { Answers } from './traffic';

const HOUR = 3_600_000;

/** Where serving's keeps are checked: the API, an organization's token, and how many kept windows (user_windows rows) a user has. */
export interface KeepsTarget {
  baseUrl: string;
  token: string;
  answers: Answers;
  keptWindows: (user: string) => Promise<number>;
}

type SentEvent = { event: string; timestamp: string };

/**
 * Serving's keeps (UserEventsService keeps a window it read many events of off the events) where the
 * service runs. A user with KEEP_AFTER_EVENTS + 10 events dated hours before the kept-window margin is
 * predicted, and its window kept; then it sends new events. From then on it is served its kept
 * window with the new events read apart, and `compare` checks that answer against a twin's: a user
 * with the same events, sent just before and asked at the same moment (features depend on the time
 * of asking), whose window is read off the events.
 */
export class ServingKeeps {
  private twins = 0;

  private constructor(
    private readonly user: string,
    private readonly events: SentEvent[],
  ) {}

  static async start(target: KeepsTarget, prefix: string): Promise<ServingKeeps> {
    const now = Date.now();
    const history = Array.from({ length: KEEP_AFTER_EVENTS + 10 }, (_, i) => ({
      event: ['click', 'add_to_cart', 'view_item'][i % 3],
      timestamp: new Date(now - DELTA_MARGIN_MS - (KEEP_AFTER_EVENTS + 10 - i) * HOUR).toISOString(),
    }));
    const keeps = new ServingKeeps(`${prefix}-kept`, history);
    await send(target, keeps.user, history);
    await answerOf(target, keeps.user);
    await eventually(`${keeps.user}'s window kept by serving`, async () => ((await target.keptWindows(keeps.user)) > 0 ? true : undefined));
    return keeps;
  }

  /**
   * One more event of the kept user (which also takes its answer out of the API's cache), then its
   * answer against a new twin's, asked together; a difference is counted wrong.
   */
  async compare(target: KeepsTarget): Promise<void> {
    const stored = { event: 'checkout', timestamp: new Date(Date.now() - 30_000).toISOString() };
    await send(target, this.user, [stored]);
    this.events.push(stored);
    const twin = `${this.user}-twin-${++this.twins}`;
    await send(target, twin, this.events);
    const [kept, read] = await Promise.all([answerOf(target, this.user), answerOf(target, twin)]);
    if (kept.length === 0) target.answers.wrong(`no prediction for ${this.user}`);
    if (!sameAnswers(kept, read)) target.answers.wrong(`${this.user} served ${JSON.stringify(kept)} from its kept window, ${twin} ${JSON.stringify(read)} off the events`);
    if ((await target.keptWindows(this.user)) === 0) target.answers.wrong(`${this.user}'s kept window gone`);
  }
}

async function send({ baseUrl, token, answers }: KeepsTarget, userId: string, events: SentEvent[]): Promise<void> {
  const sent = await answers.expect('POST /v1/events', request(`${baseUrl}/v1/events`, { token, method: 'POST', body: events.map((e) => ({ ...e, userId })) }));
  if (sent.status !== 200) throw new Error(`${userId}'s events refused: ${JSON.stringify(sent.body)}`);
}

type Answer = Array<{ confidence: number }>;

async function answerOf({ baseUrl, token, answers }: KeepsTarget, user: string): Promise<Answer> {
  const got = await answers.expect(`GET /v1/predict?userId=${user}`, request<{ predictions?: Answer }>(`${baseUrl}/v1/predict?userId=${encodeURIComponent(user)}`, { token }));
  return got.body.predictions ?? [];
}

/**
 * The same answers but for the confidences' last digits: a window's features depend on the moment of
 * asking (time since the last event), and two requests sent together are answered milliseconds apart.
 * An event missing from a window moved a confidence by 5e-4 (a mutation of the kept read).
 */
function sameAnswers(one: Answer, other: Answer): boolean {
  const rest = (answer: Answer) => JSON.stringify(answer.map(({ confidence: _confidence, ...prediction }) => prediction));
  return rest(one) === rest(other) && one.every((prediction, i) => Math.abs(prediction.confidence - other[i].confidence) <= 1e-6);
}

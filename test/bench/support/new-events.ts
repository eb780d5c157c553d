import { request } from '../../support/http';

/** Events per POST /v1/events request. */
const EVENTS_PER_REQUEST = 500;

/** One new event for each user, dated now, through POST /v1/events: what the window kept of them held is outdated. */
export async function sendOneEventEach(baseUrl: string, token: string, users: readonly string[]): Promise<void> {
  for (let start = 0; start < users.length; start += EVENTS_PER_REQUEST) {
    const body = users.slice(start, start + EVENTS_PER_REQUEST).map((userId) => ({ event: 'click', userId, timestamp: new Date().toISOString() }));
    const answer = await request(`${baseUrl}/v1/events`, { token, method: 'POST', body });
    if (answer.status !== 200) throw new Error(`POST /v1/events: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}

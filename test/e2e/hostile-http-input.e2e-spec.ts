import { connect } from 'node:net';
import { type JsonResponse, request } from '../support/http';
import { withApiSuite } from '../support/suite';

/** The error body: exactly `error` and `message` (and `details` when given). */
const contractError = (error: string) => expect.objectContaining({ error, message: expect.any(String) });

const expectRefused = (response: JsonResponse, status: number, error: string) => {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: contractError(error) });
  expect(Object.keys(response.body as object).filter((key) => !['error', 'message', 'details'].includes(key))).toEqual([]);
};

/** Sends raw bytes (what fetch refuses to send) and returns the status line's code and the parsed body. */
function rawRequest(url: string, bytes: string | Buffer): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: rest.length > 0 ? JSON.parse(rest.join('\r\n\r\n')) : undefined });
    });
  });
}

/**
 * Issue 15, hostile input at the HTTP edge: NUL characters, dates and numbers Postgres cannot hold,
 * deep nesting, racing creations, and the errors Fastify answers itself.
 */
describe('hostile input at the HTTP edge', () => {
  const t = withApiSuite('hostileinput');
  const get = (path: string, token: string | undefined = t.org.token.secret) => request(`${t.api.baseUrl}${path}`, { token });
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(`${t.api.baseUrl}${path}`, { method, token: t.org.token.secret, body, headers });

  describe('encodings: JSON is UTF-8', () => {
    it('refuses a body that is not UTF-8 with 400 and one in another charset with 415, storing nothing', async () => {
      const before = await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM events');
      // "a\xFFb" and "a\xFEb" would both be stored as "a\uFFFDb": two users merged into one.
      for (const [path, bytes] of [
        ['/v1/events', Buffer.concat([Buffer.from('{"event":"click","userId":"a'), Buffer.from([0xff]), Buffer.from('b"}')])],
        ['/v1/track', Buffer.concat([Buffer.from('{"type":"track","event":"click","userId":"a'), Buffer.from([0xfe]), Buffer.from('b"}')])],
        ['/v1/models', Buffer.concat([Buffer.from('{"name":"latin_model","targetEvent":"x","labels":["a'), Buffer.from([0xe2, 0x82]), Buffer.from('","b"]}')])],
      ] as const) {
        expectRefused(await call('POST', path, bytes), 400, 'invalid_request');
      }
      const latin1 = { 'content-type': 'application/json; charset=latin1' };
      expectRefused(await call('POST', '/v1/events', { event: 'click', userId: 'u' }, latin1), 415, 'unsupported_media_type');
      const utf8 = { 'content-type': 'application/json; charset=UTF-8' };
      expect((await call('POST', '/v1/events', { event: 'click', userId: 'charset-user', messageId: 'charset-1' }, utf8)).status).toBe(200);
      const after = await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM events');
      expect(Number(after[0].n) - Number(before[0].n)).toBe(1);
    });

    it('answers 401 before judging the URL of a request without a valid token', async () => {
      const anonymous = await request(`${t.api.baseUrl}/v1/predict?userId=a%00b`);
      expect(anonymous.status).toBe(401);
    });
  });

  describe('finding 6: NUL characters', () => {
    it('refuses %00 in every query and path parameter with 400 naming it, before any database access', async () => {
      const cases: Array<[method: string, path: string, field: string]> = [
        ['GET', '/v1/predict?userId=a%00b', 'userId'],
        ['GET', '/v1/predict?sessionId=%00', 'sessionId'],
        ['GET', '/v1/users/sessions?userId=u%00', 'userId'],
        ['GET', '/v1/users/export?userId=u%00', 'userId'],
        ['DELETE', '/v1/users?userId=u%00', 'userId'],
        ['GET', '/v1/export/predictions?since=2026-11-01&model=churn%00', 'model'],
        ['GET', '/v1/models/mdl_%00', 'modelId'],
        ['GET', '/v1/models/monitor/mdl_%00', 'modelId'],
        ['GET', '/v1/models/monitor/mdl_%00/history', 'modelId'],
        ['DELETE', '/v1/tokens/tok_%00', 'tokenId'],
        ['DELETE', '/v1/webhooks/whk_%00', 'webhookId'],
        ['GET', '/v1/webhooks/whk_%00/deliveries', 'webhookId'],
        ['POST', '/v1/webhooks/whk_1/deliveries/dlv_%00/retry', 'deliveryId'],
      ];
      for (const [method, path, field] of cases) {
        const response = await call(method, path);
        expectRefused(response, 400, 'invalid_request');
        expect([path, (response.body as { message: string }).message]).toEqual([path, expect.stringContaining(field)]);
      }
      // Before the token is even looked up.
      expectRefused(await get('/v1/predict?userId=%00', undefined), 400, 'invalid_request');
    });

    it('refuses U+0000 in any string of a JSON body outside ingestion, naming the field', async () => {
      const cases: Array<[path: string, body: unknown, field: string]> = [
        ['/v1/webhooks', { url: 'https://hooks.example.com/a\u0000b', events: ['model.retrained'] }, 'url'],
        ['/v1/models', { name: 'nul_labels', targetEvent: 'checkout', labels: ['no\u0000', 'yes'] }, 'labels.0'],
        ['/v1/models', { name: 'nul_key', targetEvent: 'checkout', 'horizon\u0000Days': 7 }, 'horizon\\u0000Days'],
        ['/v1/models/retrain', { modelId: 'mdl_\u0000' }, 'modelId'],
      ];
      for (const [path, body, field] of cases) {
        const response = await call('POST', path, body);
        expectRefused(response, 400, 'invalid_request');
        expect([path, response.body]).toEqual([path, expect.objectContaining({ details: [{ path: field, message: expect.any(String) }] })]);
      }
      expect((await get('/v1/models')).body).toEqual([]);
    });
  });

  describe('finding 7: dates and numbers Postgres cannot hold', () => {
    it('refuses impossible export dates, cursors and limits with 400 naming the parameter', async () => {
      const cursor = (text: string) => Buffer.from(text).toString('base64url');
      const cases: Array<[query: string, field: string]> = [
        ['since=0000-01-01', 'since'],
        ['since=2026-02-30', 'since'],
        ['since=2026-11-01&until=2026-02-30', 'until'],
        ['since=2026-11-01&until=2026-04-31', 'until'],
        [`since=2026-11-01&cursor=${cursor('2026-11-22T01:02:03.456789Z|12345678901234567890')}`, 'cursor'],
        [`since=2026-11-01&cursor=${cursor('2026-11-22T01:02:03.456789Z|9223372036854775808')}`, 'cursor'],
        [`since=2026-11-01&cursor=${cursor('2026-02-30T01:02:03.456789Z|1')}`, 'cursor'],
        [`since=2026-11-01&cursor=${cursor('0000-01-01T00:00:00.000000Z|1')}`, 'cursor'],
        ['since=2026-11-01&limit=1e3', 'limit'],
        ['since=2026-11-01&limit=0x10', 'limit'],
      ];
      for (const [query, field] of cases) {
        const response = await get(`/v1/export/predictions?${query}`);
        expectRefused(response, 400, 'invalid_request');
        expect([query, (response.body as { message: string }).message]).toEqual([query, expect.stringContaining(field)]);
      }
      expect((await get('/v1/export/predictions?since=2024-02-29&limit=10')).status).toBe(200);
    });

    it('refuses monitoring and session ranges outside the years 0001 to 9999', async () => {
      for (const path of [
        '/v1/models/monitor/mdl_aaaaaaaaaaaaaaaa/history?since=0000-06-01T00:00:00Z',
        '/v1/users/sessions?userId=u&since=0000-06-01T00:00:00Z',
        '/v1/users/sessions?userId=u&until=9999-12-31T23:59:59-23:59',
      ]) {
        const response = await get(path);
        expectRefused(response, 400, 'invalid_request');
      }
    });
  });

  describe('finding 8: deep nesting', () => {
    it('answers a body nested 5,000 levels with 400 invalid_request on every route (a Segment batch skips it), and takes ordinary nesting', async () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const deepObject = `{"event":"click","userId":"u","properties":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
      for (const [path, body] of [
        ['/v1/events', deep],
        ['/v1/events', deepObject],
        ['/v1/models', deepObject],
        ['/v1/webhooks', deep],
      ]) {
        expectRefused(await call('POST', path, body), 400, 'invalid_request');
      }
      // A Segment batch is not all-or-nothing: the deep message is skipped and counted.
      expect(await call('POST', '/v1/batch', `{"batch":[${deep}]}`)).toMatchObject({ status: 200, body: { accepted: 0, rejected: 1 } });
      const nested = `{"event":"click","userId":"u-nested","properties":${'{"a":'.repeat(10)}1${'}'.repeat(10)}}`;
      expect(await call('POST', '/v1/events', nested)).toMatchObject({ status: 200, body: { accepted: 1 } });
    });
  });

  describe('finding 9: races on unique names', () => {
    it('answers every loser of 8 concurrent POST /v1/models with one name as a later duplicate is answered', async () => {
      // Several rounds: a round whose requests happen to arrive one after another proves nothing.
      for (let round = 1; round <= 5; round++) {
        const body = { name: `raced_model_${round}`, targetEvent: 'checkout' };
        const racing = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/v1/models', body)));
        const duplicate = await call('POST', '/v1/models', body);
        expect(duplicate.status).toBe(400);
        expect(duplicate.body).toEqual({ error: 'invalid_request', message: expect.stringContaining('already exists'), details: [{ path: 'name', message: 'already exists' }] });
        expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
        for (const loser of racing.filter((r) => r.status !== 200)) expect({ status: loser.status, body: loser.body }).toEqual({ status: 400, body: duplicate.body });
      }
    });
  });

  describe("finding 10: Fastify's own errors", () => {
    it('answers an over-long path parameter and bad percent-encoding in the contract shape', async () => {
      for (const token of [undefined, t.org.token.secret]) {
        expectRefused(await get(`/v1/models/${'a'.repeat(101)}`, token), 400, 'invalid_request');
        expectRefused(await get('/v1/models/%zz', token), 400, 'invalid_request');
        expectRefused(await get('/v1/models/monitor/%E0%A4%A', token), 400, 'invalid_request');
      }
    });

    it('answers HTTP the parser refuses (Content-Length, header bytes, oversized headers) in the contract shape', async () => {
      const cases = [
        'GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
        'POST /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
        'POST /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad\u0001: y\r\n\r\n',
        `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'BREW /v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
      ];
      for (const bytes of cases) {
        const response = await rawRequest(t.api.baseUrl, bytes);
        expect([bytes.slice(0, 60), response]).toEqual([bytes.slice(0, 60), { status: 400, body: { error: 'invalid_request', message: expect.any(String) } }]);
      }
    });

    it('answers a refused request line even when a large body follows it, rather than resetting the connection under the answer', async () => {
      // The parser stops at the byte 0xFF in the target; the 2 MB body is still on its way when the answer goes out.
      const head = Buffer.from('POST /v1/webhooks/a\xff/test HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n', 'latin1');
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await rawRequest(t.api.baseUrl, Buffer.concat([head, Buffer.alloc(2 * 1024 * 1024, 0x20)]));
        expect(response).toEqual({ status: 400, body: { error: 'invalid_request', message: expect.any(String) } });
      }
    });

    it('answers a path Fastify refuses before any route (bad percent-encoding, an over-long parameter) after reading the large body behind it', async () => {
      // Such an answer runs none of the routes' hooks: it must wait for the body itself, or the close resets the connection under it.
      const body = Buffer.alloc(2 * 1024 * 1024, 0x20);
      for (const target of ['/v1/audiences/%s%s%s%n/members?limit=5', `/v1/models/${'a'.repeat(101)}`]) {
        const head = Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${t.org.token.secret}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
        for (let attempt = 0; attempt < 10; attempt++) {
          expect([target, await rawRequest(t.api.baseUrl, Buffer.concat([head, body]))]).toEqual([target, { status: 400, body: { error: 'invalid_request', message: expect.any(String) } }]);
        }
      }
    });

    it('answers a compressed or otherwise encoded body outside ingestion with 415', async () => {
      const response = await call('POST', '/v1/models', { name: 'encoded_model', targetEvent: 'checkout' }, { 'content-encoding': 'br' });
      expectRefused(response, 415, 'unsupported_media_type');
      expect((await get('/v1/models')).body).not.toContainEqual(expect.objectContaining({ name: 'encoded_model' }));
    });
  });
});

/**
 * Issue 40, findings 6 and 7: a prototype key in one Segment message, and ids that are not Unicode text
 * (a lone surrogate escaped in JSON, or its bytes percent-encoded in a URL).
 */
describe('hostile keys and ids', () => {
  const t = withApiSuite('hostilekeys');
  const call = (method: string, path: string, body?: unknown) => request(`${t.api.baseUrl}${path}`, { method, token: t.org.token.secret, body });
  const storedMessages = async (prefix: string) =>
    (await t.suite.sql<{ message_id: string }>('SELECT message_id FROM events WHERE message_id LIKE $1 ORDER BY message_id', [`${prefix}%`])).map((row) => row.message_id);

  describe('finding 6: a prototype key skips its own message, never the batch', () => {
    // Written as text: in a JavaScript object literal "__proto__" would set the prototype, not a key.
    const track = (id: string, extra = '') => `{"type":"track","event":"click","userId":"proto-user","messageId":"${id}"${extra}}`;
    const poisoned = (id: string) => [
      track(`${id}-a`, ',"properties":{"__proto__":{"event":"polluted","userId":"polluted"}}'),
      track(`${id}-b`, ',"context":{"page":{"constructor":{"prototype":{"event":"polluted","userId":"polluted"}}}}'),
      track(`${id}-c`, ',"properties":{"cart":{"items":[{"__proto__":{"userId":"polluted"}}]}}'),
    ];

    it('stores the other messages of a Segment batch and counts the poisoned ones as rejected, on /v1/batch and /v1/b', async () => {
      for (const path of ['/v1/batch', '/v1/b']) {
        const id = `proto${path.replace(/\W/g, '')}`;
        const body = `{"batch":[${[track(`${id}-good-1`), ...poisoned(id), track(`${id}-good-2`)].join(',')}]}`;
        expect([path, await call('POST', path, body)]).toMatchObject([path, { status: 200, body: { accepted: 2, rejected: 3 } }]);
        expect(await storedMessages(`${id}-`)).toEqual([`${id}-good-1`, `${id}-good-2`]);
      }
    });

    it('answers a single poisoned Segment call 200 with it rejected, and names the key in a /v1/events batch', async () => {
      expect(await call('POST', '/v1/track', poisoned('proto-track')[0])).toMatchObject({ status: 200, body: { accepted: 0, rejected: 1 } });
      const identify = '{"type":"identify","userId":"proto-user","anonymousId":"a","messageId":"proto-identify","context":{"__proto__":{"x":1}}}';
      expect(await call('POST', '/v1/identify', identify)).toMatchObject({ status: 200, body: { accepted: 0, rejected: 1 } });
      const events = `[{"event":"click","userId":"proto-user","messageId":"proto-events-1"},{"event":"click","userId":"proto-user","properties":{"a":{"__proto__":{"x":1}}}}]`;
      const response = await call('POST', '/v1/events', events);
      expect(response).toMatchObject({ status: 400, body: { error: 'invalid_request', details: [{ path: '1.properties.a.__proto__', message: expect.any(String) }] } });
      expect(await storedMessages('proto-events-')).toEqual([]);
    });

    it('never reaches Object.prototype: an empty event still lacks its event name and user', async () => {
      for (const path of ['/v1/batch', '/v1/events']) await call('POST', path, path === '/v1/batch' ? `{"batch":[${poisoned('pollute').join(',')}]}` : poisoned('pollute')[0]);
      // Had {event, userId} reached Object.prototype, this {} would read them as its own and be stored.
      const empty = await call('POST', '/v1/events', {});
      expect(empty).toMatchObject({ status: 400, body: { details: expect.arrayContaining([expect.objectContaining({ path: 'event' })]) } });
    });
  });

  describe('finding 7: ids and labels are Unicode text', () => {
    const detailPaths = (response: JsonResponse) => ((response.body as { details?: Array<{ path: string }> }).details ?? []).map((d) => d.path);

    it('refuses lone surrogates in every JSON id or label with 400 naming the field; two of them never merge', async () => {
      // "\uFFFD" is what a lone surrogate becomes once stored: a real user whose predictions a lone surrogate must not reach.
      expect(await call('POST', '/v1/events', { event: 'click', userId: '\ufffd' })).toMatchObject({ status: 200, body: { accepted: 1 } });
      const cases: Array<[method: string, path: string, body: unknown, fields: string[]]> = [
        ['POST', '/v1/predict/batch', { userIds: ['\ud800'] }, ['userIds.0']],
        ['POST', '/v1/predict/batch', { userIds: ['\ud800', '\udbff'] }, ['userIds.0', 'userIds.1']],
        ['POST', '/v1/models', { name: 'surrogate_labels', targetEvent: 'checkout', labels: ['\ud800', '\udc00'] }, ['labels.0', 'labels.1']],
        ['POST', '/v1/models', { name: 'surrogate_target', targetEvent: 'check\udc00out' }, ['targetEvent']],
        ['POST', '/v1/models/retrain', { modelId: 'mdl_\ud800' }, ['modelId']],
        ['POST', '/v1/webhooks', { url: 'https://hooks.example.com/\ud800', events: ['model.retrained'] }, ['url']],
        ['PATCH', '/v1/organization', { name: 'Acme \udfff' }, ['name']],
      ];
      for (const [method, path, body, fields] of cases) {
        const response = await call(method, path, body);
        expect([path, response.status, response.body, detailPaths(response)]).toEqual([path, 400, expect.objectContaining({ error: 'invalid_request' }), fields]);
      }
      expect((await call('GET', '/v1/models')).body).toEqual([]);
      expect((await call('GET', '/v1/webhooks')).body).toEqual([]);
      expect((await call('GET', '/v1/organization')).body).toMatchObject({ name: expect.not.stringContaining('\ufffd') });
    });

    it('refuses query ids whose percent-encoding is not UTF-8 (a lone surrogate has no other form) or holds a control character', async () => {
      // Read literally, "%ED%A0%80" would be a second spelling of the id "%25ED%25A0%2580".
      expect(await call('POST', '/v1/events', { event: 'click', userId: '%ED%A0%80' })).toMatchObject({ status: 200, body: { accepted: 1 } });
      expect((await call('GET', '/v1/predict?userId=%25ED%25A0%2580')).status).toBe(200);
      const cases: Array<[method: string, path: string, field: string]> = [
        ['GET', '/v1/predict?userId=%ED%A0%80', 'userId'],
        ['GET', '/v1/predict?sessionId=s%ED%B0%80', 'sessionId'],
        ['GET', '/v1/predict?userId=a%01b', 'userId'],
        ['GET', '/v1/users/export?userId=%FF', 'userId'],
        ['GET', '/v1/users/sessions?userId=%ED%A0%80', 'userId'],
        ['DELETE', '/v1/users?userId=%ED%A0%80', 'userId'],
        ['DELETE', '/v1/users/suppression?userId=u%1F', 'userId'],
        ['GET', '/v1/users/events?userId=%C0%80', 'userId'],
        ['GET', '/v1/export/predictions?since=2026-11-01&model=churn%ED%A0%80', 'model'],
      ];
      for (const [method, path, field] of cases) {
        const response = await call(method, path);
        expect([path, response.status, (response.body as { message?: string }).message]).toEqual([path, 400, expect.stringContaining(field)]);
      }
      expect((await call('GET', '/v1/models/%ED%A0%80')).status).toBe(400);
    });
  });
});

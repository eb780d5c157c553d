import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { privateView } from './private-span-exporter';

const span = (attributes: ReadableSpan['attributes'], rest: Partial<ReadableSpan> = {}): ReadableSpan => ({
  name: 'GET /v1/predict',
  kind: SpanKind.SERVER,
  spanContext: () => ({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 }),
  startTime: [0, 0],
  endTime: [0, 1],
  status: { code: SpanStatusCode.UNSET },
  attributes,
  links: [],
  events: [],
  duration: [0, 1],
  ended: true,
  resource: resourceFromAttributes({ 'service.name': 'foresight-api' }),
  instrumentationScope: { name: 'test' },
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
  ...rest,
});

describe('privateView (what leaves the process of a span)', () => {
  it('keeps the route, method, status and parameterised SQL; drops URLs, headers, client details and Redis arguments', () => {
    const view = privateView(
      span({
        'http.request.method': 'GET',
        'http.route': '/v1/predict',
        'http.response.status_code': 200,
        'url.full': 'http://api/v1/predict?userId=alice',
        'url.path': '/v1/projects/pat_prod_secret/settings',
        'url.query': 'userId=alice',
        'http.request.header.authorization': ['Bearer pat_prod_secret'],
        'client.address': '203.0.113.7',
        'user_agent.original': 'curl',
        'db.query.text': 'SELECT * FROM events WHERE user_id = $1',
        'db.query.parameter.0': 'alice',
        'bullmq.job.id': 'rescore/org_1/alice',
      }),
    );
    expect(view.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/v1/predict',
      'http.response.status_code': 200,
      'db.query.text': 'SELECT * FROM events WHERE user_id = $1',
    });
    expect(view.name).toBe('GET /v1/predict');
    expect(view.spanContext().spanId).toBe('2'.repeat(16));
  });

  it('keeps of a failure its status code and exception class, never a message that may quote a value', () => {
    const view = privateView(
      span(
        {},
        {
          status: { code: SpanStatusCode.ERROR, message: 'invalid input syntax: "alice"' },
          events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'QueryFailedError', 'exception.message': 'alice', 'exception.stacktrace': 'alice at …' } }],
        },
      ),
    );
    expect(view.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(view.events).toEqual([{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'QueryFailedError' } }]);
  });
});

import { BadRequestException, NotFoundException } from '@nestjs/common';
import { RateLimitedError } from '@foresight/auth';
import { AppError } from '@foresight/platform';
import { toErrorResponse } from './error-response';

describe('toErrorResponse', () => {
  it('maps domain codes to their statuses with the contract body', () => {
    expect(toErrorResponse(new AppError('not_found', 'model x not found'))).toMatchObject({
      status: 404,
      body: { error: 'not_found', message: 'model x not found' },
    });
    expect(toErrorResponse(new AppError('insufficient_scope', 'no')).status).toBe(403);
    expect(toErrorResponse(new AppError('pii_detected', 'no')).status).toBe(400);
  });

  it('adds WWW-Authenticate to invalid_token', () => {
    expect(toErrorResponse(new AppError('invalid_token', 'bad')).headers).toEqual({ 'www-authenticate': 'Bearer error="invalid_token"' });
  });

  it('gives rate_limited exactly {error, retry_after} and Retry-After', () => {
    expect(toErrorResponse(new RateLimitedError(3))).toEqual({
      status: 429,
      body: { error: 'rate_limited', retry_after: 3 },
      headers: { 'retry-after': '3' },
      unexpected: false,
    });
  });

  it('answers 503 with Retry-After when a backing service is unreachable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = Object.assign(new Error('query failed'), { driverError: refused });
    expect(toErrorResponse(wrapped)).toMatchObject({ status: 503, body: { error: 'unavailable' }, headers: { 'retry-after': '5' } });
  });

  it('says when every database connection stayed busy, rather than that the database is unreachable', () => {
    const exhausted = Object.assign(new Error('query failed'), { driverError: new Error('timeout exceeded when trying to connect') });
    const answer = toErrorResponse(exhausted);
    expect(answer).toMatchObject({ status: 503, body: { error: 'unavailable' }, headers: { 'retry-after': '5' } });
    expect(answer.body).toMatchObject({ message: expect.stringContaining('Every database connection of this server stayed busy') });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toErrorResponse(refused).body).toMatchObject({ message: expect.stringContaining('unreachable') });
  });

  it('sets Retry-After on a domain unavailable error too', () => {
    expect(toErrorResponse(new AppError('unavailable', 'Redis is unreachable: could not queue the training run'))).toEqual({
      status: 503,
      body: { error: 'unavailable', message: 'Redis is unreachable: could not queue the training run' },
      headers: { 'retry-after': '5' },
      unexpected: false,
    });
  });

  it('hides unexpected errors behind internal_error, without stack or SQL', () => {
    const response = toErrorResponse(new Error('syntax error at or near "SELEC" in SELEC * FROM secrets'));
    expect(response.status).toBe(500);
    expect(response.unexpected).toBe(true);
    expect(JSON.stringify(response.body)).not.toMatch(/SELEC|secrets|\.ts:/);
  });

  it('translates Nest HTTP exceptions', () => {
    expect(toErrorResponse(new NotFoundException('Cannot GET /v1/x')).body).toEqual({ error: 'not_found', message: 'No route GET /v1/x' });
    expect(toErrorResponse(new BadRequestException('bad')).status).toBe(400);
  });

  it('answers Postgres refusing a value as 400 invalid_request, without the constraint, column or value', () => {
    for (const code of ['23505', '23503', '23514', '22P02', '22007', '22008', '22003', '22021', '22P05', '22001']) {
      const driverError = Object.assign(new Error('duplicate key value violates unique constraint "models_organization_id_name_key"'), {
        code,
        severity: 'ERROR',
        detail: 'Key (organization_id, name)=(org_secret, churn_7d) already exists.',
        constraint: 'models_organization_id_name_key',
      });
      const wrapped = Object.assign(new Error(driverError.message), { driverError });
      for (const error of [wrapped, driverError]) {
        const response = toErrorResponse(error);
        expect([code, response.status, response.body.error, response.unexpected]).toEqual([code, 400, 'invalid_request', false]);
        expect(JSON.stringify(response.body)).not.toMatch(/models_|org_secret|churn_7d|organization_id/);
      }
    }
  });

  it("answers Fastify's own URL errors and Node's HTTP parser errors in the contract shape", () => {
    const fastify = (code: string, statusCode: number) => Object.assign(new Error(`fastify ${code}`), { code, statusCode });
    for (const error of [
      fastify('FST_ERR_BAD_URL', 400),
      fastify('FST_ERR_MAX_PARAM_LENGTH', 414),
      Object.assign(new Error('Parse Error: Invalid header value char'), { code: 'HPE_INVALID_HEADER_TOKEN' }),
      Object.assign(new Error('Parse Error: Invalid character in Content-Length'), { code: 'HPE_INVALID_CONTENT_LENGTH' }),
      Object.assign(new Error('Parse Error: Header overflow'), { code: 'HPE_HEADER_OVERFLOW' }),
    ]) {
      expect(toErrorResponse(error)).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.any(String) }, unexpected: false });
      expect(JSON.stringify(toErrorResponse(error).body)).not.toMatch(/FST_ERR|HPE_|statusCode/);
    }
  });
});

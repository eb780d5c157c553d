import { errorFor, ForesightError, InvalidRequestError, NotFoundError, RateLimitedError, ServerError, UnavailableError } from './errors';

describe('errorFor', () => {
  it('maps the API error bodies to typed errors', () => {
    const invalid = errorFor(400, { error: 'invalid_request', message: 'name is invalid', details: [{ path: 'name', message: 'bad' }] }, undefined);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', message: 'name is invalid', details: [{ path: 'name' }] });
    expect(errorFor(404, { error: 'not_found', message: 'no model' }, undefined)).toBeInstanceOf(NotFoundError);
    expect(errorFor(500, { error: 'internal_error', message: 'oops' }, undefined)).toBeInstanceOf(ServerError);
    expect(errorFor(418, {}, undefined)).toMatchObject({ code: 'http_418', constructor: ForesightError });
  });

  it("reads retryAfter from the Retry-After header, or else the 429 body's retry_after", () => {
    expect(errorFor(429, { error: 'rate_limited', retry_after: 7 }, undefined)).toMatchObject({ retryAfter: 7 });
    const limited = errorFor(429, { error: 'rate_limited', retry_after: 7 }, 12);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect(limited).toMatchObject({ retryAfter: 12, code: 'rate_limited' });
    expect(errorFor(503, { error: 'unavailable', message: 'Redis down' }, 5)).toEqual(expect.any(UnavailableError));
  });
});

import { AppError } from '@foresight/platform';

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Rate limit exceeded; retry after ${retryAfterSeconds} s.`);
  }
}

/**
 * GA4-style eligibility: a model whose window has too few users with the positive outcome (or too
 * few without it) fails its run instead of serving noise. The message is the model's `lastError`.
 */
export class IneligibleModelError extends Error {
  readonly code = 'ineligible_model';

  constructor(
    readonly minimumUsers: number,
    /** The users counted, in words: `did "checkout" within 7 days after a training cutoff`. */
    readonly outcome: string,
    readonly foundUsers: number,
  ) {
    super(`needs at least ${minimumUsers} users who ${outcome}; found ${foundUsers}`);
    this.name = 'IneligibleModelError';
  }
}

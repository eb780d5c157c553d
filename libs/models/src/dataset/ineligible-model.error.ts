/**
 * GA4-style eligibility: a model whose window has too few users who did the target event (or too few
 * who did not) fails its run instead of serving noise. The message is the model's `lastError`.
 */
export class IneligibleModelError extends Error {
  readonly code = 'ineligible_model';

  constructor(
    readonly minimumUsers: number,
    readonly targetEvent: string,
    readonly horizonDays: number,
    readonly foundUsers: number,
    readonly didTarget: boolean,
  ) {
    const did = didTarget ? 'did' : 'did not do';
    super(`needs at least ${minimumUsers} users who ${did} "${targetEvent}" within ${horizonDays} days after a training cutoff; found ${foundUsers}`);
    this.name = 'IneligibleModelError';
  }
}

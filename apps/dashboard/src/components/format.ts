export const percent = (value: number | null | undefined, digits = 1): string => (value === null || value === undefined || Number.isNaN(value) ? '—' : `${(value * 100).toFixed(digits)}%`);
export const decimal = (value: number | null | undefined, digits = 3): string => (value === null || value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC' : '—');
export const count = (value: number): string => value.toLocaleString('en-GB');
/** "1 monitoring run", "4 monitoring runs": a count with its noun (regular plurals only). */
export const plural = (value: number, noun: string): string => `${count(value)} ${noun}${value === 1 ? '' : 's'}`;

/** What a model predicts, in words, by its kind (CONTRACT.md, Models); the listing gives fewer details than the model itself. */
export function predictsWhat(model: { kind: 'event' | 'inactivity' | 'value'; targetEvent: string | null; valueProperty?: string | null; activeDays?: number | null; horizonDays?: number }): string {
  const within = model.horizonDays === undefined ? '' : ` within ${plural(model.horizonDays, 'day')}`;
  switch (model.kind) {
    case 'event':
      return `${model.targetEvent ?? ''}${within}`;
    case 'inactivity':
      return `no event at all${within}${model.activeDays == null ? '' : `, among users active in the last ${plural(model.activeDays, 'day')}`}`;
    case 'value':
      return `the sum of ${model.valueProperty ?? 'its value'} on ${model.targetEvent ?? ''}${within}`;
  }
}

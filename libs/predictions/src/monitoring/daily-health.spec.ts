import { HEALTH_DAYS, healthDays } from './daily-health';

describe('healthDays', () => {
  const now = new Date('2026-11-26T15:30:00.000Z');
  const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

  it('gives each model fourteen UTC days ending today, the worst snapshot of each, no_data where none ran', () => {
    const rows = [
      { modelId: 'mdl_a', day: day('2026-11-26'), severity: 0 },
      { modelId: 'mdl_a', day: day('2026-11-25'), severity: 2 },
      { modelId: 'mdl_a', day: day('2026-11-13'), severity: 1 },
      { modelId: 'mdl_b', day: day('2026-11-20'), severity: 1 },
      // Monitoring ran, but on too few predictions to judge anything: no evidence of health.
      { modelId: 'mdl_b', day: day('2026-11-21'), severity: -1 },
      // Before the window: never shown.
      { modelId: 'mdl_a', day: day('2026-11-12'), severity: 2 },
    ];
    const health = healthDays(rows, ['mdl_a', 'mdl_b', 'mdl_c'], now);
    const a = health.get('mdl_a') ?? [];
    expect(a).toHaveLength(HEALTH_DAYS);
    expect(a[0]).toEqual({ day: '2026-11-13', health: 'degraded' });
    expect(a[12]).toEqual({ day: '2026-11-25', health: 'failing' });
    expect(a[13]).toEqual({ day: '2026-11-26', health: 'healthy' });
    expect(a.filter((d) => d.health === 'no_data')).toHaveLength(11);
    expect(health.get('mdl_b')?.find((d) => d.day === '2026-11-20')?.health).toBe('degraded');
    expect(health.get('mdl_b')?.find((d) => d.day === '2026-11-21')?.health).toBe('no_data');
    expect(health.get('mdl_c')?.every((d) => d.health === 'no_data')).toBe(true);
  });
});

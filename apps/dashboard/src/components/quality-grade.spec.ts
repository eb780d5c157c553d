import { logLossLift, modelHealth, qualityGrade } from './quality-grade';

describe('quality grade', () => {
  it('grades AUC in plain words with the ranking rate spelled out', () => {
    expect(qualityGrade(0.91)).toMatchObject({ grade: 'Excellent', tone: 'good' });
    expect(qualityGrade(0.78).grade).toBe('Good');
    expect(qualityGrade(0.7).grade).toBe('Fair');
    expect(qualityGrade(0.6).grade).toBe('Weak');
    expect(qualityGrade(0.5)).toMatchObject({ grade: 'Not useful', tone: 'bad' });
    expect(qualityGrade(0.78).explanation).toContain('78%');
  });

  it('measures log loss against always guessing the base rate', () => {
    const baseline = -(0.2 * Math.log(0.2) + 0.8 * Math.log(0.8));
    expect(logLossLift(baseline, 0.2)).toBeCloseTo(0, 10);
    expect(logLossLift(baseline / 2, 0.2)).toBeCloseTo(0.5, 10);
    expect(logLossLift(0.3, 0)).toBe(0);
  });

  it('puts a failing run before drift, and drift before a healthy serving model', () => {
    const level = (status: 'none' | 'low' | 'moderate' | 'high') => ({ measured: 'yes' as const, status });
    expect(modelHealth('failed', level('none')).label).toBe('Failing');
    expect(modelHealth('active', level('high'))).toEqual({ label: 'Drifting', tone: 'bad' });
    expect(modelHealth('active', level('moderate')).tone).toBe('fair');
    expect(modelHealth('active', level('low')).label).toBe('Healthy');
    expect(modelHealth('untrained', undefined).label).toBe('Not trained');
    expect(modelHealth('retraining', level('none')).label).toBe('Training');
  });

  it('never says Healthy without a measurement on enough predictions', () => {
    expect(modelHealth('active', undefined)).toMatchObject({ label: 'No monitoring yet', tone: 'neutral' });
    expect(modelHealth('active', { measured: 'never' }).label).toBe('No monitoring yet');
    expect(modelHealth('active', { measured: 'too_few', sample: 40, minimum: 100 })).toEqual({
      label: 'Too few predictions',
      tone: 'neutral',
      detail: 'not enough predictions yet (40 of 100)',
    });
    expect(modelHealth('active', { measured: 'too_few', sample: 40, minimum: null }).detail).toBe('not enough predictions yet (40 so far)');
  });
});

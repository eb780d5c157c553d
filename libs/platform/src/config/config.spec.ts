import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

const external = {
  DATABASE_URL: 'postgres://u:p@db:5432/foresight',
  TOKEN_PEPPER: 'p'.repeat(32),
  ENCRYPTION_KEY: 'a'.repeat(64),
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ ...external });
    expect(config).toMatchObject({
      port: 3000,
      region: 'eu',
      redisPrefix: 'foresight:',
      metricsPort: 9464,
      workerMode: 'off',
      embedded: false,
    });
    expect(config.redisUrl.reveal()).toBe('redis://127.0.0.1:6379');
  });

  it('lists every bad variable at once', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', REGION: 'mars', REDIS_URL: 'http://x', ENCRYPTION_KEY: 'short' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'REGION', 'REDIS_URL', 'ENCRYPTION_KEY']) expect(problems).toContain(name);
    }
  });

  it('requires the secrets when an external database is configured', () => {
    expect(() => loadConfig({ DATABASE_URL: external.DATABASE_URL })).toThrow(/TOKEN_PEPPER[\s\S]*ENCRYPTION_KEY/);
  });

  it('generates and keeps embedded secrets in DATA_DIR, readable only by the owner', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'foresight-config-'));
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    expect(first.embedded).toBe(true);
    expect(first.workerMode).toBe('inline');
    expect(first.tokenPepper.reveal()).toMatch(/^[0-9a-f]{64}$/);
    expect(second.tokenPepper.reveal()).toBe(first.tokenPepper.reveal());
    expect(readFileSync(join(dataDir, 'secrets', 'token-pepper'), 'utf8').trim()).toBe(first.tokenPepper.reveal());
    expect(statSync(join(dataDir, 'secrets', 'token-pepper')).mode & 0o077).toBe(0);
  });

  it('never prints secrets', () => {
    const config = loadConfig({ ...external });
    const printed = JSON.stringify(config) + String(config.tokenPepper);
    expect(printed).not.toContain(external.TOKEN_PEPPER);
    expect(printed).not.toContain('u:p@db');
  });
});

import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

export interface ProviderAccount {
  email: string;
  name: string;
  groups: string[];
}

export interface OpenIdProviderSettings {
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  postLogoutRedirectUrl: string;
  accounts: Record<string, ProviderAccount>;
}

/** The test's OpenID provider (openid-provider-server.mjs), running in a child process. */
export interface RunningOpenIdProvider {
  readonly issuer: string;
  setGroups(accountId: string, groups: string[]): Promise<void>;
  /** The person leaves the organization: the provider refuses their refresh from now on. */
  remove(accountId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startOpenIdProvider(settings: OpenIdProviderSettings): Promise<RunningOpenIdProvider> {
  const child: ChildProcess = fork(join(__dirname, 'openid-provider-server.mjs'), [], {
    env: { PATH: process.env.PATH ?? '', OPENID_PROVIDER_SETTINGS: JSON.stringify(settings) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited with ${code} during start`)));
  });
  let seq = 0;
  const command = (body: Record<string, unknown>) =>
    new Promise<void>((resolve) => {
      const mine = ++seq;
      const listener = (message: unknown) => {
        if ((message as { done?: number }).done !== mine) return;
        child.off('message', listener);
        resolve();
      };
      child.on('message', listener);
      child.send({ ...body, seq: mine });
    });
  return {
    issuer,
    setGroups: (id, groups) => command({ type: 'set-groups', id, groups }),
    remove: (id) => command({ type: 'remove', id }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

// A real OpenID provider (oidc-provider, the certified implementation openid-client is tested
// against) for the single sign-on suites, in a child process of the test: oidc-provider ships ES
// modules only, which Jest's CommonJS runtime cannot load. It listens on its own port with its own
// signing key, signs people in through its development login form (any password), and obeys the
// test over IPC: change a person's groups, remove a person.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const settings = JSON.parse(process.env.OPENID_PROVIDER_SETTINGS);
/** Account id → { email, name, groups }. */
const accounts = new Map(Object.entries(settings.accounts));

const signingKey = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };

const server = createServer();
// Every address: the issuer is named localhost, which may resolve to ::1 or 127.0.0.1.
await new Promise((resolve) => server.listen(0, resolve));
const issuer = `http://localhost:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      redirect_uris: [settings.redirectUrl],
      post_logout_redirect_uris: [settings.postLogoutRedirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomUUID()] },
  scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
  claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  // A refresh token for every sign-in, as Keycloak issues one (no offline_access needed).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  findAccount: (_ctx, id) => {
    if (!accounts.has(id)) return undefined;
    return { accountId: id, claims: () => ({ sub: id, ...accounts.get(id) }) };
  },
});
server.on('request', provider.callback());

process.on('message', (command) => {
  if (command.type === 'set-groups') accounts.set(command.id, { ...accounts.get(command.id), groups: command.groups });
  if (command.type === 'remove') accounts.delete(command.id);
  process.send({ done: command.seq });
});
process.send({ issuer });

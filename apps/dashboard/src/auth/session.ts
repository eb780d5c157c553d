// The signed-in token lives in sessionStorage only (never a cookie, never a URL): it is gone when
// the tab closes, and no other tab or site sees it.
const TOKEN_KEY = 'foresight.token';

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const storeToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

// A person signed in through single sign-on holds an httpOnly session cookie this code never sees;
// its CSRF token, sent with every call, is kept in memory only (asked again from /auth/session at load).
let sessionCsrfToken: string | null = null;

export const csrfToken = (): string | null => sessionCsrfToken;
export const keepCsrfToken = (token: string | null): void => {
  sessionCsrfToken = token;
};

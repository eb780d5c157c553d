// The signed-in token lives in sessionStorage only (never a cookie, never a URL): it is gone when
// the tab closes, and no other tab or site sees it.
const TOKEN_KEY = 'foresight.token';

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const storeToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

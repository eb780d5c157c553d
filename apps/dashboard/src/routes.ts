import { useEffect, useState } from 'react';

/** Hash routes: the server serves one page, and nothing of the route ever reaches it. */
export type Route =
  | { page: 'overview' }
  | { page: 'models' }
  | { page: 'model'; modelId: string }
  | { page: 'monitoring'; modelId?: string }
  | { page: 'user'; userId?: string }
  | { page: 'live' }
  | { page: 'tokens' }
  | { page: 'webhooks' }
  | { page: 'audiences'; modelId?: string; cutoff?: number }
  | { page: 'privacy' }
  | { page: 'settings' }
  | { page: 'audit' }
  | { page: 'install' };

export function parseRoute(hash: string): Route {
  const [page, id, detail] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (page === 'models' && id) return { page: 'model', modelId: id };
  if (page === 'models') return { page: 'models' };
  if (page === 'monitoring') return { page: 'monitoring', modelId: id || undefined };
  if (page === 'users') return { page: 'user', userId: id || undefined };
  // From the model page's cutoff explorer: the model and the cutoff to start from.
  if (page === 'audiences' && id) return { page, modelId: id, cutoff: cutoffFrom(detail) };
  if (page === 'live' || page === 'tokens' || page === 'webhooks' || page === 'audiences' || page === 'privacy' || page === 'settings' || page === 'audit' || page === 'install') return { page };
  return { page: 'overview' };
}

function cutoffFrom(text: string | undefined): number | undefined {
  const cutoff = Number(text);
  return text && Number.isFinite(cutoff) && cutoff >= 0 && cutoff <= 1 ? cutoff : undefined;
}

export function href(route: Route): string {
  switch (route.page) {
    case 'overview':
      return '#/';
    case 'models':
      return '#/models';
    case 'model':
      return `#/models/${encodeURIComponent(route.modelId)}`;
    case 'monitoring':
      return route.modelId ? `#/monitoring/${encodeURIComponent(route.modelId)}` : '#/monitoring';
    case 'user':
      return route.userId ? `#/users/${encodeURIComponent(route.userId)}` : '#/users';
    case 'audiences':
      if (!route.modelId) return '#/audiences';
      return `#/audiences/${encodeURIComponent(route.modelId)}${route.cutoff === undefined ? '' : `/${route.cutoff.toFixed(2)}`}`;
    case 'live':
    case 'tokens':
    case 'webhooks':
    case 'privacy':
    case 'settings':
    case 'audit':
    case 'install':
      return `#/${route.page}`;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

import { useEffect, useState } from 'preact/hooks';

// Hash routing (`/#/files`): the API owns paths such as /files and /settings, so the dashboard's
// screens live in the fragment and the server only ever serves `/`.

/** The current route: path (`/files`) and its query parameters. */
export interface Route {
  path: string;
  params: URLSearchParams;
}

function current(): Route {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = hash.split('?', 2);
  return { path: path.startsWith('/') ? path : `/${path}`, params: new URLSearchParams(query) };
}

/** The current route, re-rendering on navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Goes to `path` (e.g. `/files`); `replace` leaves no history entry. */
export function navigate(path: string, replace = false): void {
  const target = `#${path}`;
  if (replace) history.replaceState(null, '', `${location.pathname}${location.search}${target}`);
  else location.hash = path;
  if (replace) window.dispatchEvent(new HashChangeEvent('hashchange'));
}

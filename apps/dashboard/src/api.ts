// A tiny client for Hangar's public API (the same endpoints as /docs; nothing private). The access
// token lives only in memory; the refresh token in localStorage, so a reload or a new tab stays
// signed in (docs/dashboard.md explains why that is safe on this origin).

/** Session as the API returns it (spec 2.2). */
export interface Session {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  /** Unix time, seconds. */
  expires_at: number;
  token_type: string;
}

/** An error answer of the API: `{ code, message, request_id, details? }`, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const REFRESH_KEY = 'hangar.refresh_token';
/** Refresh this long before the access token expires, in ms. */
const REFRESH_MARGIN_MS = 60_000;

let access: { token: string; expiresAtMs: number } | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | undefined;
const listeners = new Set<(signedIn: boolean) => void>();

/** Calls `listener` whenever the user becomes signed in or out; returns the unsubscribe function. */
export function onAuthChange(listener: (signedIn: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True while an access token is held in memory. */
export function isSignedIn(): boolean {
  return access !== undefined;
}

function emit(): void {
  for (const listener of listeners) listener(isSignedIn());
}

function storedRefreshToken(): string | null {
  try {
    return localStorage.getItem(REFRESH_KEY);
  } catch {
    return null;
  }
}

function storeRefreshToken(token: string | null): void {
  try {
    if (token === null) localStorage.removeItem(REFRESH_KEY);
    else localStorage.setItem(REFRESH_KEY, token);
  } catch {
    // Storage disabled (private mode): the session then lasts as long as this tab.
  }
}

/** Adopts a new session: access token in memory, refresh token in storage, a refresh scheduled before expiry. */
export function startSession(session: Session): void {
  access = { token: session.access_token, expiresAtMs: session.expires_at * 1000 };
  storeRefreshToken(session.refresh_token);
  clearTimeout(refreshTimer);
  const delay = Math.max(5_000, access.expiresAtMs - Date.now() - REFRESH_MARGIN_MS);
  refreshTimer = setTimeout(() => void refreshSession(), delay);
  emit();
}

/** Forgets the session in this tab (and, through storage, in the others). */
export function endSession(): void {
  access = undefined;
  clearTimeout(refreshTimer);
  storeRefreshToken(null);
  emit();
}

/**
 * Exchanges the stored refresh token for a new session (POST /auth/refresh). Tabs take turns
 * through a Web Lock and read the token inside it, so two tabs never present the same refresh
 * token (the server revokes a session whose rotated token is reused). Resolves false when signed out.
 */
export function refreshSession(): Promise<boolean> {
  refreshing ??= withLock(async () => {
    const token = storedRefreshToken();
    if (!token) {
      if (access) endSession();
      return false;
    }
    const response = await send('/auth/refresh', { method: 'POST', json: { refresh_token: token } }).catch((error: unknown) => error as ApiError);
    if (response instanceof ApiError) {
      // A network failure keeps the session for a later try; a refused token ends it.
      if (response.status === 401 || response.status === 400) endSession();
      return false;
    }
    startSession((response as { session: Session }).session);
    return true;
  }).finally(() => (refreshing = undefined));
  return refreshing;
}

async function withLock<T>(work: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? locks.request('hangar-refresh', work) : work();
}

// Another tab signed out (or in): follow it.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === REFRESH_KEY && event.newValue === null && access) {
      access = undefined;
      clearTimeout(refreshTimer);
      emit();
    }
  });
}

/** Restores the session of an earlier visit from the stored refresh token; resolves whether signed in. */
export async function restoreSession(): Promise<boolean> {
  return storedRefreshToken() ? refreshSession() : false;
}

/**
 * Reads the session the confirmation link put in the URL fragment
 * (`#access_token=…&refresh_token=…&expires_in=…&expires_at=…&token_type=bearer&type=signup`).
 */
export function sessionFromFragment(hash: string): Session | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const accessToken = params.get('access_token');
  const refreshToken = params.get('refresh_token');
  const expiresAt = Number(params.get('expires_at'));
  if (!accessToken || !refreshToken || !Number.isFinite(expiresAt)) return undefined;
  return { access_token: accessToken, refresh_token: refreshToken, expires_at: expiresAt, expires_in: Number(params.get('expires_in')), token_type: 'bearer' };
}

interface RequestOptions {
  method?: string;
  json?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  token?: string;
}

function withQuery(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function send(path: string, options: RequestOptions): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'The server cannot be reached. Check your connection and try again.');
  }
  const text = await response.text();
  const body = text ? parseJson(text) : undefined;
  if (!response.ok) throw errorFrom(response.status, body);
  return body;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorFrom(status: number, body: unknown): ApiError {
  const error = body as { code?: string; message?: string; details?: unknown } | undefined;
  return new ApiError(status, error?.code ?? `HTTP_${status}`, error?.message ?? `The server answered ${status}.`, error?.details);
}

/** A fresh access token: refreshed first when it expires within the margin. @throws ApiError 401 when signed out */
export async function accessToken(): Promise<string> {
  if (!access || access.expiresAtMs - Date.now() < REFRESH_MARGIN_MS / 2) await refreshSession();
  if (!access) throw new ApiError(401, 'UNAUTHORIZED', 'Your session has ended. Sign in again.');
  return access.token;
}

/** Calls an endpoint without credentials (register, login, forgot and reset password, reference). */
export function publicApi<T>(path: string, options: Omit<RequestOptions, 'token'> = {}): Promise<T> {
  return send(path, options) as Promise<T>;
}

/**
 * Calls an authenticated endpoint with the session token; on a 401 it refreshes once and retries.
 * @throws ApiError with the API's code and message
 */
export async function api<T>(path: string, options: Omit<RequestOptions, 'token'> = {}): Promise<T> {
  try {
    return (await send(path, { ...options, token: await accessToken() })) as T;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || !(await refreshSession())) throw error;
    return (await send(path, { ...options, token: await accessToken() })) as T;
  }
}

/**
 * Fetches an authenticated binary resource (the owner's thumbnails, GET /files/:id/thumbnail) as a
 * Blob; on a 401 it refreshes once and retries. @throws ApiError with the API's code and message
 */
export async function apiBlob(path: string): Promise<Blob> {
  const get = async () => {
    let response: Response;
    try {
      response = await fetch(path, { headers: { authorization: `Bearer ${await accessToken()}` }, credentials: 'omit' });
    } catch {
      throw new ApiError(0, 'NETWORK_ERROR', 'The server cannot be reached.');
    }
    if (!response.ok) throw errorFrom(response.status, parseJson(await response.text()));
    return response.blob();
  };
  try {
    return await get();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || !(await refreshSession())) throw error;
    return get();
  }
}

/**
 * Signs in with e-mail and password (POST /auth/login). With two-factor sign-in on, no session yet:
 * resolves with the `mfa_token` for {@link completeMfaSignIn}.
 * @throws ApiError INVALID_CREDENTIALS, EMAIL_NOT_VERIFIED
 */
export async function signIn(email: string, password: string): Promise<{ mfaToken: string } | undefined> {
  const result = await publicApi<{ session: Session } | { mfa_required: true; mfa_token: string }>('/auth/login', {
    method: 'POST',
    json: { email, password },
  });
  if ('mfa_token' in result) return { mfaToken: result.mfa_token };
  startSession(result.session);
  return undefined;
}

/** The second step of a sign-in (POST /auth/mfa/verify): a TOTP or recovery code. @throws ApiError INVALID_MFA_CODE, INVALID_MFA_TOKEN, RATE_LIMITED */
export async function completeMfaSignIn(mfaToken: string, code: string): Promise<void> {
  const result = await publicApi<{ session: Session }>('/auth/mfa/verify', { method: 'POST', json: { mfa_token: mfaToken, code } });
  startSession(result.session);
}

/** Revokes the session at the server (POST /auth/logout), then forgets it here even if that failed. */
export async function signOut(): Promise<void> {
  try {
    if (access) await send('/auth/logout', { method: 'POST', token: access.token });
  } catch {
    // Signed out locally regardless; the access token expires on its own.
  } finally {
    endSession();
  }
}

/** An upload in flight: its result and a way to cancel it. */
export interface UploadHandle {
  done: Promise<unknown>;
  abort(): void;
}

/**
 * Uploads one file as the raw body of POST /files with progress (XMLHttpRequest: fetch reports no
 * upload progress). `onProgress` receives the fraction sent, 0–1.
 */
export function uploadFile(file: File, options: { isPublic: boolean; expiresIn?: number; onProgress: (fraction: number) => void }): UploadHandle {
  const request = new XMLHttpRequest();
  const done = accessToken().then(
    (token) =>
      new Promise<unknown>((resolve, reject) => {
        request.open(
          'POST',
          withQuery('/files', { isPublic: options.isPublic ? undefined : 'false', expiresIn: options.expiresIn ? String(options.expiresIn) : undefined }),
        );
        request.setRequestHeader('authorization', `Bearer ${token}`);
        request.setRequestHeader('content-type', file.type || 'application/octet-stream');
        request.setRequestHeader('x-file-name', encodeURIComponent(file.name));
        request.setRequestHeader('accept', 'application/json');
        request.upload.onprogress = (event) => {
          if (event.lengthComputable) options.onProgress(event.loaded / event.total);
        };
        request.onload = () => {
          const body = request.responseText ? parseJson(request.responseText) : undefined;
          if (request.status >= 200 && request.status < 300) {
            options.onProgress(1);
            resolve(body);
          } else reject(errorFrom(request.status, body));
        };
        request.onerror = () => reject(new ApiError(0, 'NETWORK_ERROR', 'The upload was interrupted. Check your connection and try again.'));
        request.onabort = () => reject(new ApiError(0, 'ABORTED', 'Upload canceled.'));
        request.send(file);
      }),
  );
  return { done, abort: () => request.abort() };
}

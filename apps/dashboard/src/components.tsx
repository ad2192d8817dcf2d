import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** State of a load: the data, the error message, and a function to load again. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change; keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!live) return;
        setError(messageOf(failure));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/** A readable message for any failure (the API's own message for ApiError). */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A status line: polite live region for news, `alert` for errors. */
export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error' | 'success' | 'warning'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

/** Copies `text` to the clipboard, with a fallback for non-secure origins. Resolves whether it worked. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** A button that copies `text` and says so for two seconds (announced to screen readers). */
export function CopyButton({ text, label = 'Copy', class: className }: { text: string; label?: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onClick = async () => {
    setState((await copyText(text)) ? 'copied' : 'failed');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" class={`secondary small ${className ?? ''}`} onClick={onClick} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}

/** Previous/next paging for `{ total, page, limit }` lists (spec 4 conventions). */
/**
 * Previous/next through a paged list. \`atLeast\`: \`total\` is a lower bound (the API's
 * \`total_relation: "gte"\`), so pages go on past it while \`more\` says the current page was full.
 */
export function Pager({
  page,
  limit,
  total,
  atLeast = false,
  more = false,
  onPage,
}: {
  page: number;
  limit: number;
  total: number;
  atLeast?: boolean;
  more?: boolean;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (total <= limit && page === 1 && !atLeast) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {atLeast ? `${Math.max(pages, page)}+` : pages}
      </span>
      <button type="button" class="secondary" disabled={atLeast ? !more : page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** A modal dialog (native `<dialog>`: focus is trapped, Escape closes it). */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Focus goes back to what opened the dialog (WAI-ARIA APG, dialog pattern) once it closes; if that
  // control is gone (the file was deleted), to the screen's heading.
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : undefined;
    return () => {
      const back = opener?.isConnected ? opener : document.querySelector<HTMLElement>('main h1');
      if (!back) return;
      if (back.tagName === 'H1') back.tabIndex = -1;
      // After the dialog element leaves the page, which would otherwise leave focus on <body>.
      requestAnimationFrame(() => back.focus());
    };
  }, []);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      onClose();
    };
    dialog.addEventListener('cancel', cancel);
    return () => dialog.removeEventListener('cancel', cancel);
  }, [onClose]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title">
      <header class="dialog-head">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" class="secondary small" onClick={onClose} aria-label="Close">
          ✕
        </button>
      </header>
      {children}
    </dialog>
  );
}

/** Asks to confirm a destructive action; `onConfirm` may be async and its error is shown. */
export function ConfirmDialog(props: { title: string; message: ComponentChildren; confirmLabel: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <div class="dialog-body">{props.message}</div>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={confirm} disabled={busy}>
          {props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

/** A status badge: green when `active`, amber while pending, red for failures. */
export function Badge({ label, value }: { label: string; value: string }) {
  const tone = value === 'active' ? 'good' : /pending|initializing|validation|issuance|deployment/.test(value) ? 'wait' : 'bad';
  return (
    <span class={`badge badge-${tone}`}>
      {label}: {value.replace(/_/g, ' ')}
    </span>
  );
}

/** A labelled bar of `value` against `limit` (a `<meter>`, so assistive technology reads it). */
export function UsageBar({ label, value, limit, format }: { label: string; value: number; limit: number; format: (n: number) => string }) {
  const id = `bar-${label.replace(/\W+/g, '-').toLowerCase()}`;
  const percent = limit > 0 ? Math.min(100, (value / limit) * 100) : 100;
  return (
    <div class="usage-bar">
      <div class="usage-bar-label">
        <span id={id}>{label}</span>
        <span>
          {format(value)} of {format(limit)} ({percent < 1 && value > 0 ? '<1' : Math.round(percent)}%)
        </span>
      </div>
      <meter aria-labelledby={id} min={0} max={limit || 1} value={Math.min(value, limit || 1)} low={limit * 0.75} high={limit * 0.9} optimum={0} />
    </div>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiBlob, ApiError, publicApi, uploadFile } from '../api.js';
import { ConfirmDialog, CopyButton, Dialog, Notice, Pager, useLoad } from '../components.js';
import { FILE_EXPIRIES, FileControls } from './file-controls.js';
import { RESUMABLE_THRESHOLD_BYTES, ResumableControls, startResumableUpload, UnfinishedUploads, type ResumableHandle } from './resumable-upload.js';
import { formatBytes, formatDateTime, formatRelative } from '../format.js';
import type { HangarFile, Settings } from '../types.js';

const PAGE_SIZE = 24;
const VIEW_KEY = 'hangar.files_view';
const MIB = 1024 * 1024;

/** The list filters of GET /files (spec 4.9) as the form holds them; sizes in MiB, dates as yyyy-mm-dd. */
interface Filters {
  q: string;
  type: string;
  sizeMinMiB: string;
  sizeMaxMiB: string;
  isPublic: '' | 'true' | 'false';
  createdAfter: string;
  createdBefore: string;
}

const NO_FILTERS: Filters = { q: '', type: '', sizeMinMiB: '', sizeMaxMiB: '', isPublic: '', createdAfter: '', createdBefore: '' };

/** Form values → GET /files query; local calendar days become the instants that bound them. */
function filterQuery(filters: Filters) {
  const mib = (value: string) => (value.trim() === '' ? undefined : Math.round(Number(value) * MIB));
  const day = (value: string, end: boolean) => (value ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString() : undefined);
  return {
    q: filters.q.trim() || undefined,
    type: filters.type || undefined,
    sizeMin: mib(filters.sizeMinMiB),
    sizeMax: mib(filters.sizeMaxMiB),
    isPublic: filters.isPublic || undefined,
    createdAfter: day(filters.createdAfter, false),
    createdBefore: day(filters.createdBefore, true),
  };
}

/** Files: upload, search and filters, grid or list, details, copy addresses, delete one or many. */
export function FilesScreen() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [view, setView] = useState<'grid' | 'list'>(() => (localStorage.getItem(VIEW_KEY) === 'list' ? 'list' : 'grid'));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [details, setDetails] = useState<HangarFile>();
  const [confirmBulk, setConfirmBulk] = useState(false);
  const [news, setNews] = useState<{ kind: 'success' | 'error'; text: string }>();
  const types = useLoad(() => publicApi<{ content_types: string[] }>('/reference/allowed-content-types'), []);
  const settings = useLoad(() => api<Settings>('/settings'), []);
  const list = useLoad(
    () =>
      api<{ files: HangarFile[]; total: number; total_relation: 'eq' | 'gte'; page: number; limit: number }>('/files', {
        query: { page, limit: PAGE_SIZE, ...filterQuery(filters) },
      }),
    [page, filters],
  );

  useEffect(() => localStorage.setItem(VIEW_KEY, view), [view]);
  useEffect(() => setSelected(new Set()), [page, filters]);

  const files = list.data?.files ?? [];
  const toggle = (fileId: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(fileId)) next.delete(fileId);
      else next.add(fileId);
      return next;
    });
  const allSelected = files.length > 0 && files.every((f) => selected.has(f.file_id));

  const bulkDelete = async () => {
    const ids = [...selected];
    const result = await api<{ deleted: number; errors: { id: string; error: string }[] }>('/files/bulk-delete', { method: 'POST', json: { ids } });
    setSelected(new Set());
    setNews(
      result.errors.length === 0
        ? { kind: 'success', text: `Deleted ${result.deleted} file${result.deleted === 1 ? '' : 's'}.` }
        : {
            kind: 'error',
            text: `Deleted ${result.deleted}; ${result.errors.length} could not be deleted: ${result.errors.map((e) => `${e.id} (${e.error})`).join(', ')}`,
          },
    );
    list.reload();
  };

  return (
    <section aria-labelledby="files-title">
      <div class="screen-head">
        <h1 id="files-title">Files</h1>
        <div class="segmented" role="group" aria-label="View">
          <button type="button" class="secondary small" aria-pressed={view === 'grid'} onClick={() => setView('grid')}>
            Grid
          </button>
          <button type="button" class="secondary small" aria-pressed={view === 'list'} onClick={() => setView('list')}>
            List
          </button>
        </div>
      </div>

      <Uploader allowedTypes={types.data?.content_types} maxBytes={settings.data?.max_upload_size_bytes} onUploaded={list.reload} />

      <FilterForm
        types={types.data?.content_types ?? []}
        filters={filters}
        onApply={(next) => {
          setFilters(next);
          setPage(1);
        }}
      />

      {news && <Notice kind={news.kind}>{news.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}

      <div class="toolbar">
        <label class="inline">
          <input
            type="checkbox"
            checked={allSelected}
            onChange={() => setSelected(allSelected ? new Set() : new Set(files.map((f) => f.file_id)))}
            disabled={files.length === 0}
          />
          Select all on this page
        </label>
        <span class="muted" aria-live="polite">
          {list.data
            ? `${list.data.total.toLocaleString('en')}${list.data.total_relation === 'gte' ? '+' : ''} file${list.data.total === 1 && list.data.total_relation !== 'gte' ? '' : 's'}`
            : list.loading
              ? 'Loading…'
              : ''}
        </span>
        <button type="button" class="danger small" disabled={selected.size === 0} onClick={() => setConfirmBulk(true)}>
          Delete selected ({selected.size})
        </button>
      </div>

      {list.data && files.length === 0 && (
        <p class="empty">
          {Object.values(filterQuery(filters)).some((v) => v !== undefined) ? 'No file matches these filters.' : 'No files yet: drop some above.'}
        </p>
      )}

      {view === 'grid' ? (
        <ul class="file-grid" aria-label="Files">
          {files.map((file) => (
            <FileCard
              key={file.file_id}
              file={file}
              selected={selected.has(file.file_id)}
              onToggle={() => toggle(file.file_id)}
              onOpen={() => setDetails(file)}
            />
          ))}
        </ul>
      ) : (
        files.length > 0 && (
          <div class="table-wrap">
            <table class="file-table responsive">
              <thead>
                <tr>
                  <th scope="col">
                    <span class="offscreen">Select</span>
                  </th>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Size</th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">Visibility</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {files.map((file) => (
                  <tr key={file.file_id}>
                    <td class="row-check">
                      <input
                        type="checkbox"
                        aria-label={`Select ${file.name ?? file.file_id}`}
                        checked={selected.has(file.file_id)}
                        onChange={() => toggle(file.file_id)}
                      />
                    </td>
                    <td class="row-title">
                      <button type="button" class="link" onClick={() => setDetails(file)}>
                        {file.name ?? file.file_id}
                      </button>
                    </td>
                    <td data-label="Type">{file.content_type ?? '—'}</td>
                    <td data-label="Size">{formatBytes(file.size)}</td>
                    <td data-label="Uploaded" title={formatDateTime(file.created_at)}>
                      {formatRelative(file.created_at)}
                    </td>
                    <td data-label="Visibility">{file.is_public ? 'Public' : 'Private'}</td>
                    <td class="row-actions">{file.public_url ? <CopyButton text={file.public_url} label="Copy link" /> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      )}

      {list.data && (
        <Pager
          page={page}
          limit={PAGE_SIZE}
          total={list.data.total}
          atLeast={list.data.total_relation === 'gte'}
          more={list.data.files.length === PAGE_SIZE}
          onPage={setPage}
        />
      )}

      {details && (
        <FileDetails
          file={details}
          onChanged={(file) => {
            setDetails(file);
            list.reload();
          }}
          onClose={() => setDetails(undefined)}
          onDeleted={() => {
            setDetails(undefined);
            setNews({ kind: 'success', text: `Deleted ${details.name ?? details.file_id}.` });
            list.reload();
          }}
        />
      )}
      {confirmBulk && (
        <ConfirmDialog
          title="Delete files"
          message={
            <p>
              Delete {selected.size} selected file{selected.size === 1 ? '' : 's'}? Their addresses stop working at once. This cannot be undone.
            </p>
          }
          confirmLabel={`Delete ${selected.size}`}
          onConfirm={bulkDelete}
          onClose={() => setConfirmBulk(false)}
        />
      )}
    </section>
  );
}

function FilterForm({ types, filters, onApply }: { types: string[]; filters: Filters; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filters]);
  const set = (key: keyof Filters) => (event: Event) => setDraft({ ...draft, [key]: (event.currentTarget as HTMLInputElement).value });
  const submit = (event: Event) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form class="filters" onSubmit={submit} role="search">
      <div class="search-row">
        <label class="grow">
          <span class="offscreen">Search by name or file id</span>
          <input type="search" name="q" placeholder="Search by name or file id" value={draft.q} onInput={set('q')} />
        </label>
        <button type="submit">Search</button>
      </div>
      <details>
        <summary>Filters</summary>
        <div class="filter-grid">
          <label>
            Type
            <select value={draft.type} onChange={set('type')}>
              <option value="">Any type</option>
              {types.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </label>
          <label>
            Visibility
            <select value={draft.isPublic} onChange={set('isPublic')}>
              <option value="">Public and private</option>
              <option value="true">Public only</option>
              <option value="false">Private only</option>
            </select>
          </label>
          <label>
            Min size (MiB)
            <input type="number" min="0" step="any" inputMode="decimal" value={draft.sizeMinMiB} onInput={set('sizeMinMiB')} />
          </label>
          <label>
            Max size (MiB)
            <input type="number" min="0" step="any" inputMode="decimal" value={draft.sizeMaxMiB} onInput={set('sizeMaxMiB')} />
          </label>
          <label>
            Uploaded from
            <input type="date" value={draft.createdAfter} onInput={set('createdAfter')} />
          </label>
          <label>
            Uploaded until
            <input type="date" value={draft.createdBefore} onInput={set('createdBefore')} />
          </label>
        </div>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => onApply(NO_FILTERS)}>
            Clear
          </button>
          <button type="submit">Apply filters</button>
        </div>
      </details>
    </form>
  );
}

/** Image types the server makes thumbnails of (docs/images.md). */
const THUMBNAIL_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'image/tiff']);

/** A padlock drawn inline (no emoji font needed), sized by the text around it. */
function LockIcon() {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="1.6em" height="1.6em" aria-hidden="true" focusable="false">
      <path d="M7 10V7a5 5 0 0 1 10 0v3" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
      <rect x="4.5" y="10" width="15" height="11" rx="2" fill="currentColor" />
      <circle cx="12" cy="15.5" r="1.6" fill="var(--panel)" />
    </svg>
  );
}

/**
 * A tile's picture: the owner's thumbnail (GET /files/:id/thumbnail with the session, not metered,
 * private files too) as a blob: URL; a type label, or a padlock for a private file, otherwise.
 */
function Thumbnail({ file }: { file: HangarFile }) {
  const [src, setSrc] = useState<string>();
  const [failed, setFailed] = useState(false);
  const wanted = THUMBNAIL_TYPES.has(file.content_type ?? '');
  useEffect(() => {
    if (!wanted) return;
    let url: string | undefined;
    let live = true;
    apiBlob(`/files/${encodeURIComponent(file.file_id)}/thumbnail`).then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setSrc(url);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [file.file_id, wanted]);
  if (!wanted || failed || !src) {
    const extension = /\.([A-Za-z0-9]{1,5})$/.exec(file.name ?? '')?.[1];
    const kind = extension ?? file.content_type?.split('/')[1]?.split(/[.+;-]/)[0] ?? 'file';
    return (
      <span class="thumb thumb-icon" aria-hidden="true">
        {wanted && !failed ? '' : file.is_public ? kind.slice(0, 4).toUpperCase() : <LockIcon />}
      </span>
    );
  }
  return <img class="thumb" src={src} alt="" decoding="async" onError={() => setFailed(true)} />;
}

function FileCard({ file, selected, onToggle, onOpen }: { file: HangarFile; selected: boolean; onToggle: () => void; onOpen: () => void }) {
  const name = file.name ?? file.file_id;
  return (
    <li class={`file-card${selected ? ' selected' : ''}`}>
      <input type="checkbox" class="card-check" aria-label={`Select ${name}`} checked={selected} onChange={onToggle} />
      <button type="button" class="card-open" onClick={onOpen} aria-label={`Details of ${name}`}>
        <Thumbnail file={file} />
      </button>
      <div class="card-body">
        <p class="card-name" title={name}>
          {name}
        </p>
        <p class="muted small">
          {formatBytes(file.size)} · <span title={formatDateTime(file.created_at)}>{formatRelative(file.created_at)}</span>
          {!file.is_public && ' · Private'}
        </p>
        {file.public_url && file.public_download_url && (
          <div class="card-actions">
            <CopyButton text={file.public_url} label="Copy link" />
            <CopyButton text={file.public_download_url} label="Copy download" />
          </div>
        )}
      </div>
    </li>
  );
}

function AddressRow({ label, url }: { label: string; url: string | null }) {
  if (!url) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd class="address">
        <a href={url} target="_blank" rel="noopener noreferrer">
          {url}
        </a>
        <CopyButton text={url} />
      </dd>
    </>
  );
}

function FileDetails({
  file,
  onClose,
  onDeleted,
  onChanged,
}: {
  file: HangarFile;
  onClose: () => void;
  onDeleted: () => void;
  onChanged: (file: HangarFile) => void;
}) {
  const [confirm, setConfirm] = useState(false);
  if (confirm) {
    return (
      <ConfirmDialog
        title="Delete file"
        message={<p>Delete {file.name ?? file.file_id}? Its addresses stop working at once. This cannot be undone.</p>}
        confirmLabel="Delete"
        onConfirm={async () => {
          await api(`/files/${encodeURIComponent(file.file_id)}`, { method: 'DELETE' });
          onDeleted();
        }}
        onClose={() => setConfirm(false)}
      />
    );
  }
  return (
    <Dialog title={file.name ?? file.file_id} onClose={onClose}>
      <div class="details">
        <Thumbnail file={file} />
        <dl>
          <dt>File id</dt>
          <dd>
            <code>{file.file_id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{file.content_type ?? '—'}</dd>
          <dt>Size</dt>
          <dd>
            {formatBytes(file.size)} {file.size !== null && <span class="muted">({file.size.toLocaleString()} bytes)</span>}
          </dd>
          {file.metadata_removed && file.metadata_removed.length > 0 && (
            <>
              <dt>Metadata removed</dt>
              <dd>{file.metadata_removed.map((kind) => (kind === 'location' ? 'location (GPS)' : kind.toUpperCase())).join(', ')}</dd>
            </>
          )}
          <dt>Uploaded</dt>
          <dd>
            {formatDateTime(file.created_at)} <span class="muted">({formatRelative(file.created_at)})</span>
          </dd>
          <dt>Visibility</dt>
          <dd>{file.is_public ? 'Public: anyone with the address can open it' : 'Private: no public address'}</dd>
          <AddressRow label="View address" url={file.public_url} />
          <AddressRow label="Download address" url={file.public_download_url} />
          {file.default_url !== file.public_url && <AddressRow label="Default view address" url={file.default_url} />}
        </dl>
      </div>
      <FileControls file={file} onChanged={onChanged} />
      <div class="actions">
        <button type="button" class="danger" onClick={() => setConfirm(true)}>
          Delete file
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

interface UploadItem {
  id: number;
  name: string;
  size: number;
  progress: number;
  /** `paused` and `interrupted` only happen to resumable uploads (files above RESUMABLE_THRESHOLD_BYTES). */
  state: 'uploading' | 'paused' | 'interrupted' | 'done' | 'refused';
  resumable?: boolean;
  message?: string;
  url?: string | null;
}

/** A clear sentence for an upload the service refused (spec 4.8: 400, 403, 413). */
function refusal(error: unknown, file: File): string {
  if (!(error instanceof ApiError)) return String(error);
  const details = error.details as { max_upload_size_bytes?: number } | undefined;
  switch (error.code) {
    case 'FILE_TOO_LARGE':
      return `Too large: ${formatBytes(file.size)}${details?.max_upload_size_bytes ? `, the limit is ${formatBytes(details.max_upload_size_bytes)}` : ''}. ${error.message}`;
    case 'CONTENT_TYPE_NOT_ALLOWED':
      return `Type not allowed: ${file.type || 'unknown type'}.`;
    case 'STORAGE_LIMIT_REACHED':
    case 'FILE_COUNT_LIMIT_REACHED':
      return `Quota reached: ${error.message}`;
    case 'TRIAL_ENDED':
      return `Trial ended: ${error.message}`;
    default:
      return error.message;
  }
}

let nextUploadId = 1;

function Uploader({ allowedTypes, maxBytes, onUploaded }: { allowedTypes?: string[]; maxBytes?: number; onUploaded: () => void }) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const [isPrivate, setPrivate] = useState(false);
  const [expiresIn, setExpiresIn] = useState(0);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const resumables = useRef(new Map<number, ResumableHandle>());
  const [unfinishedKey, setUnfinishedKey] = useState(0);
  const update = (id: number, change: Partial<UploadItem>) => setItems((all) => all.map((item) => (item.id === id ? { ...item, ...change } : item)));

  const start = (files: File[]) => {
    for (const file of files) {
      const id = nextUploadId++;
      const item: UploadItem = { id, name: file.name, size: file.size, progress: 0, state: 'uploading' };
      // Refuse early what the service would refuse, without sending the bytes.
      const type = file.type || 'application/octet-stream';
      if (allowedTypes && !allowedTypes.includes(type)) Object.assign(item, { state: 'refused', message: `Type not allowed: ${file.type || 'unknown type'}.` });
      else if (maxBytes !== undefined && file.size > maxBytes) {
        Object.assign(item, { state: 'refused', message: `Too large: ${formatBytes(file.size)}, the limit is ${formatBytes(maxBytes)}.` });
      } else if (file.size === 0) Object.assign(item, { state: 'refused', message: 'The file is empty.' });
      setItems((all) => [item, ...all].slice(0, 20));
      if (item.state === 'refused') continue;
      const uploadOptions = { isPublic: !isPrivate, expiresIn: expiresIn || undefined };
      let done: Promise<unknown>;
      if (file.size > RESUMABLE_THRESHOLD_BYTES) {
        item.resumable = true;
        const handle = startResumableUpload(file, {
          ...uploadOptions,
          onProgress: (progress) => update(id, { progress }),
          onInterrupted: (error) => update(id, { state: 'interrupted', message: error.message }),
          onUrl: () => setUnfinishedKey((key) => key + 1),
        });
        resumables.current.set(id, handle);
        done = handle.done.finally(() => {
          resumables.current.delete(id);
          setUnfinishedKey((key) => key + 1);
        });
      } else {
        done = uploadFile(file, { ...uploadOptions, onProgress: (progress) => update(id, { progress }) }).done;
      }
      done.then(
        (body) => {
          update(id, { state: 'done', progress: 1, url: (body as { file: { public_url: string | null } }).file.public_url });
          onUploaded();
        },
        (error: unknown) => update(id, { state: 'refused', message: refusal(error, file) }),
      );
    }
  };

  return (
    <div
      class={`dropzone${dragging ? ' dragging' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        start([...(event.dataTransfer?.files ?? [])]);
      }}
    >
      <p>
        <strong>Drop files here</strong> or{' '}
        <label class="button file-button">
          choose files
          <input
            ref={input}
            type="file"
            multiple
            class="offscreen"
            onChange={() => {
              start([...(input.current?.files ?? [])]);
              if (input.current) input.current.value = '';
            }}
          />
        </label>
      </p>
      <p class="muted small">
        Up to {maxBytes === undefined ? '…' : formatBytes(maxBytes)} each.{' '}
        <label class="inline">
          <input type="checkbox" checked={isPrivate} onChange={() => setPrivate(!isPrivate)} /> Upload as private (no public address)
        </label>{' '}
        <label class="inline">
          Delete after{' '}
          <select
            aria-label="Delete uploads after"
            value={String(expiresIn)}
            onChange={(event) => setExpiresIn(Number((event.target as HTMLSelectElement).value))}
          >
            {FILE_EXPIRIES.map(([label, seconds]) => (
              <option value={String(seconds)}>{label}</option>
            ))}
          </select>
        </label>
      </p>
      <UnfinishedUploads refreshKey={unfinishedKey} running={[...resumables.current.values()].map((handle) => handle.url())} />
      {items.some((item) => item.state === 'done' || item.state === 'refused') && (
        <div class="uploads-head">
          <button
            type="button"
            class="secondary small"
            onClick={() => setItems((all) => all.filter((item) => item.state !== 'done' && item.state !== 'refused'))}
          >
            Clear finished
          </button>
        </div>
      )}
      {items.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {items.map((item) => (
            <li key={item.id} class={`upload upload-${item.state}`}>
              <span class="upload-name">{item.name}</span>
              <span class="muted small">{formatBytes(item.size)}</span>
              {item.state === 'refused' ? (
                <span class="upload-message" role="alert">
                  {item.message}
                </span>
              ) : (
                <progress max={1} value={item.progress} aria-label={`Upload of ${item.name}`}>
                  {Math.round(item.progress * 100)}%
                </progress>
              )}
              {item.resumable && (item.state === 'uploading' || item.state === 'paused' || item.state === 'interrupted') && (
                <ResumableControls
                  name={item.name}
                  paused={item.state !== 'uploading'}
                  onPause={() => {
                    resumables.current.get(item.id)?.pause();
                    update(item.id, { state: 'paused', message: undefined });
                  }}
                  onResume={() => {
                    resumables.current.get(item.id)?.resume();
                    update(item.id, { state: 'uploading', message: undefined });
                  }}
                />
              )}
              {(item.state === 'paused' || item.state === 'interrupted') && (
                <span class="upload-message" role="status">
                  {item.state === 'paused' ? 'Paused' : item.message}
                </span>
              )}
              {item.state === 'done' && (
                <span class="upload-message">
                  Uploaded
                  {item.url ? (
                    <>
                      {' '}
                      · <CopyButton text={item.url} label="Copy link" />
                    </>
                  ) : (
                    ''
                  )}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

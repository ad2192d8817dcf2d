#!/usr/bin/env bash
# Production-install smoke test (CI, .ci/run): the container image's /app, without a container
# runtime, and every command the docs name run in it.
# 1. Lays out the image's /app in a temporary directory from the Dockerfile's own COPY lines of its
#    last stage (parsed, not restated: a file the image lacks is missing here too), with what the
#    build stage does to two of them: dist/ without its tests, and node_modules as
#    `npm prune --omit=dev` leaves it (this tree's node_modules hard-linked, then pruned: the same
#    packages, without recompiling the native ones, offline, in seconds). No TypeScript, vite,
#    rolldown or mocha there, and no sources. `hangar` is put on the PATH as the Dockerfile's
#    `RUN ln -s` line does.
# 2. Starts the server with the image's command (its CMD, read from it), checks the start line, the
#    image's HEALTHCHECK command, /readyz, /version, a registration confirmed by e-mail and one
#    confirmed with `hangar users confirm`, an upload and its download, and three restarts to /readyz
#    (the best within 1 s, or ten times a bare node:http server's start on a busier machine).
# 3. The documented commands in that tree: `hangar --help`, `hangar --version`, `hangar users list`,
#    a refusal on a DATA_DIR without a database, `hangar backup`, `hangar restore` into a new
#    DATA_DIR and a server on it that serves the file byte for byte; then `npm start` and
#    `npm run cli -- --help`: neither tries to build.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/ensure-built.mjs
started=$(date +%s)

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "production-smoke: FAIL: $*" >&2; [ -f "$work/server.log" ] && tail -n 20 "$work/server.log" >&2; exit 1; }
step() { echo "production-smoke: $*"; }

app="$work/app"
image_path="$work/image-path"
mkdir -p "$app" "$image_path"

# The last stage of the Dockerfile, one line per thing to lay out:
#   copy <source relative to the build stage's WORKDIR> <destination relative to the last stage's WORKDIR>
#   link <target relative to the last stage's WORKDIR> <command name on the PATH>
# Exits 1 on a COPY it does not understand (not --from the build stage, or outside its WORKDIR).
dockerfile_layout() {
  node <<'JS'
const text = require('node:fs').readFileSync('Dockerfile', 'utf8').replace(/\\\n/g, ' ');
const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
const stages = [];
for (const line of lines) {
  const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?$/i.exec(line);
  if (from) stages.push({ name: from[1], workdir: '/', lines: [] });
  else if (stages.length > 0) stages[stages.length - 1].lines.push(line);
}
for (const stage of stages) for (const line of stage.lines) { const w = /^WORKDIR\s+(\S+)$/i.exec(line); if (w) stage.workdir = w[1]; }
const last = stages[stages.length - 1];
const path = require('node:path').posix;
const die = (message) => { console.error(`production-smoke: Dockerfile: ${message}`); process.exit(1); };
for (const line of last.lines) {
  const copy = /^COPY\s+(.*)$/i.exec(line);
  if (copy) {
    const words = copy[1].split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
    const args = words.filter((w) => !w.startsWith('--'));
    const source = stages.find((s) => s.name === from);
    if (!source) die(`${line}: only COPY --from=<an earlier stage> is understood`);
    const dest = args.pop();
    const intoDir = dest.endsWith('/') || args.length > 1;
    for (const src of args) {
      const relative = path.relative(source.workdir, src);
      if (relative.startsWith('..')) die(`${line}: ${src} is outside ${source.workdir}`);
      const target = path.resolve(last.workdir, intoDir ? path.join(dest, path.basename(src)) : dest);
      console.log(['copy', relative, path.relative(last.workdir, target)].join('\t'));
    }
  }
  for (const link of line.matchAll(/ln -s (\S+) (\S+)/g)) {
    if (path.dirname(link[2]) !== '/usr/local/bin') continue;
    console.log(['link', path.relative(last.workdir, link[1]), path.basename(link[2])].join('\t'));
  }
}
JS
}
mapfile -t layout < <(dockerfile_layout || echo FAILED)
[ "${#layout[@]}" -gt 0 ] && [ "${layout[-1]}" != FAILED ] || fail "cannot read the Dockerfile's last stage"

step "laying out the image's /app in $app from the Dockerfile's COPY lines"
for entry in "${layout[@]}"; do
  IFS=$'\t' read -r kind from to <<<"$entry"
  case "$kind" in
    copy)
      step "  COPY $from -> /app/$to"
      mkdir -p "$(dirname "$app/$to")"
      case "$from" in
        node_modules)
          # The real directory, when node_modules is a symbolic link to a shared tree: a copy of the link
          # would let the removals below (and npm prune) reach the shared tree itself.
          cp -al "$(realpath node_modules)" "$app/$to"
          [ ! -L "$app/$to" ] || fail "$app/$to is a link, not a copy"
          # npm rewrites its own record of the tree: give the copy a file of its own.
          rm -f "$app/$to/.package-lock.json" && cp node_modules/.package-lock.json "$app/$to/"
          ;;
        dist)
          # The build stage removes dist/test before the COPY.
          mkdir -p "$app/$to"
          for built in dist/*; do [ "$built" = dist/test ] || cp -a "$built" "$app/$to/"; done
          ;;
        *)
          [ -e "$from" ] || fail "the Dockerfile copies $from, which this tree does not have"
          cp -a "$from" "$app/$to"
          ;;
      esac
      ;;
    link)
      [ -e "$app/$from" ] || fail "the Dockerfile links $to to /app/$from, which the image does not have"
      ln -s "$app/$from" "$image_path/$to"
      step "  hangar on the PATH: $to -> /app/$from"
      ;;
  esac
done
[ -x "$image_path/hangar" ] || fail "the Dockerfile puts no executable hangar on the PATH"
# The build stage's `npm prune --omit=dev`, on the copied tree.
(cd "$app" && npm prune --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
# npm prune rewrites the lockfile (npm ci never does): the release's own, as shipped.
cp -p package-lock.json "$app/"
for dev in typescript rolldown vite mocha chai; do
  [ ! -e "$app/node_modules/$dev" ] || fail "development dependency $dev is still installed"
done
# Commands as the image runs them: hangar from its PATH, in /app.
PATH="$image_path:$PATH"
in_app() { (cd "$app" && "$@"); }

free_ports() { node -e 'const net = require("node:net"); const take = () => new Promise((ok) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => ok(port)); }); }); Promise.all([take(), take()]).then((ports) => console.log(ports.join(" ")));'; }
read -r PORT CONTENT_PORT < <(free_ports)
export PORT CONTENT_PORT HOST=127.0.0.1 DATA_DIR="$work/data" WORKERS=2 LOG_FORMAT=json PASSWORD_HASH_MEMORY_KIB=1024
API=http://127.0.0.1:$PORT
CDN=http://127.0.0.1:$CONTENT_PORT

# await_ready PID: polls /readyz of both ports every 20 ms (at most 400 times) until both answer 200;
# fails if PID exits first.
await_ready() {
  for _ in $(seq 1 400); do
    curl -fsS "$API/readyz" >/dev/null 2>&1 && curl -fsS "$CDN/readyz" >/dev/null 2>&1 && return
    kill -0 "$1" 2>/dev/null || fail "process $1 exited before answering"
    sleep 0.02
  done
}
# start COMMAND...: starts the server in the production tree; sets ready_ms to the ms until /readyz answered 200.
start() {
  local t0 t1
  t0=$(date +%s%N)
  (cd "$app" && exec "$@") >>"$work/server.log" 2>&1 &
  server_pid=$!
  await_ready "$server_pid"
  curl -fsS "$API/readyz" >/dev/null || fail "/readyz"
  t1=$(date +%s%N)
  ready_ms=$(((t1 - t0) / 1000000))
}
# stop [any]: SIGTERM, and a clean exit (0) expected unless "any" (a supervisor stopped while its
# workers still start exits 1, by design).
stop() {
  kill "$server_pid"
  wait "$server_pid" || [ "${1:-}" = any ] || fail "the server did not stop cleanly"
  server_pid=
}

# The arguments of the Dockerfile's CMD (CMD) or of its HEALTHCHECK's CMD (HEALTHCHECK), one a line.
dockerfile_command() {
  node - "$1" <<'JS'
const pattern = process.argv[2] === 'CMD' ? /^CMD (\[.*\])$/m : /^HEALTHCHECK .*CMD (\[.*\])$/m;
const match = pattern.exec(require('node:fs').readFileSync('Dockerfile', 'utf8'));
if (!match) process.exit(1);
for (const arg of JSON.parse(match[1])) console.log(arg);
JS
}
mapfile -t image_cmd < <(dockerfile_command CMD)
[ "${#image_cmd[@]}" -gt 0 ] || fail "no CMD in the Dockerfile"
mapfile -t health_cmd < <(dockerfile_command HEALTHCHECK)
[ "${#health_cmd[@]}" -gt 0 ] || fail "no HEALTHCHECK in the Dockerfile"

step "starting: ${image_cmd[*]} (the image's command), WORKERS=2"
start "${image_cmd[@]}"
(cd "$app" && "${health_cmd[@]}") || fail "the image's HEALTHCHECK command failed"
step "ready after ${ready_ms} ms (first start: migrations)"
# The supervisor prints its addresses once every worker listens: worker 0 answers /readyz first, and
# the others start after it (decision 0024), so the line may come a moment after the first answer.
for _ in $(seq 1 300); do
  grep -q 'hangar: API on' "$work/server.log" && break
  sleep 0.05
done
grep -qF "hangar: API on http://127.0.0.1:$PORT (this machine only; public URL http://localhost:$PORT)" "$work/server.log" \
  || fail "the start line does not name the address bound and the public URL: $(grep -m1 'API on' "$work/server.log")"
version=$(curl -fsS "$API/version")
grep -q '"version":"' <<<"$version" || fail "/version: $version"

step "register, confirm, log in, upload, download"
email="prod-$RANDOM@example.com"
field() { node -e 'let v=JSON.parse(process.argv[1]); for (const k of process.argv[2].split(".")) v=v?.[k]; process.stdout.write(String(v))' "$1" "$2"; }
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$API/auth/register" -H 'content-type: application/json' -d "{\"email\":\"$email\",\"password\":\"correct horse\"}")
[ "$code" = 201 ] || fail "register answered $code"
link=
for _ in $(seq 1 50); do
  link=$(grep -rhoE "/auth/confirm\?token=[0-9A-Za-z]+" "$DATA_DIR/outbox" 2>/dev/null | head -n1 || true)
  [ -n "$link" ] && break
  sleep 0.1
done
[ -n "$link" ] || fail "no confirmation e-mail"
[ "$(curl -sS -o /dev/null -w '%{http_code}' "$API$link")" = 302 ] || fail "confirm"
jwt=$(field "$(curl -fsS -X POST "$API/auth/login" -H 'content-type: application/json' -d "{\"email\":\"$email\",\"password\":\"correct horse\"}")" session.access_token)
printf 'plain text from a production install\n' >"$work/note.txt"
out=$(curl -fsS -X POST "$API/files" -H "authorization: Bearer $jwt" -H 'content-type: text/plain' -H 'x-file-name: note.txt' --data-binary "@$work/note.txt")
id=$(field "$out" file.file_id)
curl -fsS "$CDN/d/$id" -o "$work/back.txt" || fail "download"
cmp -s "$work/note.txt" "$work/back.txt" || fail "the download differs from the upload"
# The first account of a server without mail: confirmed with the CLI, as docs/deployment.md says.
second="first-$RANDOM@example.com"
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$API/auth/register" -H 'content-type: application/json' -d "{\"email\":\"$second\",\"password\":\"correct horse\"}")
[ "$code" = 201 ] || fail "register answered $code"
in_app hangar users confirm "$second" | grep -q "^$second: e-mail address confirmed" || fail "hangar users confirm"
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$API/auth/login" -H 'content-type: application/json' -d "{\"email\":\"$second\",\"password\":\"correct horse\"}")
[ "$code" = 200 ] || fail "log in after hangar users confirm answered $code"
stop

step "restart to first answer"
# bare_start: a bare node:http server answering 200 on both ports, started and polled as start()
# polls the service (await_ready); sets bare_ms. The baseline of the restart bound below, from the same run.
bare_start() {
  local t0 t1 pid
  t0=$(date +%s%N)
  node -e 'const http = require("node:http"); for (const port of [process.env.PORT, process.env.CONTENT_PORT]) http.createServer((q, s) => s.end("ok")).listen(Number(port), "127.0.0.1");' &
  pid=$!
  await_ready "$pid"
  t1=$(date +%s%N)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  bare_ms=$(((t1 - t0) / 1000000))
}
best=
bare_best=
for _ in 1 2 3; do
  start "${image_cmd[@]}"
  stop any
  bare_start
  step "ready again after ${ready_ms} ms (a bare node:http server: ${bare_ms} ms)"
  [ -z "$best" ] || [ "$ready_ms" -lt "$best" ] && best=$ready_ms
  [ -z "$bare_best" ] || [ "$bare_ms" -lt "$bare_best" ] && bare_best=$bare_ms
done
# Issue 59: a restart with two workers answers within 1 s. A bare server started and polled the same
# way takes 60-120 ms on a quiet machine; on a busier one the bound grows with it (ten times the bare
# server's best), so what fails is the service getting slower, not the machine being busy.
bound=$((bare_best * 10 > 1000 ? bare_best * 10 : 1000))
step "best restart to /readyz: ${best} ms (bound ${bound} ms; the bench's startup scenario measures it too)"
[ "$best" -le "$bound" ] || fail "a restart took ${best} ms at best, over ${bound} ms (a bare node:http server: ${bare_best} ms)"

step "hangar --help, --version, users list, a refusal, backup and restore in the image's tree"
in_app hangar --help | head -n1 | grep -q '^Hangar admin CLI' || fail "hangar --help"
in_app hangar --version | grep -q '^hangar ' || fail "hangar --version: $(in_app hangar --version 2>&1)"
in_app hangar users list | grep -qF "$email" || fail "hangar users list does not list $email"
in_app hangar users list | grep -qF "$second" || fail "hangar users list does not list $second"
if out=$(cd "$app" && DATA_DIR="$work/typo" hangar users list 2>&1); then fail "hangar users list on a DATA_DIR without a database succeeded: $out"; fi
grep -q "no Hangar database at $work/typo/hangar.db" <<<"$out" || fail "the refusal of an empty DATA_DIR: $out"
[ ! -e "$work/typo" ] || fail "a refused command created $work/typo"
out=$(in_app hangar backup "$work/backup") || fail "hangar backup: $out"
grep -q '^Backed up 2 accounts and 1 file ' <<<"$out" || fail "hangar backup reported: $out"
out=$(cd "$app" && DATA_DIR="$work/restored" hangar restore "$work/backup") || fail "hangar restore: $out"
(cd "$app" && DATA_DIR="$work/restored" hangar users list) | grep -qF "$email" || fail "the restored data lacks $email"
DATA_DIR="$work/restored" start "${image_cmd[@]}"
curl -fsS "$CDN/d/$id" -o "$work/restored.txt" || fail "download from the restored data"
cmp -s "$work/note.txt" "$work/restored.txt" || fail "the file served from the restored data differs from the upload"
# Its second worker may still be starting (the first answered): exit 1 by design then.
stop any

step "npm start and npm run cli -- --help in the production tree: no build"
: >"$work/server.log"
start npm start --silent
grep -q 'building' "$work/server.log" && fail "npm start tried to build"
stop any
(cd "$app" && npm run -s cli -- --help) | grep -q '^Hangar admin CLI' || fail "npm run cli -- --help"

step "passed in $(($(date +%s) - started)) s"

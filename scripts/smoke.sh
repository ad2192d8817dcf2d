#!/usr/bin/env bash
# Smoke test: starts the service the way the README says (npm start, embedded defaults in a
# temporary DATA_DIR), runs the curl walkthrough of docs/api.md and the README's ten-line tour
# verbatim (each the sh block after its marker comment) and checks what they printed and saved,
# then uploads real files (a PNG, a PDF and a 200 MiB video) and reads them back. Exits non-zero on
# the first step that does not behave.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
export DATA_DIR="$work/data" HOST=127.0.0.1
# Two ports the OS reports free (a random pick once hit another service's port on this machine).
free_ports() { node -e 'const net = require("node:net"); const take = () => new Promise((ok) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => ok(port)); }); }); Promise.all([take(), take()]).then((ports) => console.log(ports.join(" ")));'; }
read -r FREE_API FREE_CONTENT < <(free_ports)
export PORT=${SMOKE_PORT:-$FREE_API}
export CONTENT_PORT=${SMOKE_PORT:+$((SMOKE_PORT + 1))}
export CONTENT_PORT=${CONTENT_PORT:-$FREE_CONTENT}
API=http://127.0.0.1:$PORT
CDN=http://127.0.0.1:$CONTENT_PORT
# The mailed links and File addresses name the addresses the walkthrough calls.
export PUBLIC_API_URL=$API PUBLIC_CONTENT_URL=$CDN
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "smoke: FAIL: $*" >&2; [ -f "$work/server.log" ] && tail -n 20 "$work/server.log" >&2; exit 1; }
step() { echo "smoke: $*"; }
# field JSON PATH: prints one field of a JSON document (node, so no jq is needed).
field() { node -e 'let v=JSON.parse(process.argv[1]); for (const k of process.argv[2].split(".")) v=v?.[k]; process.stdout.write(String(v))' "$1" "$2"; }

step "starting: npm start (DATA_DIR=$DATA_DIR, PORT=$PORT, CONTENT_PORT=$CONTENT_PORT)"
npm start --silent >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  curl -fsS "$API/healthz" >/dev/null 2>&1 && curl -fsS "$CDN/healthz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || fail "server exited"
  sleep 0.5
done
curl -fsS "$API/healthz" >/dev/null || fail "API /healthz"

step "make real files: a PNG and a PDF for the walkthrough"
walk="$work/walkthrough"
mkdir -p "$walk"
node --input-type=module -e "
import { makePng, makePdf } from './dist/test/support/bytes.js';
import { writeFileSync } from 'node:fs';
writeFileSync('$walk/cat.png', makePng(32, 32));
writeFileSync('$walk/resume.pdf', makePdf('Hangar walkthrough'));"

# marked_block FILE: the sh block after the marker comment of FILE ("scripts/smoke.sh runs the next sh
# block verbatim"), which the file keeps self-contained.
marked_block() {
  awk '/<!-- scripts\/smoke.sh runs the next sh block verbatim/ { marked = 1; next }
    marked && !inside && /^```sh$/ { inside = 1; next }
    inside && /^```$/ { exit }
    inside { print }' "$1"
}

# The walkthrough of docs/api.md, verbatim. It runs in this shell (so its variables, KEY, PNG_ID and
# PDF_ID, can be checked), in a folder holding cat.png and resume.pdf, with API, CDN and DATA_DIR
# pointing at this server; its output is checked below.
block=$(marked_block docs/api.md)
[ -n "$block" ] || fail "no walkthrough block after the marker in docs/api.md"
step "the walkthrough of docs/api.md ($(wc -l <<<"$block") lines, run verbatim in $walk)"
trap 'echo "smoke: FAIL: the walkthrough stopped at: $BASH_COMMAND" >&2' ERR
pushd "$walk" >/dev/null
eval "$block" >"$work/walkthrough.out"
popd >/dev/null
trap - ERR
sed 's/^/smoke:   | /' "$work/walkthrough.out"
out="$work/walkthrough.out"
[[ "$KEY" == hgr_* ]] || fail "walkthrough: no API key ($KEY)"
[ -n "$PNG_ID" ] && [ -n "$PDF_ID" ] || fail "walkthrough: uploads gave no file ids"
[ "$(sed -n 2p "$out")" = 302 ] || fail "walkthrough: the confirmation link did not answer 302"
grep -q "\"file_id\":\"$PNG_ID\"" "$out" || fail "walkthrough: the list and get do not show the PNG"
cmp -s "$walk/cat.png" "$walk/view.png" || fail "walkthrough: /m bytes differ from cat.png"
cmp -s "$walk/cat.png" "$walk/download.png" || fail "walkthrough: /d bytes differ from cat.png"
grep -qiF 'content-disposition: attachment; filename="cat.png"' "$out" || fail "walkthrough: /d is not an attachment named cat.png"
[ "$(tail -n3 "$out" | head -n1)" = 404 ] || fail "walkthrough: the private PDF did not answer 404 on the content server"
cmp -s "$walk/resume.pdf" "$walk/resume-copy.pdf" || fail "walkthrough: the owner's download of the private PDF differs from resume.pdf"
[[ "$SIGNED" == "$CDN/"* ]] || fail "walkthrough: no signed URL on the content origin ($SIGNED)"
cmp -s "$walk/resume.pdf" "$walk/signed.pdf" || fail "walkthrough: the signed URL's bytes differ from resume.pdf"
[ "$(tail -n2 "$out" | head -n1)" = 204 ] || fail "walkthrough: delete did not answer 204"
bulk=$(tail -n1 "$out")
[ "$(field "$bulk" deleted)" = 1 ] && [ "$(field "$bulk" errors.0.id)" = "$PNG_ID" ] || fail "walkthrough: bulk delete: $bulk"
key=$KEY

# The README's ten-line tour, verbatim, the same way (another account; its own output file).
tour=$(marked_block README.md)
[ -n "$tour" ] || fail "no tour block after the marker in README.md"
step "the README's tour ($(wc -l <<<"$tour") lines, run verbatim in $walk)"
trap 'echo "smoke: FAIL: the tour stopped at: $BASH_COMMAND" >&2' ERR
pushd "$walk" >/dev/null
eval "$tour" >"$work/tour.out"
popd >/dev/null
trap - ERR
sed 's/^/smoke:   | /' "$work/tour.out"
[[ "$KEY" == hgr_* ]] || fail "tour: no API key ($KEY)"
[ "$(sed -n 2p "$work/tour.out")" = 302 ] || fail "tour: the confirmation link did not answer 302"
[[ "$URL" == "$CDN/m/$ID" ]] || fail "tour: the public address is not on the content server ($URL)"
cmp -s "$walk/cat.png" "$walk/tour-view.png" || fail "tour: the public address's bytes differ from cat.png"
[[ "$SHARE" == "$CDN/share/"* ]] || fail "tour: no share link on the content origin ($SHARE)"
[ "$(curl -sS -o /dev/null -w '%{http_code}' "$SHARE")" = 200 ] || fail "tour: the share page did not answer 200"

step "make real files: PNG, PDF, 200 MiB video"
node --input-type=module -e "
import { makePng, makePdf } from './dist/test/support/bytes.js';
import { writeFileSync } from 'node:fs';
writeFileSync('$work/pixel.png', makePng(64, 64));
writeFileSync('$work/doc.pdf', makePdf('Hangar smoke'));"
# An MP4 "ftyp" box (brand isom) first: uploads must carry their type's signature (CONTENT_TYPE_MISMATCH otherwise).
{ printf '\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2'; head -c $((200 * 1024 * 1024 - 24)) /dev/urandom; } >"$work/video.mp4"

declare -A ids
for spec in "pixel.png image/png" "doc.pdf application/pdf" "video.mp4 video/mp4"; do
  set -- $spec
  step "upload $1 ($2)"
  out=$(curl -sS -w '\n%{http_code}' -X POST "$API/files" -H "authorization: Bearer $key" -H "content-type: $2" -H "x-file-name: $1" --data-binary "@$work/$1")
  [ "$(tail -n1 <<<"$out")" = 201 ] || fail "upload $1: $out"
  body=$(head -n -1 <<<"$out")
  ids[$1]=$(field "$body" file.file_id)
  [ "$(field "$body" file.size)" = "$(stat -c %s "$work/$1")" ] || fail "size of $1"
  step "  /m and /d give the same bytes back"
  curl -fsS "$CDN/m/${ids[$1]}" -o "$work/$1.view"
  curl -fsS "$CDN/d/${ids[$1]}" -o "$work/$1.download"
  cmp -s "$work/$1" "$work/$1.view" || fail "/m bytes differ for $1"
  cmp -s "$work/$1" "$work/$1.download" || fail "/d bytes differ for $1"
done

step "list, filter, get"
list=$(curl -fsS "$API/files" -H "x-api-key: $key")
[ "$(field "$list" total)" = 3 ] || fail "list total: $list"
pdfs=$(curl -fsS "$API/files?type=application/pdf" -H "x-api-key: $key")
[ "$(field "$pdfs" files.0.file_id)" = "${ids[doc.pdf]}" ] || fail "filter by type: $pdfs"
got=$(curl -fsS "$API/files/${ids[pixel.png]}" -H "x-api-key: $key")
[ "$(field "$got" name)" = pixel.png ] || fail "get: $got"

step "delete one, bulk-delete the rest"
[ "$(curl -sS -o /dev/null -w '%{http_code}' -X DELETE "$API/files/${ids[pixel.png]}" -H "x-api-key: $key")" = 204 ] || fail "delete"
[ "$(curl -sS -o /dev/null -w '%{http_code}' "$CDN/m/${ids[pixel.png]}")" = 404 ] || fail "deleted file still served"
bulk=$(curl -fsS -X POST "$API/files/bulk-delete" -H "x-api-key: $key" -H 'content-type: application/json' -d "{\"ids\":[\"${ids[doc.pdf]}\",\"${ids[video.mp4]}\"]}")
[ "$(field "$bulk" deleted)" = 2 ] || fail "bulk delete: $bulk"
[ "$(field "$(curl -fsS "$API/files" -H "x-api-key: $key")" total)" = 0 ] || fail "files left after bulk delete"

step "SIGTERM stops the server cleanly"
# npm forwards the signal to the server; the server says when it has finished.
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=
grep -q "hangar: stopped" "$work/server.log" || fail "no clean stop in the log"
echo "smoke: OK"

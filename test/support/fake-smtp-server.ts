import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One message as the fake server received it. */
export interface ReceivedSmtpMessage {
  /** Address from `MAIL FROM:<…>`. */
  from: string;
  /** Addresses from each `RCPT TO:<…>`. */
  to: string[];
  /** The DATA section with dot-stuffing undone, CRLF line ends, without the final `.` line. */
  raw: string;
}

/** Behaviour knobs of {@link FakeSmtpServer}. */
export interface FakeSmtpServerOptions {
  /** Never send the 220 greeting (to test client timeouts). */
  silent?: boolean;
}

/**
 * Just enough of an SMTP server (RFC 5321) for tests, on 127.0.0.1 and a free port: 220 greeting,
 * EHLO/HELO, MAIL FROM, RCPT TO, DATA (354 … `.`), RSET, NOOP, QUIT. No TLS, no AUTH (it does not
 * advertise them). Records every accepted message in {@link FakeSmtpServer.messages}.
 */
export class FakeSmtpServer {
  /** Accepted messages, oldest first. */
  readonly messages: ReceivedSmtpMessage[] = [];
  /** Answer the next N `MAIL FROM` commands with `451` (a temporary failure) instead of 250. */
  failNext = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly options: FakeSmtpServerOptions) {
    this.server = createServer((socket) => this.session(socket));
  }

  /** Starts a server; resolves once it listens. */
  static async start(options: FakeSmtpServerOptions = {}): Promise<FakeSmtpServer> {
    const fake = new FakeSmtpServer(options);
    await new Promise<void>((resolve, reject) => {
      fake.server.once('error', reject);
      fake.server.listen(0, '127.0.0.1', () => resolve());
    });
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `smtp://127.0.0.1:<port>` */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Stops listening and drops every open connection. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private session(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    const reply = (line: string) => socket.write(`${line}\r\n`);
    if (this.options.silent) return;

    let buffered = '';
    let envelope: { from: string; to: string[] } | undefined;
    let data: string[] | undefined;

    const handle = (line: string) => {
      if (data) {
        if (line === '.') {
          this.messages.push({ from: envelope!.from, to: envelope!.to, raw: data.map((l) => `${l}\r\n`).join('') });
          data = undefined;
          envelope = undefined;
          reply('250 2.0.0 OK: queued');
        } else {
          data.push(line.startsWith('.') ? line.slice(1) : line);
        }
        return;
      }
      const verb = line.slice(0, 4).toUpperCase();
      const argument = /<([^>]*)>/.exec(line)?.[1] ?? '';
      switch (verb) {
        case 'EHLO':
          reply('250-fake-smtp greets you');
          reply('250 8BITMIME');
          break;
        case 'HELO':
          reply('250 fake-smtp');
          break;
        case 'MAIL':
          if (this.failNext > 0) {
            this.failNext -= 1;
            reply('451 4.3.0 Try again later');
            break;
          }
          envelope = { from: argument, to: [] };
          reply('250 2.1.0 OK');
          break;
        case 'RCPT':
          if (!envelope) {
            reply('503 5.5.1 MAIL first');
            break;
          }
          envelope.to.push(argument);
          reply('250 2.1.5 OK');
          break;
        case 'DATA':
          if (!envelope || envelope.to.length === 0) {
            reply('503 5.5.1 RCPT first');
            break;
          }
          data = [];
          reply('354 End data with <CR><LF>.<CR><LF>');
          break;
        case 'RSET':
          envelope = undefined;
          reply('250 2.0.0 OK');
          break;
        case 'NOOP':
          reply('250 2.0.0 OK');
          break;
        case 'QUIT':
          reply('221 2.0.0 Bye');
          socket.end();
          break;
        default:
          reply('502 5.5.2 Command not implemented');
      }
    };

    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\r\n'); end !== -1; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        handle(line);
      }
    });
    reply('220 fake-smtp ESMTP ready');
  }
}

/** The parts of a received MIME message a test compares. */
export interface ParsedMail {
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
}

/**
 * Decodes what nodemailer sends: headers (unfolded; RFC 2047 encoded words in Subject), a
 * multipart/alternative body or a single part, each part in 7bit, 8bit, quoted-printable or base64,
 * UTF-8. Line ends come back as `\n`. Enough for tests, not a general MIME parser.
 */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitEntity(raw);
  const parts: Array<{ type: string; content: string }> = [];
  collectParts(headers, body, parts);
  return {
    headers,
    subject: decodeWords(headers.get('subject') ?? ''),
    text: parts.find((part) => part.type === 'text/plain')?.content ?? '',
    html: parts.find((part) => part.type === 'text/html')?.content ?? '',
  };
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const separator = raw.indexOf('\r\n\r\n');
  const head = separator === -1 ? raw : raw.slice(0, separator);
  const body = separator === -1 ? '' : raw.slice(separator + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function collectParts(headers: Map<string, string>, body: string, parts: Array<{ type: string; content: string }>): void {
  const contentType = headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!boundary) return;
    const sections = body.split(`--${boundary}`).slice(1);
    for (const section of sections) {
      if (section.startsWith('--')) break;
      const entity = splitEntity(section.replace(/^\r\n/, '').replace(/\r\n$/, ''));
      collectParts(entity.headers, entity.body, parts);
    }
    return;
  }
  parts.push({ type, content: decodeBody(body, headers.get('content-transfer-encoding') ?? '7bit') });
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8').replace(/\r\n/g, '\n');
    case 'quoted-printable':
      return quotedPrintableBytes(body.replace(/=\r\n/g, '')).toString('utf8').replace(/\r\n/g, '\n');
    default:
      return body.replace(/\r\n/g, '\n');
  }
}

function quotedPrintableBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

/**
 * RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`). Adjacent words are joined (the space
 * between them dropped) and decoded as one byte sequence, since a character may straddle two words.
 */
function decodeWords(value: string): string {
  const word = /=\?[^?]+\?([BbQq])\?([^?]*)\?=/g;
  return value.replace(/=\?[^?]+\?[BbQq]\?[^?]*\?=(?:\s+=\?[^?]+\?[BbQq]\?[^?]*\?=)*/g, (run) => {
    const bytes: Buffer[] = [];
    for (const [, mode, encoded] of run.matchAll(word)) {
      bytes.push(mode.toUpperCase() === 'B' ? Buffer.from(encoded, 'base64') : quotedPrintableBytes(encoded.replace(/_/g, ' ')));
    }
    return Buffer.concat(bytes).toString('utf8');
  });
}

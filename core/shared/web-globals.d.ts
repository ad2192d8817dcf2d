// The core runs in any JavaScript host; these WHATWG globals exist in all of them
// (Node.js, Deno, Bun, browsers). Declared here so the core needs neither DOM nor Node types.
declare class URL {
  constructor(input: string, base?: string | URL);
  readonly href: string;
  readonly origin: string;
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly hostname: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
}
declare class AbortSignal {
  readonly aborted: boolean;
}
declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

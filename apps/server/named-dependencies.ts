import type { ServiceIdentifier } from 'inversify';

/** The values the tokens of `T` stand for, under the same names. */
export type ResolvedDependencies<T extends Record<string, ServiceIdentifier<unknown>>> = {
  [K in keyof T]: T[K] extends ServiceIdentifier<infer V> ? V : never;
};

/**
 * Arguments of inversify's `toResolvedValue` for a factory that takes its dependencies by name:
 * `tokens` names each dependency's token (`{ blobs: Tokens.BlobStore, … }`), and `build` receives
 * one object with the resolved values under those names, instead of a positional parameter list
 * matched by hand to an array of tokens.
 * @returns `[factory, tokens in order]`, to spread into `toResolvedValue(...)`
 */
export function namedDependencies<T extends Record<string, ServiceIdentifier<unknown>>, R>(
  tokens: T,
  build: (dependencies: ResolvedDependencies<T>) => R,
): [(...values: unknown[]) => R, ServiceIdentifier<unknown>[]] {
  const names = Object.keys(tokens) as (keyof T & string)[];
  return [
    (...values: unknown[]) => build(Object.fromEntries(names.map((name, at) => [name, values[at]])) as ResolvedDependencies<T>),
    names.map((name) => tokens[name]),
  ];
}

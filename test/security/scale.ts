// How hard the security suite pushes: `npm test` runs the fast numbers, `npm run test:long`
// (HANGAR_LONG=1) the full ones. docs/reliability.md (part II) records both.

/** True under `npm run test:long`. */
export const LONG = process.env.HANGAR_LONG === '1' || process.env.HANGAR_LONG === 'true';

/** `fast` normally, `long` under HANGAR_LONG. */
export function scaled(fast: number, long: number): number {
  return LONG ? long : fast;
}

/** A fixed fast-check seed unless FC_SEED is set, so a failure is reproducible from the printed seed. */
export const FC_SEED = process.env.FC_SEED === undefined ? 20261121 : Number(process.env.FC_SEED);

import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) of this process's children that have ended and been waited for,
 * theirs included (`cutime` and `cstime` of Linux's /proc/self/stat, proc(5), in clock ticks of
 * 1/100 s); 0 where there is no /proc. Used by the root hooks (`HANGAR_TEST_TIMES`) and by
 * scripts/test-passes.mjs, which imports the compiled file.
 */
export function childrenCpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

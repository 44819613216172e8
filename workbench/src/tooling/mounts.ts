// The machine's mount points, for taking away what a build or the real node mounted.
import { readFileSync } from 'node:fs';

/** Mount points (from /proc/self/mountinfo) under any of `roots`, deepest first. */
export function mountsUnder(roots: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const point = line.split(' ')[4];
    if (point === undefined) continue;
    const decoded = point.replace(/\\(\d{3})/g, (_, octal: string) =>
      String.fromCharCode(parseInt(octal, 8)),
    );
    if (roots.some((root) => decoded === root || decoded.startsWith(`${root}/`))) found.push(decoded);
  }
  return [...new Set(found)].sort((a, b) => b.length - a.length);
}

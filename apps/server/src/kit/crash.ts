/**
 * Fault injection for the crash tests: with `KASSA_CRASH_AT=<point>` in its environment, the
 * process kills itself with SIGKILL when it reaches `crashPoint(<point>)`, as a power cut
 * would, between two steps that must survive it (a charge and the record of its order, say).
 * Read once at start; ignored with NODE_ENV=production. The points are listed in README
 * ("What Kassa guarantees").
 */
const target = process.env.NODE_ENV === "production" ? undefined : process.env.KASSA_CRASH_AT || undefined;

export function crashPoint(point: string): void {
  if (target === point) process.kill(process.pid, "SIGKILL");
}

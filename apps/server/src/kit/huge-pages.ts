/**
 * glibc's tunable that has malloc ask the kernel for transparent huge pages on the blocks it
 * maps (glibc 2.35 and later; other C libraries and systems ignore the variable). Better Auth
 * hashes passwords with `node:crypto`'s scrypt, which allocates 32 MiB a hash through malloc:
 * on a kernel whose transparent huge pages are `madvise` (Ubuntu's and many VMs' default), each
 * hash otherwise faults in 8,192 small pages and the kernel zeroes them one by one, and a
 * sign-in costs over twice the CPU (docs/decisions.md, "Password hashes on huge pages").
 *
 * glibc reads the variable once, when the process starts, so it is set by whoever starts the
 * process: `npm start` for the first one, the cluster's primary for its workers.
 */
export const HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb=1";

/** `GLIBC_TUNABLES` with huge pages added, unless the value already says either way. */
export function withHugePages(tunables: string | undefined): string {
  if (!tunables) return HUGE_PAGES_TUNABLE;
  if (tunables.split(":").some((t) => t.startsWith("glibc.malloc.hugetlb="))) return tunables;
  return `${tunables}:${HUGE_PAGES_TUNABLE}`;
}

/** `GLIBC_TUNABLES` without any huge-pages setting (undefined when nothing else is left). */
export function withoutHugePages(tunables: string | undefined): string | undefined {
  const rest = (tunables ?? "")
    .split(":")
    .filter((t) => t && !t.startsWith("glibc.malloc.hugetlb="))
    .join(":");
  return rest || undefined;
}

/** A copy of `env` (this process's by default) whose `GLIBC_TUNABLES` is `tunables` (none if undefined). */
export function envWithTunables(
  tunables: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== "GLIBC_TUNABLES") out[k] = v;
  if (tunables !== undefined) out.GLIBC_TUNABLES = tunables;
  return out;
}

/** PostgreSQL's unique_violation (23505), as raised through pg or PGlite. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!error || typeof error !== "object") return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== "23505") return false;
  if (!constraint) return true;
  return e.constraint === constraint || (typeof e.message === "string" && e.message.includes(constraint));
}

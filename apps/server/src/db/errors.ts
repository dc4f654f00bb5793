/** PostgreSQL's unique_violation (23505), as raised through pg or PGlite. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!error || typeof error !== "object") return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== "23505") return false;
  if (!constraint) return true;
  return e.constraint === constraint || (typeof e.message === "string" && e.message.includes(constraint));
}

/** A database error that means the request's input was wrong, not that the server failed. */
export interface InputFault {
  /** taken: a unique value already in use; in_use: a row others still refer to; invalid: the rest. */
  kind: "taken" | "in_use" | "invalid";
  /** The column at fault when PostgreSQL names it (e.g. `slug`), else undefined. */
  column: string | undefined;
  /** The table, when PostgreSQL names it. */
  table: string | undefined;
  /** The constraint, when PostgreSQL names it. */
  constraint: string | undefined;
  /** A message for the client: what was wrong, never the SQL or the server's internals. */
  message: string;
}

interface PgErrorFields {
  code?: unknown;
  column?: unknown;
  table?: unknown;
  constraint?: unknown;
  detail?: unknown;
}

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** The first column of a `Key (a, b)=(...)` detail, as PostgreSQL words unique and foreign-key errors. */
function keyColumn(detail: string | undefined): string | undefined {
  const match = detail?.match(/^Key \(([^),]+)/);
  return match?.[1]?.replace(/"/g, "").trim();
}

/**
 * Classifies a PostgreSQL error (through pg or PGlite: both carry the SQLSTATE in `code` and
 * the fields PostgreSQL reports) as bad input, or null when it is the server's own failure.
 *
 * - 23505 unique violation: taken.
 * - 23503 foreign key violation: invalid (a reference to nothing) on write; in_use (still
 *   referenced) on delete.
 * - 23502 not null, 23514 check, 23P01 exclusion: invalid.
 * - class 22 (data exception: invalid text representation 22P02, out of range 22003/22008,
 *   too long 22001, untranslatable character 22P05, NUL 22021, ...): invalid.
 */
export function classifyDatabaseError(error: unknown): InputFault | null {
  if (!error || typeof error !== "object") return null;
  const e = error as PgErrorFields;
  const code = text(e.code);
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return null;
  const detail = text(e.detail);
  const constraint = text(e.constraint);
  const table = text(e.table);
  const base = { table, constraint };
  switch (code) {
    case "23505": {
      const column = keyColumn(detail);
      return { ...base, kind: "taken", column, message: `${column ?? "This value"} already exists.` };
    }
    case "23503": {
      const column = keyColumn(detail);
      if (detail?.includes("is still referenced"))
        return { ...base, kind: "in_use", column, message: "This resource is still in use." };
      return { ...base, kind: "invalid", column, message: "This refers to something that does not exist." };
    }
    case "23502": {
      const column = text(e.column);
      return { ...base, kind: "invalid", column, message: "A value is required." };
    }
    case "23514":
    case "23P01":
      return { ...base, kind: "invalid", column: text(e.column), message: "The value is not allowed." };
  }
  if (code.startsWith("22"))
    return { ...base, kind: "invalid", column: text(e.column), message: dataExceptionMessage(code) };
  return null;
}

function dataExceptionMessage(code: string): string {
  switch (code) {
    case "22001":
      return "The value is too long.";
    case "22003":
      return "The number is out of range.";
    case "22007":
    case "22008":
      return "The date or time is out of range.";
    case "22P02":
      return "The value has the wrong format.";
    case "22P05":
    case "22021":
      return "The text contains a character that cannot be stored.";
    default:
      return "The value is not valid.";
  }
}

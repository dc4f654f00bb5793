/** A small leveled logger writing one line per entry. Secrets must never be passed to it. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * `tag` prefixes every message (`[worker 2 pid 4242]` in a cluster), so the lines of several
 * processes sharing one output can be told apart.
 */
export function createLogger(level: LogLevel = "info", tag?: string): Logger {
  const prefix = tag ? `[${tag}] ` : "";
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields, errorReplacer)}` : "";
    const line = `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${prefix}${message}${extra}`;
    if (at === "error" || at === "warn") process.stderr.write(`${line}\n`);
    else process.stdout.write(`${line}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

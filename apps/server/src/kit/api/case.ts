/**
 * Polar's wire names are snake_case; Kassa also accepts camelCase in requests (what SDK 1.x
 * users and JavaScript habits send). Keys are rewritten before validation. Values under a
 * metadata-like key are the caller's own data and keep their keys exactly.
 */
const CAMEL = /[A-Z]/;

/** Keys whose values are free-form maps chosen by the caller: never renamed inside. */
const OPAQUE = new Set(["metadata", "customer_metadata", "user_metadata", "custom_field_data"]);

export function snakeCase(key: string): string {
  if (!CAMEL.test(key)) return key;
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/**
 * The value with its keys in snake_case: the value itself when no key needed renaming (so the
 * caller can tell whether to re-serialize), else a copy. Nothing is allocated until the first
 * change (a batch of events in snake_case, the usual body, is walked without a copy).
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const renamed = snakeCaseKeys(item);
      if (out === undefined && renamed !== item) out = value.slice(0, i);
      out?.push(renamed);
    }
    return out ?? value;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const name = snakeCase(key);
    const inner = object[key];
    const renamed = OPAQUE.has(name) ? inner : snakeCaseKeys(inner);
    // An own `__proto__` key (JSON.parse makes one) does not survive the copy: a change.
    if (out === undefined && (name !== key || key === "__proto__" || renamed !== inner)) {
      // The keys before this one were kept as they were.
      out = {};
      for (let j = 0; j < i; j++) out[keys[j] as string] = object[keys[j] as string];
    }
    if (out === undefined) continue;
    // The snake_case spelling wins when a body carries both.
    if (name !== key && Object.hasOwn(object, name)) continue;
    out[name] = renamed;
  }
  return out ?? value;
}

/** Query parameter names in snake_case; `metadata[key]` keeps its key as sent. */
export function snakeCaseQuery(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  const names = new Set(params.keys());
  for (const [key, value] of params) {
    const bracket = key.indexOf("[");
    const head = bracket < 0 ? key : key.slice(0, bracket);
    const name = snakeCase(head) + (bracket < 0 ? "" : key.slice(bracket));
    if (name !== key && names.has(name)) continue;
    out.append(name, value);
  }
  return out;
}

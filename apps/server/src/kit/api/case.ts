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
 * caller can tell whether to re-serialize), else a copy.
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const renamed = snakeCaseKeys(item);
      if (renamed !== item) changed = true;
      return renamed;
    });
    return changed ? out : value;
  }
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  let changed = false;
  const entries = Object.entries(value as Record<string, unknown>);
  // The snake_case spelling wins when a body carries both.
  for (const [key, inner] of entries) {
    const name = snakeCase(key);
    // An own `__proto__` key (JSON.parse makes one) does not survive the copy: a change.
    if (name !== key || key === "__proto__") changed = true;
    if (name !== key && Object.hasOwn(value, name)) continue;
    const renamed = OPAQUE.has(name) ? inner : snakeCaseKeys(inner);
    if (renamed !== inner) changed = true;
    out[name] = renamed;
  }
  return changed ? out : value;
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

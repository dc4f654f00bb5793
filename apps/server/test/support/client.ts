/**
 * An HTTP client that behaves like a browser towards Kassa: it keeps cookies, sends the
 * Origin header on every request (Better Auth refuses cookie-bearing POSTs without one) and
 * does not follow redirects, so tests can assert where they lead.
 */
/** Answers are read field by field in assertions; typing each one would add nothing. */
// biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON answers, checked by the assertions themselves.
export type Json = any;

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  location: string | null;
}

export class Client {
  readonly cookies = new Map<string, string>();
  headers: Record<string, string> = {};

  constructor(
    readonly baseURL: string,
    readonly origin: string = baseURL,
  ) {}

  async request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<HttpResult<T>> {
    const url = path.startsWith("http") ? path : `${this.baseURL}${path}`;
    const headers: Record<string, string> = { origin: this.origin, ...this.headers, ...extraHeaders };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
    this.absorbCookies(res.headers);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return {
      status: res.status,
      headers: res.headers,
      body: parsed as T,
      text,
      location: res.headers.get("location"),
    };
  }

  get<T = Json>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, undefined, headers);
  }

  post<T = Json>(path: string, body: unknown = {}, headers?: Record<string, string>) {
    return this.request<T>("POST", path, body, headers);
  }

  absorbCookies(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim())) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The session token cookie's value, if signed in. */
  get sessionCookie(): string | undefined {
    for (const [k, v] of this.cookies) if (k.endsWith("session_token")) return v;
    return undefined;
  }
}

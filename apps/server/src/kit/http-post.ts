import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { isPrivateAddress, PrivateAddressError, publicOnlyLookup } from "./public-address.js";

/**
 * A POST of a small body over `node:http`/`node:https` with kept-alive connections, for the
 * webhook worker. Against `fetch` (undici) it costs a fraction of the CPU per request and sends
 * the body in one write. Behaviour a delivery relies on:
 * - one deadline for the whole exchange (connect, headers and the answer's body);
 * - redirects are never followed (the 3xx is the answer);
 * - only the first `excerptChars` characters of the answer are kept, and at most `drainBytes`
 *   are read: a longer answer closes its connection instead of being read to the end;
 * - connections are kept alive and bounded per origin (`maxSocketsPerOrigin`); a request on a
 *   reused connection that the receiver had closed meanwhile is sent once more on a new one.
 */
export interface HttpPoster {
  post(url: string, headers: Record<string, string>, body: string): Promise<HttpPostResult>;
  /** Closes the kept-alive connections (they never hold the process open). */
  close(): void;
}

export type HttpPostResult =
  | { ok: true; status: number; body: string }
  | { ok: false; timedOut: boolean; error: string };

export interface HttpPosterOptions {
  timeoutMs: number;
  /** Characters of the answer's body kept. */
  excerptChars: number;
  /** Bytes of an answer read at most before its connection is closed instead (default 64 KiB). */
  drainBytes?: number;
  /** Connections at once to one origin (default 16). */
  maxSocketsPerOrigin?: number;
  /** Refuse hosts at private addresses (kit/public-address.ts), checked at each connection. */
  refusePrivate?: boolean;
}

class Timeout extends Error {
  override name = "TimeoutError";
}

export function createHttpPoster(options: HttpPosterOptions): HttpPoster {
  const maxSockets = options.maxSocketsPerOrigin ?? 16;
  // An idle connection is closed after 4 s, under Node's default 5 s keep-alive on the other side.
  const agentOptions = {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    timeout: 4000,
    scheduling: "lifo" as const,
  };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  // Enough bytes for `excerptChars` characters of UTF-8 (at most four bytes each).
  const keepBytes = options.excerptChars * 4;
  const drainBytes = Math.max(options.drainBytes ?? 64 * 1024, keepBytes);

  function once(target: URL, headers: Record<string, string>, body: Buffer, deadline: number) {
    return new Promise<{ status: number; body: string } | { error: Error; retry: boolean }>((resolve) => {
      const secure = target.protocol === "https:";
      const request = (secure ? https : http).request(target, {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...headers, "content-length": String(body.length) },
        ...(options.refusePrivate ? { lookup: publicOnlyLookup } : {}),
      });
      let answered = false;
      let settled = false;
      const settle = (value: { status: number; body: string } | { error: Error; retry: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(
        () => {
          settle({ error: new Timeout("no answer in time"), retry: false });
          request.destroy();
        },
        Math.max(0, deadline - Date.now()),
      );
      request.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed while idle: nothing reached it.
        const stale =
          request.reusedSocket && !answered && (error.code === "ECONNRESET" || error.code === "EPIPE");
        settle({ error, retry: stale });
      });
      request.on("response", (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        let kept = 0;
        let read = 0;
        const finish = () => {
          const text = Buffer.concat(chunks).toString("utf8").slice(0, options.excerptChars);
          settle({ status: response.statusCode ?? 0, body: text });
        };
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (kept < keepBytes) {
            const part = chunk.subarray(0, keepBytes - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (read > drainBytes) {
            // Too long to read to the end: keep the excerpt, drop the connection.
            finish();
            response.destroy();
          }
        });
        response.on("end", finish);
        response.on("error", (error) => settle({ error, retry: false }));
        response.on("aborted", () => settle({ error: new Error("the answer was cut off"), retry: false }));
      });
      request.end(body);
    });
  }

  return {
    async post(url, headers, text) {
      const deadline = Date.now() + options.timeoutMs;
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return { ok: false, timedOut: false, error: `invalid URL: ${url}` };
      }
      if (target.protocol !== "http:" && target.protocol !== "https:")
        return { ok: false, timedOut: false, error: `unsupported protocol: ${target.protocol}` };
      // An address in the URL is connected to without a lookup: checked here.
      const literal = target.hostname.replace(/^\[(.*)\]$/, "$1");
      if (options.refusePrivate && isIP(literal) && isPrivateAddress(literal))
        return { ok: false, timedOut: false, error: new PrivateAddressError(literal, literal).message };
      const body = Buffer.from(text, "utf8");
      for (let tries = 0; ; tries++) {
        const outcome = await once(target, headers, body, deadline);
        if ("status" in outcome) return { ok: true, status: outcome.status, body: outcome.body };
        if (outcome.retry && tries === 0 && Date.now() < deadline) continue;
        const timedOut = outcome.error instanceof Timeout;
        return { ok: false, timedOut, error: outcome.error.message };
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

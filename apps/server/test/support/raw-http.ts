import http from "node:http";

/** An answer read off a raw `node:http` request, with the socket it came on. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: unknown;
}

/**
 * One request through `agent` (a keep-alive agent shows whether the connection carried the next
 * request: compare the answers' sockets). Rejects on a transport error (a broken pipe, a reset),
 * which is what a client sees when a server closes a connection under a body still being sent.
 */
export function rawRequest(
  agent: http.Agent,
  url: string,
  method: string,
  body?: Buffer,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: { ...headers, ...(body ? { "content-length": String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            socket: req.socket,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

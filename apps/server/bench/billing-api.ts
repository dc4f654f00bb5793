/**
 * The billing API's reads and writes against the bare routes (issue 19's goals): a list
 * (`GET /v1/products/`, ten products with a price each) and a get (`GET /v1/products/{id}`), each
 * with an organization access token and with the dashboard's session cookie, against the bare
 * primary-key select; `POST /v1/products/` and `POST /v1/checkouts/` (token) against the bare
 * route doing one insert. Each pair alternates rounds with its baseline (`runPaired`).
 */
import { type LoadResult, leanHttp, runPaired } from "./load.js";

export interface BillingApiLine {
  name: string;
  baseline: LoadResult;
  subject: LoadResult;
  ratio: number;
  /** The goal's kind: reads >= 50% of the bare select; writes are recorded against the insert. */
  kind: "read" | "write";
}

export async function benchBillingApi(opts: {
  base: string;
  cookie: string;
  organizationId: string;
  /** A token with products:read/write and checkouts:write. */
  token: string;
  baselineUrl: string;
  seconds: number;
  rounds: number;
  concurrency: number;
}): Promise<BillingApiLine[]> {
  const { base, organizationId } = opts;
  const client = leanHttp(opts.concurrency);
  const bearer = { authorization: `Bearer ${opts.token}`, "content-type": "application/json" };
  const session = { cookie: opts.cookie, origin: base };
  const list = (await fetch(`${base}/v1/products/?limit=1`, { headers: bearer }).then((r) => r.json())) as {
    items: Array<{ id: string }>;
  };
  const productId = list.items[0]?.id;
  if (!productId) throw new Error("no product to get");

  const bare = async () => (await client.request(opts.baselineUrl)).status === 200;
  const bareInsert = async () =>
    (
      await client.request(opts.baselineUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench write" }),
      })
    ).status === 201;
  // Each read's answer is checked in full: the first one parsed and checked, every later one equal
  // to it byte for byte (nothing in the catalog changes during a line). The load generator shares
  // the machine's cores with the server; parsing every list answer (4 KB of JSON) cost it about
  // 24 µs a request more than the bare route's (docs/benchmarks.md, 2026-11-29), CPU taken from
  // the server under test. `BENCH_API_PARSE=1` parses every answer, as before.
  const parseEach = process.env.BENCH_API_PARSE === "1";
  const read = async (
    path: string,
    headers: Record<string, string>,
    check: (body: { items?: unknown[]; id?: string }) => boolean,
  ): Promise<() => Promise<boolean>> => {
    const url = `${base}${path}`;
    const first = await client.request(url, { headers });
    if (first.status !== 200 || !check(JSON.parse(first.body)))
      throw new Error(`GET ${path}: unexpected answer ${first.status} ${first.body.slice(0, 200)}`);
    const expected = first.body;
    return async () => {
      const r = await client.request(url, { headers });
      if (r.status !== 200) return false;
      return parseEach ? check(JSON.parse(r.body)) : r.body === expected;
    };
  };
  const tenItems = (body: { items?: unknown[] }) => body.items?.length === 10;
  const theProduct = (body: { id?: string }) => body.id === productId;
  const reads: Array<[string, () => Promise<boolean>]> = [
    ["GET /v1/products/ token", await read("/v1/products/", bearer, tenItems)],
    [
      "GET /v1/products/ cookie",
      await read(`/v1/products/?organization_id=${organizationId}`, session, tenItems),
    ],
    ["GET /v1/products/{id} token", await read(`/v1/products/${productId}`, bearer, theProduct)],
    [
      "GET /v1/products/{id} cookie",
      await read(`/v1/products/${productId}?organization_id=${organizationId}`, session, theProduct),
    ],
  ];
  const productBody = JSON.stringify({
    name: "Bench write",
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  const checkoutBody = JSON.stringify({ products: [productId] });
  const writes: Array<[string, () => Promise<boolean>]> = [
    [
      "POST /v1/products/ token",
      async () =>
        (await client.request(`${base}/v1/products/`, { method: "POST", headers: bearer, body: productBody }))
          .status === 201,
    ],
    [
      "POST /v1/checkouts/ token",
      async () =>
        (
          await client.request(`${base}/v1/checkouts/`, {
            method: "POST",
            headers: bearer,
            body: checkoutBody,
          })
        ).status === 201,
    ],
  ];
  const lines: BillingApiLine[] = [];
  const measure = async (kind: "read" | "write", name: string, subject: () => Promise<boolean>) => {
    const pair = await runPaired({
      seconds: opts.seconds,
      rounds: opts.rounds,
      concurrency: opts.concurrency,
      baseline: kind === "read" ? bare : bareInsert,
      subject,
    });
    lines.push({
      name,
      kind,
      baseline: pair.baseline,
      subject: pair.subject,
      ratio: pair.subject.throughput / pair.baseline.throughput,
    });
  };
  // BENCH_API_LINES (comma-separated, each a part of a line's name: "products/ token,cookie")
  // runs only the lines it names, e.g. to profile one of them.
  const only = (process.env.BENCH_API_LINES ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const wanted = (name: string) => only.length === 0 || only.some((part) => name.includes(part));
  try {
    for (const [name, op] of reads) if (wanted(name)) await measure("read", name, op);
    for (const [name, op] of writes) if (wanted(name)) await measure("write", name, op);
  } finally {
    client.close();
  }
  return lines;
}

import dns, { type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Addresses a request on a merchant's behalf (a webhook delivery) must not reach when the
 * installation refuses private targets: loopback, private networks, link-local (cloud metadata
 * services live there), carrier-grade NAT, "this network", benchmarking, multicast, reserved;
 * IPv6's loopback, unique-local, link-local, multicast, and the forms that carry an IPv4
 * address (mapped `::ffff:`, compatible `::`, NAT64 `64:ff9b::`).
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  // The unspecified and loopback addresses, and the IPv4-compatible ones (::a.b.c.d).
  ["::", 96],
  // NAT64's well-known and local prefixes: an IPv4 address behind a translator.
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(network, prefix, "ipv6");

/** Whether `address` (an IP literal, IPv6 with or without brackets) is one of those; true for a non-address. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(bare);
  // An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, `::ffff:7f00:1`) is checked by the list's
  // IPv4 rules (node:net's BlockList).
  if (family === 4 || family === 6) return PRIVATE.check(bare, family === 4 ? "ipv4" : "ipv6");
  return true;
}

export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
  readonly code = "EPRIVATEADDRESS";
  constructor(host: string, address: string) {
    super(
      `${host} is ${address === host ? "" : `at ${address}, `}a private address, which this installation does not send to`,
    );
  }
}

/**
 * A `lookup` for `net.connect` (and so for `http.request`) that refuses a host any of whose
 * addresses is private: the connection goes to an address this checked, so a name that resolves
 * to a public address here and a private one a moment later (DNS rebinding) gains nothing.
 */
export function publicOnlyLookup(
  hostname: string,
  options: dns.LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "");
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) return callback(new PrivateAddressError(hostname, refused.address), "");
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "");
    callback(null, first.address, first.family);
  });
}

/**
 * Why a URL's host may not be sent to (a private address, or a name resolving to one), or null.
 * A name that does not resolve now is not refused: the delivery's own lookup checks it again.
 */
export async function privateTargetOf(url: string): Promise<string | null> {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (isIP(bare)) return isPrivateAddress(bare) ? new PrivateAddressError(host, host).message : null;
  try {
    const addresses = await dns.promises.lookup(bare, { all: true });
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    return refused ? new PrivateAddressError(host, refused.address).message : null;
  } catch {
    return null;
  }
}

import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";

/** Seals the customers' OAuth tokens at rest: AES-256-GCM under a key derived from the server secret. */
export interface Sealer {
  seal(plain: string): string;
  /** The plain text, or undefined when the value was not sealed by this server's secret. */
  open(sealed: string): string | undefined;
}

export function createSealer(secret: string): Sealer {
  const key = Buffer.from(hkdfSync("sha256", secret, "", "kassa/oauth-accounts/tokens", 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
    },
    open(sealed) {
      if (!sealed.startsWith("v1.")) return undefined;
      const raw = Buffer.from(sealed.slice(3), "base64url");
      if (raw.length < 28) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/** What the portal's OAuth `state` carries through the provider and back. */
export interface ConnectState {
  platform: "github" | "discord";
  organization_id: string;
  customer_id: string;
  return_to: string;
  /** Random, unique per authorize: the callback records it, so the state works once. */
  nonce: string;
  /** Unix seconds after which the callback refuses it. */
  exp: number;
}

/**
 * Signs the `state` of the portal's connect flow (HMAC-SHA-256 under its own derived key,
 * compared in constant time): the callback trusts the customer it names only because this
 * server signed it, minutes ago.
 */
export function createStateSigner(secret: string) {
  const key = Buffer.from(hkdfSync("sha256", secret, "", "kassa/oauth-accounts/state", 32));
  const mac = (payload: string) => createHmac("sha256", key).update(payload).digest();
  return {
    sign(state: ConnectState): string {
      const payload = Buffer.from(JSON.stringify(state)).toString("base64url");
      return `${payload}.${mac(payload).toString("base64url")}`;
    },
    /** The state, or undefined if it is not this server's, was altered, or has expired. */
    verify(token: string, now: Date): ConnectState | undefined {
      const [payload, signature, extra] = token.split(".");
      if (!payload || !signature || extra !== undefined) return undefined;
      const given = Buffer.from(signature, "base64url");
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      let state: ConnectState;
      try {
        state = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as ConnectState;
      } catch {
        return undefined;
      }
      if (typeof state.exp !== "number" || state.exp * 1000 <= now.getTime()) return undefined;
      if (typeof state.nonce !== "string" || state.nonce.length < 16) return undefined;
      return state;
    },
  };
}

export type StateSigner = ReturnType<typeof createStateSigner>;

import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { PublicConfig } from "@kassa/contracts";
import type { Context, Env, Hono } from "hono";
import type { KassaConfig } from "./config.js";
import type { Payments } from "./modules/payments/index.js";

/** `apps/web/dist`, from `apps/server/src` (tsx) and `apps/server/dist` (built) alike. */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../web/dist");

/** `GET /api/config`: what the sign-in pages need to know. Never a secret. */
export function publicConfig(config: KassaConfig, devMailbox: boolean): PublicConfig {
  const { github, google, oidc } = config.social;
  return {
    passwordMinLength: config.password.min,
    passwordMaxLength: config.password.max,
    usernameMinLength: config.username.min,
    usernameMaxLength: config.username.max,
    socialProviders: [
      ...(github ? [{ id: "github", name: "GitHub", kind: "social" as const }] : []),
      ...(google ? [{ id: "google", name: "Google", kind: "social" as const }] : []),
      ...(oidc ? [{ id: oidc.providerId, name: "Single sign-on", kind: "oauth2" as const }] : []),
    ],
    captcha: config.captcha
      ? { provider: config.captcha.provider, siteKey: config.captcha.siteKey ?? null }
      : null,
    devMailbox,
  };
}

/**
 * `GET /api/checkout/config`: which processor takes the card on the hosted checkout page (the
 * sandbox's card form, or Stripe's Payment Element with the publishable key). Never a secret.
 */
export function checkoutConfig(payments: Payments): {
  processor: "sandbox" | "stripe";
  stripe_publishable_key: string | null;
} {
  return payments.stripe
    ? { processor: "stripe", stripe_publishable_key: payments.stripe.publishableKey ?? null }
    : { processor: "sandbox", stripe_publishable_key: null };
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".map", ".svg", ".txt"]);
const IMMUTABLE = "public, max-age=31536000, immutable";

/** Paths the web app never answers: the APIs keep their own 404s. */
const isApiPath = (p: string) => /^\/(api|v1)(\/|$)/.test(p);
/**
 * The hosted checkout page's addresses, and the card-update page of the dunning mails
 * (`/subscription/{id}/payment-method`): a build of their own (`checkout.html`).
 */
const isCheckoutPath = (p: string) =>
  /^\/checkout\/[^/]/.test(p) || /^\/subscription\/[^/]+\/payment-method\/?$/.test(p);

/**
 * Serves the built web app (`apps/web/dist`) at `/`: files as they are, hashed files under
 * `/assets/` cached for a year, `portal.html` for `/portal/...` (the customer portal, a build of
 * its own), `checkout.html` for `/checkout/...` and `/subscription/{id}/payment-method` (the hosted checkout page,
 * a separate small build) and `index.html` (both never cached) for every other path so the
 * client routes work on reload. Register it after every other route.
 */
export function mountWebApp<E extends Env>(app: Hono<E>, webDir: string = DEFAULT_WEB_DIR) {
  const root = path.resolve(webDir);
  const gzipped = new Map<string, { mtime: number; body: Buffer }>();

  const send = async (c: Context, file: string, cacheControl: string) => {
    const info = await stat(file);
    const ext = path.extname(file);
    const headers: Record<string, string> = {
      "content-type": CONTENT_TYPES[ext] ?? "application/octet-stream",
      "cache-control": cacheControl,
      "x-content-type-options": "nosniff",
      vary: "accept-encoding",
    };
    let body: Buffer;
    if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
      let cached = gzipped.get(file);
      if (!cached || cached.mtime !== info.mtimeMs) {
        cached = { mtime: info.mtimeMs, body: gzipSync(await readFile(file)) };
        gzipped.set(file, cached);
      }
      body = cached.body;
      headers["content-encoding"] = "gzip";
    } else {
      body = await readFile(file);
    }
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    return c.body(new Uint8Array(body), 200, headers);
  };

  app.on(["GET", "HEAD"], "*", async (c) => {
    let pathname: string;
    try {
      pathname = decodeURIComponent(c.req.path);
    } catch {
      return c.notFound(); // not valid percent-encoding: names no file
    }
    if (isApiPath(pathname)) return c.notFound();
    const index = path.join(root, "index.html");
    if (!existsSync(index)) {
      return c.text(
        "The Kassa web app is not built. Run `npm run build` (or `npm start`, which builds it), then reload.",
        503,
      );
    }
    const file = path.resolve(root, `.${pathname}`);
    if (file.startsWith(`${root}${path.sep}`) && file !== index) {
      const info = await stat(file).catch(() => null);
      if (info?.isFile()) {
        const hashed = pathname.startsWith("/assets/");
        return send(c, file, hashed ? IMMUTABLE : "no-cache");
      }
    }
    // A missing hashed asset is a 404, not the app: a stale page must not get HTML for its script.
    if (pathname.startsWith("/assets/")) return c.notFound();
    if (/^\/portal\/[^/]/.test(pathname)) {
      const portal = path.join(root, "portal.html");
      if (existsSync(portal)) return send(c, portal, "no-cache");
    }
    if (isCheckoutPath(pathname)) {
      const checkout = path.join(root, "checkout.html");
      if (existsSync(checkout)) return send(c, checkout, "no-cache");
    }
    return send(c, index, "no-cache");
  });
}

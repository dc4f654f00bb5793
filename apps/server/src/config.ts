import os from "node:os";
import path from "node:path";
import { z } from "zod";

/**
 * Every setting Kassa reads from its environment, parsed once at start-up.
 * A bad value stops the server with a message naming the variable.
 */

const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off"])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const positiveInt = z.coerce.number().int().positive();

const urlString = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });

export const CAPTCHA_PROVIDERS = ["cloudflare-turnstile", "google-recaptcha", "hcaptcha"] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

export const ORGANIZATION_CREATION_POLICIES = ["everyone", "verified", "admins", "nobody"] as const;

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  BASE_URL: urlString.optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v))
    .refine(
      (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
      "must start with postgres:// or postgresql://",
    ),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  DATABASE_PREPARED_STATEMENTS: z.enum(["on", "off"]).default("on"),
  WEB_CONCURRENCY: z.preprocess((v) => (v === "" ? undefined : v), positiveInt.optional()),
  KASSA_ALLOW_EMBEDDED_DB: bool.default(false),
  AUTH_SECRET: optionalString.refine(
    (v) => v === undefined || v.length >= 32,
    "must be at least 32 characters",
  ),
  TRUSTED_ORIGINS: optionalString,
  SMTP_URL: optionalString.refine(
    (v) => v === undefined || /^smtps?:\/\//.test(v),
    "must start with smtp:// or smtps://",
  ),
  MAIL_FROM: z.string().default("Kassa <no-reply@kassa.localhost>"),
  GITHUB_CLIENT_ID: optionalString,
  GITHUB_CLIENT_SECRET: optionalString,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  OIDC_ISSUER: optionalString.pipe(urlString.optional()),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_PROVIDER_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, "must be lowercase letters, digits and dashes")
    .default("oidc"),
  OIDC_SCOPES: z.string().default("openid email profile offline_access"),
  CAPTCHA_PROVIDER: optionalString.pipe(z.enum(CAPTCHA_PROVIDERS).optional()),
  CAPTCHA_SECRET_KEY: optionalString,
  CAPTCHA_SITE_KEY: optionalString,
  CAPTCHA_VERIFY_URL: optionalString.pipe(urlString.optional()),
  RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  V1_RATE_LIMIT: positiveInt.default(500),
  PUBLIC_RATE_LIMIT: positiveInt.default(120),
  PORTAL_CODE_RATE_LIMIT: positiveInt.default(10),
  PORTAL_CODE_FAILURE_LIMIT: positiveInt.default(300),
  RATE_LIMIT_STORE: optionalString.pipe(z.enum(["memory", "redis", "database"]).optional()),
  REDIS_URL: optionalString.refine(
    (v) => v === undefined || /^rediss?:\/\//.test(v),
    "must start with redis:// or rediss://",
  ),
  REDIS_KEY_PREFIX: z.string().default("kassa:"),
  PASSWORD_MIN_LENGTH: positiveInt.default(8),
  PASSWORD_MAX_LENGTH: positiveInt.default(128),
  USERNAME_MIN_LENGTH: positiveInt.default(3),
  USERNAME_MAX_LENGTH: positiveInt.default(30),
  SESSION_FRESH_AGE: z.coerce.number().int().min(0).default(86400),
  ALLOW_UNLINKING_ALL: bool.default(false),
  ORGANIZATION_CREATION: z.enum(ORGANIZATION_CREATION_POLICIES).default("everyone"),
  ORGANIZATION_LIMIT: positiveInt.optional(),
  MEMBERSHIP_LIMIT: positiveInt.default(100),
  INVITATION_EXPIRES_IN: positiveInt.default(172800),
  ALLOW_REMOVING_ALL_TEAMS: bool.default(false),
  // Proxies in front of Kassa that append to X-Forwarded-For: 0 (off), 1 (`true`), or a count.
  TRUST_PROXY: z
    .string()
    .regex(/^(\d{1,2}|true|false|yes|no|on|off)$/i, "must be a number of proxies (0 to 16), true or false")
    .transform((v) => {
      const word = v.toLowerCase();
      if (["true", "yes", "on"].includes(word)) return 1;
      if (["false", "no", "off"].includes(word)) return 0;
      return Number(v);
    })
    .pipe(z.number().int().min(0).max(16))
    .default(0),
  ADMIN_EMAILS: optionalString,
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  WEB_DIR: optionalString,
  JOB_WORKER: bool.default(true),
  JOB_CONCURRENCY: positiveInt.default(10),
  /** Due jobs a worker claims ahead of its free slots (kit/jobs/worker.ts); default JOB_CONCURRENCY. */
  JOB_PREFETCH: z.coerce.number().int().min(0).max(1000).optional(),
  JOB_POLL_INTERVAL_MS: positiveInt.default(1000),
  JOB_LEASE_MS: positiveInt.default(60_000),
  JOB_BACKOFF_BASE_MS: positiveInt.default(10_000),
  JOB_BACKOFF_MAX_MS: positiveInt.default(3_600_000),
  CHECKOUT_RECONCILE_AFTER_MS: positiveInt.default(300_000),
  CHECKOUT_RECONCILE_INTERVAL_MS: positiveInt.default(60_000),
  SUBSCRIPTION_SCHEDULER_INTERVAL_MS: positiveInt.default(60_000),
  TEST_CLOCK_CONCURRENCY: positiveInt.optional(),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * Whether webhook endpoints may be at private addresses (loopback, private networks,
   * link-local): `refuse` in production by default (a merchant's endpoint would otherwise reach
   * the installation's own network and show its answers), `allow` otherwise (local receivers).
   */
  WEBHOOK_PRIVATE_TARGETS: z.enum(["allow", "refuse"]).optional(),
  CUSTOMER_STATE_DEBOUNCE_MS: positiveInt.default(15_000),
  /** Ingest statements of one organization in flight per process (modules/events/group.ts); 0: no grouping. */
  INGEST_GROUP_IN_FLIGHT: z.coerce.number().int().min(0).max(64).optional(),
  /** Product reads kept per process while the catalog is unchanged (modules/products/catalog-cache.ts); 0: off. */
  CATALOG_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(32),
  STRIPE_SECRET_KEY: optionalString.refine(
    (v) => v === undefined || /^(sk|rk)_(test|live)_/.test(v),
    "must be a Stripe secret or restricted key (sk_live_..., sk_test_..., rk_...)",
  ),
  STRIPE_WEBHOOK_SECRET: optionalString.refine(
    (v) => v === undefined || v.startsWith("whsec_"),
    "must be the endpoint's signing secret (whsec_...)",
  ),
  STRIPE_PUBLISHABLE_KEY: optionalString.refine(
    (v) => v === undefined || /^pk_(test|live)_/.test(v),
    "must be a Stripe publishable key (pk_live_..., pk_test_...)",
  ),
  STRIPE_API_URL: optionalString.pipe(urlString.optional()),
  SANDBOX_TOKEN_RATE_LIMIT: positiveInt.default(30),
  FILES_DIR: optionalString,
  FILES_UPLOAD_URL_TTL: positiveInt.default(3600),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: optionalString.pipe(urlString.optional()),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z.string().default(""),
  S3_TIMEOUT_MS: positiveInt.default(60_000),
  GITHUB_BENEFIT_CLIENT_ID: optionalString,
  GITHUB_BENEFIT_CLIENT_SECRET: optionalString,
  GITHUB_BENEFIT_TOKEN: optionalString,
  GITHUB_API_URL: urlString.default("https://api.github.com"),
  GITHUB_OAUTH_URL: urlString.default("https://github.com"),
  DISCORD_CLIENT_ID: optionalString,
  DISCORD_CLIENT_SECRET: optionalString,
  DISCORD_BOT_TOKEN: optionalString,
  /**
   * Which repository owners (GitHub) and servers (Discord) each organization's benefits may name:
   * `org:owner,org:owner` by organization id. Unset: any outside production, none in it.
   */
  GITHUB_BENEFIT_OWNERS: optionalString,
  DISCORD_BENEFIT_GUILDS: optionalString,
  DISCORD_API_URL: urlString.default("https://discord.com/api/v10"),
  DISCORD_OAUTH_URL: urlString.default("https://discord.com"),
});

export type Env = z.infer<typeof envSchema>;

export interface KassaConfig {
  production: boolean;
  port: number;
  host: string;
  baseURL: string;
  dataDir: string;
  database:
    | { kind: "pglite"; dataDir: string }
    | { kind: "postgres"; url: string; poolSize: number; preparedStatements: boolean };
  allowEmbeddedInProduction: boolean;
  /**
   * Server processes sharing the port (node:cluster; cluster.ts). Default: the machine's cores
   * on PostgreSQL, 1 on PGlite (one process owns its data directory).
   */
  webConcurrency: number;
  /** Undefined until resolved by `resolveAuthSecret` (generated and kept in the data dir outside production). */
  authSecret: string | undefined;
  trustedOrigins: string[];
  mail: { smtpUrl: string | undefined; from: string };
  social: {
    github?: { clientId: string; clientSecret: string };
    google?: { clientId: string; clientSecret: string };
    oidc?: { providerId: string; issuer: string; clientId: string; clientSecret: string; scopes: string[] };
  };
  captcha?: { provider: CaptchaProvider; secretKey: string; siteKey?: string; verifyURL?: string };
  rateLimit: boolean;
  /** Requests a minute per organization (or per client address before authentication) on /v1. */
  v1RateLimit: number;
  /** Requests a minute per client address on the public checkout endpoints (client secret, links). */
  publicRateLimit: number;
  /** Portal sign-in code requests and attempts a minute per client address. */
  portalCodeRateLimit: number;
  portalCodeFailureLimit: number;
  /**
   * Where rate-limit counters live (kit/rate-limit.ts): this process's memory, Redis (shared by
   * every process using it), or the database (shared by every process on it, a write per hit).
   * Default: redis when REDIS_URL is set, memory when this is the only process, else database.
   */
  rateLimitStore: "memory" | "redis" | "database";
  /** Redis for shared rate limits (`redis://` or `rediss://`). */
  redisUrl: string | undefined;
  /** Put before every key Kassa keeps in Redis (several deployments can share one server). */
  redisKeyPrefix: string;
  password: { min: number; max: number };
  username: { min: number; max: number };
  sessionFreshAge: number;
  allowUnlinkingAll: boolean;
  organization: {
    creation: (typeof ORGANIZATION_CREATION_POLICIES)[number];
    limit: number | undefined;
    membershipLimit: number;
    invitationExpiresIn: number;
    allowRemovingAllTeams: boolean;
  };
  /**
   * How many proxies in front of Kassa append to X-Forwarded-For (0: none, the socket's peer is
   * the client). The client is the entry that many from the right: entries further left are
   * whatever the client sent.
   */
  trustProxy: number;
  /** Users signing up with these addresses get the platform admin role. */
  adminEmails: string[];
  logLevel: Env["LOG_LEVEL"];
  /** The built web app served at `/`; default `apps/web/dist`. */
  webDir?: string | undefined;
  /** The durable job queue's worker in this process (kit/jobs). */
  jobs: {
    worker: boolean;
    concurrency: number;
    /** Due jobs claimed ahead of the free slots (0: none). */
    prefetch: number;
    pollIntervalMs: number;
    leaseMs: number;
    backoff: { baseMs: number; maxMs: number };
  };
  /**
   * The checkout reconciler (runs where the job worker does): checkouts confirmed longer ago
   * than `afterMs` and never finished are settled from the processor's answer, every `intervalMs`.
   */
  reconcile: { afterMs: number; intervalMs: number };
  /**
   * The subscription scheduler (where the job worker runs): every `intervalMs` it renews the
   * subscriptions whose period ended and claims the dunning retries due, as charge jobs.
   */
  /**
   * `testClockConcurrency`: how many renewals a test clock's advance runs at once (each at its
   * own due time, in time order; default 4 on PostgreSQL, 1 on PGlite, whose one connection
   * runs one transaction at a time).
   */
  subscriptions: { intervalMs: number; testClockConcurrency: number };
  webhooks: { timeoutMs: number; refusePrivate: boolean };
  /**
   * How long a customer's ingests must be quiet before its `customer.state_changed` goes
   * (Polar's debounce: 15 s; at the latest 180 min after the first).
   */
  usage: {
    stateDebounceMs: number;
    /** Ingest statements of one organization in flight per process; absent: by engine; 0: no grouping. */
    ingestGroupInFlight: number | undefined;
  };
  /** Megabytes of product reads kept per process while the catalog is unchanged; 0: off. */
  catalogCacheMb: number;
  payments: {
    /** Present when STRIPE_SECRET_KEY is set: Stripe is then the processor, else the sandbox. */
    stripe?: {
      secretKey: string;
      webhookSecret: string;
      publishableKey: string | undefined;
      /** Another API host (a local fake in tests, stripe-mock); default Stripe's. */
      apiUrl: string | undefined;
    };
    /** Sandbox confirmation tokens a minute per client address. */
    sandboxTokenRateLimit: number;
  };
  /** Where uploaded files are kept (local disk), and how long an upload URL stays valid. */
  files: {
    dir: string;
    uploadUrlTtlSeconds: number;
    /** An S3-compatible bucket instead of local disk (`dir` then only stages uploads). */
    s3?: {
      bucket: string;
      region: string;
      endpoint: string | undefined;
      forcePathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      prefix: string;
      /** How long a request may wait to connect, and a connection may stay silent (ms). */
      timeoutMs: number;
    };
  };
  /** The platforms customers connect accounts of in the portal (absent: that benefit type waits with an error). */
  connections: { github?: ConnectionPlatformConfig; discord?: ConnectionPlatformConfig };
  /** GITHUB_BENEFIT_OWNERS and DISCORD_BENEFIT_GUILDS by organization id; "any": no list. */
  benefitTargets: { github: Map<string, Set<string>> | "any"; discord: Map<string, Set<string>> | "any" };
}

/** `org:target,org:target` (an organization's id, then a repository owner or server id). */
function targetsByOrganization(
  text: string | undefined,
  production: boolean,
): Map<string, Set<string>> | "any" {
  if (text === undefined) return production ? new Map() : "any";
  const map = new Map<string, Set<string>>();
  for (const entry of text.split(",")) {
    const [organization, target] = entry.split(":").map((s) => s.trim());
    if (!organization || !target) continue;
    map.set(organization, (map.get(organization) ?? new Set<string>()).add(target.toLowerCase()));
  }
  return map;
}

/**
 * A platform the `github_repository` or `discord` benefits act on: the OAuth app customers
 * connect their account with, the credential that gives access (a GitHub token able to invite
 * collaborators, a Discord bot token), and the base URLs (local fakes in tests).
 */
export interface ConnectionPlatformConfig {
  clientId: string;
  clientSecret: string;
  /** GITHUB_BENEFIT_TOKEN or DISCORD_BOT_TOKEN. */
  token: string;
  apiUrl: string;
  oauthUrl: string;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

function pair(
  env: Env,
  idKey: "GITHUB_CLIENT_ID" | "GOOGLE_CLIENT_ID",
  secretKey: "GITHUB_CLIENT_SECRET" | "GOOGLE_CLIENT_SECRET",
) {
  const clientId = env[idKey];
  const clientSecret = env[secretKey];
  if (!clientId && !clientSecret) return undefined;
  if (!clientId) throw new ConfigError(`${idKey} is required when ${secretKey} is set`);
  if (!clientSecret) throw new ConfigError(`${secretKey} is required when ${idKey} is set`);
  return { clientId, clientSecret };
}

/** All three of a platform's variables, or none; a partial set names the first one missing. */
function platform(
  keys: [string, string, string],
  values: [string | undefined, string | undefined, string | undefined],
  urls: { apiUrl: string; oauthUrl: string },
): ConnectionPlatformConfig | undefined {
  if (!values.some(Boolean)) return undefined;
  const missing = keys.find((_, i) => !values[i]);
  if (missing) throw new ConfigError(`${missing} is required when any of ${keys.join(", ")} is set`);
  const [clientId, clientSecret, token] = values as [string, string, string];
  const trim = (u: string) => u.replace(/\/+$/, "");
  return { clientId, clientSecret, token, apiUrl: trim(urls.apiUrl), oauthUrl: trim(urls.oauthUrl) };
}

/** Parses the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): KassaConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join(".") ?? "environment";
    throw new ConfigError(
      `${name}: ${issue?.message ?? "invalid"} (got ${JSON.stringify(source[name] ?? "")})`,
    );
  }
  const env = parsed.data;
  const production = env.NODE_ENV === "production";

  if (env.PASSWORD_MIN_LENGTH > env.PASSWORD_MAX_LENGTH) {
    throw new ConfigError("PASSWORD_MIN_LENGTH must not exceed PASSWORD_MAX_LENGTH");
  }
  if (env.USERNAME_MIN_LENGTH > env.USERNAME_MAX_LENGTH) {
    throw new ConfigError("USERNAME_MIN_LENGTH must not exceed USERNAME_MAX_LENGTH");
  }
  if (production && !env.AUTH_SECRET) {
    throw new ConfigError("AUTH_SECRET is required when NODE_ENV=production (at least 32 random characters)");
  }

  const oidcParts = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
  let oidc: KassaConfig["social"]["oidc"];
  if (oidcParts.some(Boolean)) {
    const missing = (["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const).filter((k) => !env[k]);
    if (missing.length > 0)
      throw new ConfigError(`${missing[0]} is required when any OIDC_* variable is set`);
    if (["github", "google", "credential", "email-password"].includes(env.OIDC_PROVIDER_ID)) {
      throw new ConfigError(`OIDC_PROVIDER_ID: "${env.OIDC_PROVIDER_ID}" is reserved`);
    }
    oidc = {
      providerId: env.OIDC_PROVIDER_ID,
      issuer: env.OIDC_ISSUER!,
      clientId: env.OIDC_CLIENT_ID!,
      clientSecret: env.OIDC_CLIENT_SECRET!,
      scopes: env.OIDC_SCOPES.split(/[\s,]+/).filter(Boolean),
    };
  }

  let captcha: KassaConfig["captcha"];
  if (env.CAPTCHA_PROVIDER || env.CAPTCHA_SECRET_KEY) {
    if (!env.CAPTCHA_PROVIDER)
      throw new ConfigError("CAPTCHA_PROVIDER is required when CAPTCHA_SECRET_KEY is set");
    if (!env.CAPTCHA_SECRET_KEY)
      throw new ConfigError("CAPTCHA_SECRET_KEY is required when CAPTCHA_PROVIDER is set");
    captcha = {
      provider: env.CAPTCHA_PROVIDER,
      secretKey: env.CAPTCHA_SECRET_KEY,
      ...(env.CAPTCHA_SITE_KEY ? { siteKey: env.CAPTCHA_SITE_KEY } : {}),
      ...(env.CAPTCHA_VERIFY_URL ? { verifyURL: env.CAPTCHA_VERIFY_URL } : {}),
    };
  }

  if (env.STRIPE_SECRET_KEY && !env.STRIPE_WEBHOOK_SECRET)
    throw new ConfigError(
      "STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set (Stripe's webhooks settle asynchronous payments and refunds)",
    );
  if (!env.STRIPE_SECRET_KEY && (env.STRIPE_WEBHOOK_SECRET || env.STRIPE_PUBLISHABLE_KEY))
    throw new ConfigError(
      "STRIPE_SECRET_KEY is required when STRIPE_WEBHOOK_SECRET or STRIPE_PUBLISHABLE_KEY is set",
    );
  let s3: KassaConfig["files"]["s3"];
  if (env.S3_ACCESS_KEY_ID && !env.S3_SECRET_ACCESS_KEY)
    throw new ConfigError("S3_SECRET_ACCESS_KEY is required when S3_ACCESS_KEY_ID is set");
  if (env.S3_SECRET_ACCESS_KEY && !env.S3_ACCESS_KEY_ID)
    throw new ConfigError("S3_ACCESS_KEY_ID is required when S3_SECRET_ACCESS_KEY is set");
  if (env.S3_BUCKET) {
    s3 = {
      bucket: env.S3_BUCKET,
      region: env.S3_REGION,
      endpoint: env.S3_ENDPOINT,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
      credentials:
        env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
          : undefined,
      prefix: env.S3_PREFIX,
      timeoutMs: env.S3_TIMEOUT_MS,
    };
  } else if (env.S3_ENDPOINT || env.S3_ACCESS_KEY_ID) {
    throw new ConfigError("S3_BUCKET is required when S3_ENDPOINT or S3_ACCESS_KEY_ID is set");
  }

  if (!env.DATABASE_URL && env.WEB_CONCURRENCY !== undefined && env.WEB_CONCURRENCY > 1)
    throw new ConfigError(
      `WEB_CONCURRENCY: the embedded database (PGlite) is opened by one process only; set DATABASE_URL to run ${env.WEB_CONCURRENCY} processes, or WEB_CONCURRENCY=1`,
    );
  const webConcurrency = env.WEB_CONCURRENCY ?? (env.DATABASE_URL ? os.availableParallelism() : 1);
  if (env.RATE_LIMIT_STORE === "redis" && !env.REDIS_URL)
    throw new ConfigError("REDIS_URL is required when RATE_LIMIT_STORE=redis");
  const rateLimitStore =
    env.RATE_LIMIT_STORE ?? (env.REDIS_URL ? "redis" : webConcurrency === 1 ? "memory" : "database");

  const baseURL = (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  const github = pair(env, "GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET");
  const google = pair(env, "GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET");
  const githubBenefit = platform(
    ["GITHUB_BENEFIT_CLIENT_ID", "GITHUB_BENEFIT_CLIENT_SECRET", "GITHUB_BENEFIT_TOKEN"],
    [env.GITHUB_BENEFIT_CLIENT_ID, env.GITHUB_BENEFIT_CLIENT_SECRET, env.GITHUB_BENEFIT_TOKEN],
    { apiUrl: env.GITHUB_API_URL, oauthUrl: env.GITHUB_OAUTH_URL },
  );
  const discord = platform(
    ["DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET", "DISCORD_BOT_TOKEN"],
    [env.DISCORD_CLIENT_ID, env.DISCORD_CLIENT_SECRET, env.DISCORD_BOT_TOKEN],
    { apiUrl: env.DISCORD_API_URL, oauthUrl: env.DISCORD_OAUTH_URL },
  );

  return {
    production,
    port: env.PORT,
    host: env.HOST,
    baseURL,
    dataDir: env.DATA_DIR,
    database: env.DATABASE_URL
      ? {
          kind: "postgres",
          url: env.DATABASE_URL,
          poolSize: env.DATABASE_POOL_SIZE,
          preparedStatements: env.DATABASE_PREPARED_STATEMENTS === "on",
        }
      : { kind: "pglite", dataDir: env.DATA_DIR },
    allowEmbeddedInProduction: env.KASSA_ALLOW_EMBEDDED_DB,
    webConcurrency,
    authSecret: env.AUTH_SECRET,
    trustedOrigins: [
      baseURL,
      ...(env.TRUSTED_ORIGINS ?? "")
        .split(",")
        .map((o) => o.trim().replace(/\/+$/, ""))
        .filter(Boolean),
    ],
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    social: {
      ...(github ? { github } : {}),
      ...(google ? { google } : {}),
      ...(oidc ? { oidc } : {}),
    },
    ...(captcha ? { captcha } : {}),
    rateLimit: env.RATE_LIMIT === "on",
    v1RateLimit: env.V1_RATE_LIMIT,
    publicRateLimit: env.PUBLIC_RATE_LIMIT,
    portalCodeRateLimit: env.PORTAL_CODE_RATE_LIMIT,
    portalCodeFailureLimit: env.PORTAL_CODE_FAILURE_LIMIT,
    rateLimitStore,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    password: { min: env.PASSWORD_MIN_LENGTH, max: env.PASSWORD_MAX_LENGTH },
    username: { min: env.USERNAME_MIN_LENGTH, max: env.USERNAME_MAX_LENGTH },
    sessionFreshAge: env.SESSION_FRESH_AGE,
    allowUnlinkingAll: env.ALLOW_UNLINKING_ALL,
    organization: {
      creation: env.ORGANIZATION_CREATION,
      limit: env.ORGANIZATION_LIMIT,
      membershipLimit: env.MEMBERSHIP_LIMIT,
      invitationExpiresIn: env.INVITATION_EXPIRES_IN,
      allowRemovingAllTeams: env.ALLOW_REMOVING_ALL_TEAMS,
    },
    trustProxy: env.TRUST_PROXY,
    adminEmails: (env.ADMIN_EMAILS ?? "")
      .split(",")
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
    logLevel: env.LOG_LEVEL,
    webDir: env.WEB_DIR,
    jobs: {
      worker: env.JOB_WORKER,
      concurrency: env.JOB_CONCURRENCY,
      prefetch: env.JOB_PREFETCH ?? env.JOB_CONCURRENCY,
      pollIntervalMs: env.JOB_POLL_INTERVAL_MS,
      leaseMs: env.JOB_LEASE_MS,
      backoff: { baseMs: env.JOB_BACKOFF_BASE_MS, maxMs: env.JOB_BACKOFF_MAX_MS },
    },
    reconcile: { afterMs: env.CHECKOUT_RECONCILE_AFTER_MS, intervalMs: env.CHECKOUT_RECONCILE_INTERVAL_MS },
    subscriptions: {
      intervalMs: env.SUBSCRIPTION_SCHEDULER_INTERVAL_MS,
      testClockConcurrency: env.TEST_CLOCK_CONCURRENCY ?? (env.DATABASE_URL ? 4 : 1),
    },
    webhooks: {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      refusePrivate: (env.WEBHOOK_PRIVATE_TARGETS ?? (production ? "refuse" : "allow")) === "refuse",
    },
    usage: {
      stateDebounceMs: env.CUSTOMER_STATE_DEBOUNCE_MS,
      ingestGroupInFlight: env.INGEST_GROUP_IN_FLIGHT,
    },
    catalogCacheMb: env.CATALOG_CACHE_MB,
    payments: {
      ...(env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET
        ? {
            stripe: {
              secretKey: env.STRIPE_SECRET_KEY,
              webhookSecret: env.STRIPE_WEBHOOK_SECRET,
              publishableKey: env.STRIPE_PUBLISHABLE_KEY,
              apiUrl: env.STRIPE_API_URL,
            },
          }
        : {}),
      sandboxTokenRateLimit: env.SANDBOX_TOKEN_RATE_LIMIT,
    },
    files: {
      dir: env.FILES_DIR ?? path.join(env.DATA_DIR, "files"),
      uploadUrlTtlSeconds: env.FILES_UPLOAD_URL_TTL,
      ...(s3 ? { s3 } : {}),
    },
    connections: {
      ...(githubBenefit ? { github: githubBenefit } : {}),
      ...(discord ? { discord } : {}),
    },
    benefitTargets: {
      github: targetsByOrganization(env.GITHUB_BENEFIT_OWNERS, production),
      discord: targetsByOrganization(env.DISCORD_BENEFIT_GUILDS, production),
    },
  };
}

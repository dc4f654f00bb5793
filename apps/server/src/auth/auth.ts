import { randomUUID } from "node:crypto";
import { apiKey } from "@better-auth/api-key";
import { type BetterAuthOptions, type BetterAuthPlugin, betterAuth } from "better-auth";
import { admin, captcha, genericOAuth, organization, username } from "better-auth/plugins";
import type { Kysely } from "kysely";
import type { KassaConfig } from "../config.js";
import type { Logger } from "../kit/logger.js";
import { type RateLimitStore, verdictOf } from "../kit/rate-limit.js";
import type { Mailer } from "../mail/mailer.js";
import { mailTemplates } from "../mail/templates.js";
import { adminAc, adminRoles, organizationAc, organizationRoles } from "./access-control.js";
import { installQuietAuthStorage } from "./async-storage.js";
import { gatedPasswordHasher } from "./password-gate.js";
import { withSpecMessagesInBeforeHooks } from "./spec/before-hooks.js";
import { kassaSpecPlugin } from "./spec-plugin.js";

export const AUTH_BASE_PATH = "/api/auth";
/** Header carrying the client address the Kassa server itself determined (never the client's claim). */
export const CLIENT_IP_HEADER = "x-kassa-client-ip";

export const RESET_PASSWORD_TOKEN_EXPIRES_IN = 3600;
export const DELETE_TOKEN_EXPIRES_IN = 86400;
/** Spec section 5: letters, digits, underscore and dot. */
export const USERNAME_PATTERN = /^[a-zA-Z0-9_.]+$/;

export interface AuthDeps {
  config: KassaConfig;
  secret: string;
  // Better Auth's Kysely adapter takes an untyped Kysely instance; its tables are its own.
  // biome-ignore lint/suspicious/noExplicitAny: Better Auth's option type is Kysely<any>.
  db: Kysely<any>;
  mailer: Mailer;
  logger: Logger;
  /** Password hashing override for fast test servers; production always uses scrypt (auth/password-gate.ts). */
  password?: NonNullable<BetterAuthOptions["emailAndPassword"]>["password"];
  /**
   * Where `/api/auth`'s limits count when it is not the database (RATE_LIMIT_STORE): memory or
   * Redis, through Better Auth's `customStorage`; absent or `database`: Better Auth's own table.
   */
  rateLimitStore?: RateLimitStore | undefined;
  /** Told when an organization is deleted here (after its rows went by cascade): drops what this process cached of it. */
  onOrganizationDeleted?: ((organizationId: string) => void) | undefined;
}

function organizationCreationPolicy(config: KassaConfig) {
  switch (config.organization.creation) {
    case "everyone":
      return true;
    case "nobody":
      return false;
    case "verified":
      return (user: { emailVerified: boolean }) => user.emailVerified;
    case "admins":
      return (user: Record<string, unknown>) =>
        typeof user.role === "string" && user.role.split(",").includes("admin");
  }
}

export function buildAuthOptions(deps: AuthDeps) {
  const { config, mailer, logger } = deps;

  const plugins: BetterAuthPlugin[] = [
    username({
      minUsernameLength: config.username.min,
      maxUsernameLength: config.username.max,
      usernameValidator: (value) => USERNAME_PATTERN.test(value),
    }),
    organization({
      ac: organizationAc,
      roles: organizationRoles,
      creatorRole: "owner",
      allowUserToCreateOrganization: organizationCreationPolicy(config),
      ...(config.organization.limit !== undefined ? { organizationLimit: config.organization.limit } : {}),
      membershipLimit: config.organization.membershipLimit,
      invitationExpiresIn: config.organization.invitationExpiresIn,
      cancelPendingInvitationsOnReInvite: true,
      teams: { enabled: true, allowRemovingAllTeams: config.organization.allowRemovingAllTeams },
      organizationHooks: {
        async afterDeleteOrganization({ organization }) {
          deps.onOrganizationDeleted?.(organization.id);
        },
      },
      async sendInvitationEmail(data) {
        await mailer.send(
          mailTemplates.invitation({
            to: data.email,
            inviterName: data.inviter.user.name || data.inviter.user.email,
            organizationName: data.organization.name,
            role: data.role,
            // The web app's invitation page; the address lets it prefill sign-up for a newcomer.
            url: `${config.baseURL}/accept-invitation/${data.id}?email=${encodeURIComponent(data.email)}`,
          }),
        );
      },
    }),
    admin({ ac: adminAc, roles: adminRoles, defaultRole: "user", adminRoles: ["admin"] }),
    apiKey(),
    kassaSpecPlugin({
      mailer,
      deleteTokenExpiresIn: DELETE_TOKEN_EXPIRES_IN,
      allowRemovingAllTeams: config.organization.allowRemovingAllTeams,
    }),
  ];

  if (config.captcha) {
    const { provider, secretKey, verifyURL } = config.captcha;
    const common = {
      secretKey,
      endpoints: ["/sign-up/email", "/sign-in/email", "/sign-in/username", "/request-password-reset"],
      ...(verifyURL ? { siteVerifyURLOverride: verifyURL } : {}),
    };
    plugins.push(
      provider === "cloudflare-turnstile"
        ? captcha({ provider, ...common })
        : provider === "google-recaptcha"
          ? captcha({ provider, ...common })
          : captcha({
              provider,
              ...common,
              ...(config.captcha.siteKey ? { siteKey: config.captcha.siteKey } : {}),
            }),
    );
  }

  if (config.social.oidc) {
    const oidc = config.social.oidc;
    plugins.push(
      genericOAuth({
        config: [
          {
            providerId: oidc.providerId,
            discoveryUrl: `${oidc.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
            clientId: oidc.clientId,
            clientSecret: oidc.clientSecret,
            scopes: oidc.scopes,
            pkce: true,
            // Offline access needs consent at most providers; without it no refresh token is issued.
            ...(oidc.scopes.includes("offline_access") ? { prompt: "consent" as const } : {}),
          },
        ],
      }),
    );
  }

  return {
    appName: "Kassa",
    baseURL: config.baseURL,
    basePath: AUTH_BASE_PATH,
    secret: deps.secret,
    database: { db: deps.db, type: "postgres" },
    trustedOrigins: config.trustedOrigins,
    telemetry: { enabled: false },
    // Errors that are not Better Auth's own answers leave its router (instead of an empty 500):
    // app.ts turns bad input found by the database into 4xx and logs the rest once (auth/edge.ts).
    onAPIError: { throw: true },
    logger: {
      level: config.logLevel === "debug" ? "debug" : "warn",
      log: (level, message, ...args) => {
        const fields =
          args.length > 0 ? { details: args.map((a) => (a instanceof Error ? a.message : a)) } : {};
        if (level === "error") logger.error(`auth: ${message}`, fields);
        else if (level === "warn") logger.warn(`auth: ${message}`, fields);
        else logger.debug(`auth: ${message}`, fields);
      },
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: config.password.min,
      maxPasswordLength: config.password.max,
      resetPasswordTokenExpiresIn: RESET_PASSWORD_TOKEN_EXPIRES_IN,
      revokeSessionsOnPasswordReset: true,
      // Signing up with a taken address answers a placeholder user: give it the admin
      // plugin's defaults so it cannot be told apart from a real sign-up.
      customSyntheticUser: ({ coreFields, additionalFields, id }) => ({
        ...coreFields,
        role: "user",
        banned: false,
        banReason: null,
        banExpires: null,
        ...additionalFields,
        id,
      }),
      password: deps.password ?? gatedPasswordHasher(),
      async sendResetPassword({ user, url }) {
        await mailer.send(
          mailTemplates.resetPassword({
            to: user.email,
            name: user.name,
            url,
            expiresInMinutes: RESET_PASSWORD_TOKEN_EXPIRES_IN / 60,
          }),
        );
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      async sendVerificationEmail({ user, url }) {
        await mailer.send(mailTemplates.verification({ to: user.email, name: user.name, url }));
      },
    },
    user: {
      changeEmail: {
        enabled: true,
        async sendChangeEmailConfirmation({ user, newEmail, url }) {
          await mailer.send(mailTemplates.changeEmail({ to: user.email, name: user.name, newEmail, url }));
        },
      },
      deleteUser: { enabled: true, deleteTokenExpiresIn: DELETE_TOKEN_EXPIRES_IN },
    },
    session: { freshAge: config.sessionFreshAge },
    account: {
      accountLinking: {
        enabled: true,
        allowUnlinkingAll: config.allowUnlinkingAll,
        trustedProviders: [
          "github",
          "google",
          ...(config.social.oidc ? [config.social.oidc.providerId] : []),
        ],
      },
    },
    socialProviders: {
      ...(config.social.github ? { github: config.social.github } : {}),
      ...(config.social.google ? { google: config.social.google } : {}),
    },
    rateLimit: {
      enabled: config.rateLimit,
      storage: "database",
      ...(deps.rateLimitStore && deps.rateLimitStore.kind !== "database"
        ? { customStorage: betterAuthStorage(deps.rateLimitStore) }
        : {}),
      window: 60,
      max: 300,
      customRules: {
        "/sign-in/*": { window: 60, max: 10 },
        "/sign-up/*": { window: 60, max: 5 },
        "/request-password-reset": { window: 300, max: 5 },
        "/reset-password": { window: 300, max: 10 },
        "/reset-password/*": { window: 300, max: 10 },
        "/send-verification-email": { window: 300, max: 5 },
        "/change-password": { window: 60, max: 5 },
        "/get-session": false,
        "/ok": false,
        "/error": false,
      },
    },
    advanced: {
      // UUIDs (Polar's id format) stored as text: an id that is not a UUID then simply
      // names nothing, where a uuid column would make PostgreSQL fail the whole query.
      database: { generateId: () => randomUUID(), joins: true },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: config.baseURL.startsWith("https://"),
    },
    databaseHooks: {
      user: {
        create: {
          async before(user) {
            if (config.adminEmails.includes(user.email.toLowerCase()))
              return { data: { ...user, role: "admin" } };
          },
        },
      },
    },
    // Errors thrown by plugins' before hooks (username checks) get the spec's messages too.
    plugins: plugins.map(withSpecMessagesInBeforeHooks),
  } satisfies BetterAuthOptions;
}

/**
 * Better Auth's limiter counting in a Kassa store: the same fixed windows and verdicts as /v1's,
 * under keys of their own (`auth:` + Better Auth's ip-and-path key).
 */
function betterAuthStorage(store: RateLimitStore) {
  return {
    async consume(key: string, rule: { window: number; max: number }) {
      const now = Date.now();
      const verdict = verdictOf(await store.hit(`auth:${key}`, rule.window * 1000, now), rule.max, now);
      return { allowed: verdict.allowed, retryAfter: verdict.allowed ? null : verdict.retryAfter };
    },
  };
}

export function createAuth(deps: AuthDeps) {
  // Before Better Auth creates its own: storages that switch their promise hooks off between
  // its calls (auth/async-storage.ts).
  installQuietAuthStorage();
  const options = buildAuthOptions(deps);
  return { auth: betterAuth(options), options };
}

export type KassaAuth = ReturnType<typeof createAuth>["auth"];

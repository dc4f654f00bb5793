import { z } from "zod/mini";

/**
 * `GET /api/config`: what the web app needs to know about the server. Never secrets.
 * (The contracts use zod's tree-shakable `zod/mini`: the sign-in page's bundle stays small.)
 */
export const publicConfigSchema = z.object({
  passwordMinLength: z.int().check(z.positive()),
  passwordMaxLength: z.int().check(z.positive()),
  usernameMinLength: z.int().check(z.positive()),
  usernameMaxLength: z.int().check(z.positive()),
  /** `kind`: a built-in social provider or a generic OAuth (OIDC) one; both start at `/sign-in/social`. */
  socialProviders: z.array(
    z.object({ id: z.string(), name: z.string(), kind: z.enum(["social", "oauth2"]) }),
  ),
  captcha: z.nullable(z.object({ provider: z.string(), siteKey: z.nullable(z.string()) })),
  /** True when mail goes to the development mailbox (`/api/dev/mailbox`). */
  devMailbox: z.boolean(),
});

export type PublicConfig = z.infer<typeof publicConfigSchema>;

/** The length rules the forms check before asking the server, which checks again. */
export interface LengthRules {
  password: { min: number; max: number };
  username: { min: number; max: number };
}

export const DEFAULT_LENGTH_RULES: LengthRules = {
  password: { min: 8, max: 128 },
  username: { min: 3, max: 30 },
};

export function lengthRules(config: PublicConfig | undefined): LengthRules {
  if (!config) return DEFAULT_LENGTH_RULES;
  return {
    password: { min: config.passwordMinLength, max: config.passwordMaxLength },
    username: { min: config.usernameMinLength, max: config.usernameMaxLength },
  };
}

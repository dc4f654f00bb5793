import { z } from "zod/mini";
import { passwordSchema, usernameSchema } from "./auth-forms.js";
import type { LengthRules } from "./public-config.js";

/**
 * The signed-in person's account forms, the API key form and the admin forms. The server
 * checks every rule again; these answer before a round trip.
 *
 * Every schema is built by a function, never at module level: zod calls at the top of a
 * module cannot be tree-shaken, and this module is part of the index the sign-in page loads.
 */

const email = () => z.email("Enter a valid e-mail address.");
const name = () => z.string().check(z.trim(), z.minLength(1, "Enter a name."));

/** An absolute http(s) address, or nothing. */
const optionalImageUrl = () =>
  z.union([
    z.literal(""),
    z.string().check(
      z.trim(),
      z.refine(
        (v) => /^https?:\/\/\S+$/i.test(v),
        "Enter an address starting with https:// (or leave it empty).",
      ),
    ),
  ]);

export function profileSchema(rules: LengthRules) {
  return z.object({
    name: name(),
    image: optionalImageUrl(),
    /** Empty: no username (an existing one is kept; the server cannot remove it). */
    username: z.union([z.literal(""), usernameSchema(rules)]),
    /** How the username is shown (its case may differ); empty: the username itself. */
    displayUsername: z
      .string()
      .check(z.trim(), z.maxLength(rules.username.max, `Use at most ${rules.username.max} characters.`)),
  });
}
export type ProfileValues = z.infer<ReturnType<typeof profileSchema>>;

export const changeEmailSchema = () => z.object({ newEmail: email() });
export type ChangeEmailValues = z.infer<ReturnType<typeof changeEmailSchema>>;

export function changePasswordSchema(rules: LengthRules) {
  return z
    .object({
      currentPassword: z.string().check(z.minLength(1, "Enter your current password.")),
      newPassword: passwordSchema(rules),
      confirm: z.string(),
      revokeOtherSessions: z.boolean(),
    })
    .check(
      z.refine((v) => v.newPassword === v.confirm, {
        message: "The passwords do not match.",
        path: ["confirm"],
      }),
    );
}
export type ChangePasswordValues = z.infer<ReturnType<typeof changePasswordSchema>>;

/** What a person types to confirm deleting their account. */
export const DELETE_ACCOUNT_PHRASE = "delete my account";

export const deleteAccountSchema = () =>
  z.object({
    /** Empty: no password; the server then mails a confirmation link (fresh sessions only). */
    password: z.string(),
    confirmation: z
      .string()
      .check(
        z.refine(
          (v) => v.trim().toLowerCase() === DELETE_ACCOUNT_PHRASE,
          `Type "${DELETE_ACCOUNT_PHRASE}" to confirm.`,
        ),
      ),
  });
export type DeleteAccountValues = z.infer<ReturnType<typeof deleteAccountSchema>>;

/** Expiry choices for an API key, in days; "never" for a key that does not expire. */
export const API_KEY_EXPIRY_CHOICES = ["7", "30", "90", "365", "never"] as const;
export type ApiKeyExpiry = (typeof API_KEY_EXPIRY_CHOICES)[number];

export const apiKeyCreateSchema = () =>
  z.object({
    name: z
      .string()
      .check(z.trim(), z.minLength(1, "Give the key a name."), z.maxLength(64, "Use at most 64 characters.")),
    expiresIn: z.enum(API_KEY_EXPIRY_CHOICES, "Choose when the key expires."),
  });
export type ApiKeyCreateValues = z.infer<ReturnType<typeof apiKeyCreateSchema>>;

/** Seconds until expiry for the server, or null for a key that does not expire. */
export const apiKeyExpiresInSeconds = (choice: ApiKeyExpiry): number | null =>
  choice === "never" ? null : Number(choice) * 86400;

// --- admin ---------------------------------------------------------------------------------

export const PLATFORM_ROLES = ["user", "admin"] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];

export function adminCreateUserSchema(rules: LengthRules) {
  return z.object({
    name: name(),
    email: email(),
    password: passwordSchema(rules),
    role: z.enum(PLATFORM_ROLES, "Choose a role."),
  });
}
export type AdminCreateUserValues = z.infer<ReturnType<typeof adminCreateUserSchema>>;

export const adminSetRoleSchema = () => z.object({ role: z.enum(PLATFORM_ROLES, "Choose a role.") });
export type AdminSetRoleValues = z.infer<ReturnType<typeof adminSetRoleSchema>>;

/** Ban lengths in days; "never" for a ban without end. */
export const BAN_EXPIRY_CHOICES = ["1", "7", "30", "never"] as const;

export const adminBanUserSchema = () =>
  z.object({
    reason: z.string().check(z.trim(), z.maxLength(500, "Use at most 500 characters.")),
    expiresIn: z.enum(BAN_EXPIRY_CHOICES, "Choose how long the ban lasts."),
  });
export type AdminBanUserValues = z.infer<ReturnType<typeof adminBanUserSchema>>;

export const banExpiresInSeconds = (choice: AdminBanUserValues["expiresIn"]): number | undefined =>
  choice === "never" ? undefined : Number(choice) * 86400;

export function adminSetPasswordSchema(rules: LengthRules) {
  return z.object({ newPassword: passwordSchema(rules) });
}
export type AdminSetPasswordValues = z.infer<ReturnType<typeof adminSetPasswordSchema>>;

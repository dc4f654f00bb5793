import { z } from "zod/mini";
import type { LengthRules } from "./public-config.js";

/**
 * The sign-in pages' forms. The server checks every rule again; these give the person the
 * answer before a round trip.
 */

const email = z.email("Enter a valid e-mail address.");

export function passwordSchema(rules: LengthRules) {
  const { min, max } = rules.password;
  return z
    .string()
    .check(
      z.minLength(1, "Enter a password."),
      z.minLength(min, `Use at least ${min} characters.`),
      z.maxLength(max, `Use at most ${max} characters.`),
    );
}

/** Letters, digits, `_` and `.`, as the server's username plugin accepts. */
export const USERNAME_PATTERN = /^[a-zA-Z0-9_.]+$/;

export function usernameSchema(rules: LengthRules) {
  const { min, max } = rules.username;
  return z
    .string()
    .check(
      z.minLength(min, `Use at least ${min} characters.`),
      z.maxLength(max, `Use at most ${max} characters.`),
      z.regex(USERNAME_PATTERN, "Use only letters, digits, underscores and dots."),
    );
}

export function signUpSchema(rules: LengthRules) {
  return z.object({
    name: z.string().check(z.trim(), z.minLength(1, "Enter your name.")),
    email,
    /** Optional: an empty field means no username. */
    username: z.union([z.literal(""), usernameSchema(rules)]),
    password: passwordSchema(rules),
  });
}
export type SignUpValues = z.infer<ReturnType<typeof signUpSchema>>;

export const signInSchema = z.object({
  /** An e-mail address (contains `@`) or a username. */
  identifier: z.string().check(z.trim(), z.minLength(1, "Enter your e-mail address or username.")),
  password: z.string().check(z.minLength(1, "Enter your password.")),
});
export type SignInValues = z.infer<typeof signInSchema>;

/** Whether a sign-in identifier is an e-mail address (else it is a username). */
export const isEmailIdentifier = (identifier: string) => identifier.includes("@");

export const forgotPasswordSchema = z.object({ email });
export type ForgotPasswordValues = z.infer<typeof forgotPasswordSchema>;

export const resendVerificationSchema = z.object({ email });
export type ResendVerificationValues = z.infer<typeof resendVerificationSchema>;

export function resetPasswordSchema(rules: LengthRules) {
  return z.object({ password: passwordSchema(rules), confirm: z.string() }).check(
    z.refine((v) => v.password === v.confirm, {
      message: "The passwords do not match.",
      path: ["confirm"],
    }),
  );
}
export type ResetPasswordValues = z.infer<ReturnType<typeof resetPasswordSchema>>;

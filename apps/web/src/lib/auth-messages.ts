/**
 * The account server's refusals in words for people, keyed by the answer's stable `code`.
 * The API keeps the spec's messages on the wire ("invalid email or password", see
 * apps/server/src/auth/messages.ts) for the clients that show or match them; the web app's
 * pages say them as sentences. A code without a sentence is shown in the server's own words.
 */
const SIGN_IN_MESSAGES: Record<string, string> = {
  // Signing in and up
  INVALID_EMAIL_OR_PASSWORD: "The e-mail or password is not right.",
  INVALID_USERNAME_OR_PASSWORD: "The username or password is not right.",
  EMAIL_NOT_VERIFIED: "Confirm your e-mail address first: open the link we sent you.",
  USER_ALREADY_EXISTS: "An account with this e-mail address already exists. Sign in instead.",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL:
    "An account with this e-mail address already exists. Use another one.",
  INVALID_EMAIL: "This is not a valid e-mail address.",
  PASSWORD_TOO_SHORT: "The password is too short.",
  PASSWORD_TOO_LONG: "The password is too long.",
  USERNAME_TOO_SHORT: "The username is too short.",
  USERNAME_TOO_LONG: "The username is too long.",
  INVALID_USERNAME: "A username may have only letters, digits, dots and underscores.",
  USERNAME_IS_ALREADY_TAKEN: "This username is taken. Choose another one.",
  EMAIL_AND_PASSWORD_NOT_ENABLED: "Signing in with an e-mail and password is turned off on this server.",
  PROVIDER_NOT_FOUND: "This way of signing in is not set up on this server.",
  FAILED_TO_CREATE_SESSION: "You could not be signed in. Try again.",
  SESSION_EXPIRED: "Your session has ended. Sign in again.",
  USER_NOT_FOUND: "There is no account with these details.",
  // Links sent by e-mail
  INVALID_TOKEN: "This link is not valid any more. Ask for a new one.",
  VERIFICATION_EMAIL_NOT_ENABLED: "E-mail verification is turned off on this server.",
  RESET_PASSWORD_DISABLED: "Resetting a password is turned off on this server.",
};

const words = new Map<string, string>(Object.entries(SIGN_IN_MESSAGES));

/**
 * Adds the sentences of an area's codes. Those of the signed-in pages (account, organizations,
 * teams, invitations, API keys) live in `dashboard-messages.ts`, which the modules of those
 * pages import, so the sign-in pages do not load them (their bundle is budgeted).
 */
export function addRefusalWords(more: Record<string, string>) {
  for (const [code, sentence] of Object.entries(more)) words.set(code, sentence);
}

/** The sentence for a refusal's code, if the web app words it. */
export const authMessage = (code: string | undefined): string | undefined =>
  code === undefined ? undefined : words.get(code);

/**
 * What each redirect error code of the specification (section 8) means, in words a person
 * understands. The server's plain error page and the web app's `/error` page both show these.
 */
export const redirectErrorExplanations: Record<string, string> = {
  token_expired: "The link has expired. Ask for a new one.",
  invalid_token: "The link is not valid. It may have been used already.",
  user_not_found: "No account matches this link.",
  unauthorized: "You need to be signed in to do that.",
  invalid_callback_request: "The sign-in provider sent an unexpected answer.",
  state_not_found: "The sign-in took too long or was started in another browser. Try again.",
  no_code: "The sign-in provider did not return an authorization code.",
  oauth_provider_not_found: "This sign-in provider is not configured.",
  invalid_code: "The sign-in provider refused the authorization code. Try again.",
  unable_to_get_user_info: "The sign-in provider did not share your profile.",
  email_not_found: "The sign-in provider did not share an e-mail address.",
  no_callback_url: "The request did not say where to go next.",
  account_already_linked_to_different_user: "This account is already linked to another user.",
  unable_to_link_account: "The account could not be linked.",
  "account not linked": "This account is not linked to your user. Sign in another way, then link it.",
  "signup disabled": "New accounts cannot be created this way.",
  "unable to create user": "Your account could not be created.",
  "unable to create session": "You could not be signed in.",
  internal_server_error: "Something went wrong on our side.",
};

export const UNKNOWN_ERROR_EXPLANATION = "Something went wrong.";

/** The explanation of a redirect error code (as given, or lower-cased), or a generic one. */
export function explainRedirectError(code: string): string {
  return (
    redirectErrorExplanations[code] ??
    redirectErrorExplanations[code.toLowerCase()] ??
    UNKNOWN_ERROR_EXPLANATION
  );
}

/**
 * The spec's error catalogue (section 8), keyed by Better Auth's stable error `code`.
 * Better Auth 1.7 words several messages differently; the spec's words win. The `code`
 * stays in the answer unchanged so clients can still branch on it.
 */
export const specMessages: Record<string, string> = {
  // Account
  VERIFICATION_EMAIL_NOT_ENABLED: "Verification email isn't enabled",
  EMAIL_AND_PASSWORD_NOT_ENABLED: "Email and password is not enabled",
  RESET_PASSWORD_DISABLED: "Reset password isn't enabled",
  CHANGE_EMAIL_DISABLED: "Change email is disabled",
  EMAIL_IS_THE_SAME: "Email is the same",
  COULDNT_UPDATE_YOUR_EMAIL: "Couldn't update your email",
  PASSWORD_ALREADY_SET: "user already has a password",
  USER_ALREADY_HAS_PASSWORD: "user already has a password",
  FAILED_TO_CREATE_SESSION: "Failed to create session",
  PROVIDER_NOT_FOUND: "Provider not supported or not found",
  ACCOUNT_NOT_FOUND: "Account not found",
  FAILED_TO_GET_A_VALID_ACCESS_TOKEN: "Failed to get a valid access token",
  FAILED_TO_REFRESH_ACCESS_TOKEN: "Failed to refresh access token",
  EITHER_USERID_OR_SESSION_IS_REQUIRED: "Either userId or session is required",
  INVALID_EMAIL: "Invalid email",
  INVALID_EMAIL_OR_PASSWORD: "invalid email or password",
  EMAIL_NOT_VERIFIED: "email not verified",
  INVALID_TOKEN: "invalid token",
  USER_NOT_FOUND: "user not found",
  CREDENTIAL_ACCOUNT_NOT_FOUND: "credential account not found",
  INVALID_PASSWORD: "invalid password",
  FAILED_TO_UNLINK_LAST_ACCOUNT: "failed to unlink last account",
  SESSION_EXPIRED: "session expired",
  USER_ALREADY_EXISTS: "user already exists",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "user already exists",
  PASSWORD_TOO_SHORT: "password too short",
  PASSWORD_TOO_LONG: "password too long",
  USER_CANNOT_BE_DELETED: "User cannot be deleted. please provide a password or token",

  // Organization
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: "not allowed to create a new organization",
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS: "reached maximum number of organizations",
  ORGANIZATION_ALREADY_EXISTS: "Organization already exists",
  ORGANIZATION_SLUG_ALREADY_TAKEN: "slug is taken",
  ORGANIZATION_NOT_FOUND: "Organization not found",
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: "User is not a member of the organization",
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: "User is not a member of the organization",
  // list-teams answers a non-member with this code (Better Auth's text speaks of owners).
  YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION: "User is not a member of the organization",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: "not allowed to update this organization",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: "not allowed to delete this organization",
  NO_ACTIVE_ORGANIZATION: "No active organization",
  MEMBER_NOT_FOUND: "Member not found",
  TEAM_NOT_FOUND: "Team not found",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: "cannot leave as the only owner",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: "cannot leave as the only owner",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: "not allowed to delete this member",
  INVITATION_NOT_FOUND: "Invitation not found",
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: "not the recipient of the invitation",
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: "not allowed to cancel this invitation",
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: "Inviter is no longer a member",
  FAILED_TO_RETRIEVE_INVITATION: "Failed to retrieve invitation",
  UNABLE_TO_REMOVE_LAST_TEAM: "Unable to remove last team",
  ORGANIZATION_MEMBERSHIP_LIMIT_REACHED: "membership limit reached",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION: "not allowed to delete teams",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM: "not allowed to update or delete this team",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: "not allowed to update or delete this team",
  SLUG_IS_TAKEN: "slug is taken",
  // Kassa's own team rules (spec sections 3 and 5).
  TEAM_NAME_TOO_SHORT: "Team name must be at least 1 character",
  CANNOT_REMOVE_OWN_TEAM: "not allowed to update or delete this team",

  // Username
  INVALID_USERNAME_OR_PASSWORD: "invalid username or password",
  USERNAME_TOO_SHORT: "username is too short",
  USERNAME_TOO_LONG: "username is too long",
  INVALID_USERNAME: "username is invalid",
  USERNAME_IS_ALREADY_TAKEN: "username is already taken",

  // API keys
  KEY_NOT_FOUND: "not found",
  KEY_DISABLED: "disabled",
  KEY_EXPIRED: "expired",
  USAGE_EXCEEDED: "usage limit reached",
  RATE_LIMIT_EXCEEDED: "Rate limit exceeded",
  // The per-key rate limit of verifyApiKey answers this code.
  RATE_LIMITED: "Rate limit exceeded",
  INVALID_API_KEY: "invalid",
  FAILED_TO_UPDATE_API_KEY: "failed to update",
};

/** Error codes Kassa raises itself (spec rules Better Auth 1.7 does not enforce). */
export const KASSA_CODES = {
  COULDNT_UPDATE_YOUR_EMAIL: "COULDNT_UPDATE_YOUR_EMAIL",
  USER_CANNOT_BE_DELETED: "USER_CANNOT_BE_DELETED",
  TEAM_NAME_TOO_SHORT: "TEAM_NAME_TOO_SHORT",
  UNABLE_TO_REMOVE_LAST_TEAM: "UNABLE_TO_REMOVE_LAST_TEAM",
  CANNOT_REMOVE_OWN_TEAM: "CANNOT_REMOVE_OWN_TEAM",
  SLUG_IS_TAKEN: "SLUG_IS_TAKEN",
} as const;

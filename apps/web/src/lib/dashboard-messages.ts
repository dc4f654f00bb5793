import { addRefusalWords } from "./auth-messages";

/**
 * The signed-in pages' refusals in words for people (the account, organizations, invitations,
 * teams, API keys), added to the sentences `serverErrorMessage` uses when a module of those
 * pages is loaded (`lib/organization.ts`, which the dashboard shell loads, and the forms of
 * those pages).
 */
addRefusalWords({
  // The account
  INVALID_PASSWORD: "The password is not right.",
  CREDENTIAL_ACCOUNT_NOT_FOUND: "This account has no password yet: set one from the reset-password page.",
  PASSWORD_ALREADY_SET: "This account already has a password.",
  USER_ALREADY_HAS_PASSWORD: "This account already has a password.",
  CHANGE_EMAIL_DISABLED: "Changing the e-mail address is turned off on this server.",
  EMAIL_IS_THE_SAME: "This is already your e-mail address.",
  COULDNT_UPDATE_YOUR_EMAIL: "Your e-mail address could not be changed. Try another one.",
  ACCOUNT_NOT_FOUND: "This linked account was not found.",
  FAILED_TO_UNLINK_LAST_ACCOUNT: "This is your only way to sign in, so it cannot be removed.",
  USER_CANNOT_BE_DELETED: "Enter your password (or use the link we e-mailed you) to delete your account.",
  // Organizations
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: "Your account may not create organizations.",
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS:
    "You have as many organizations as this server allows.",
  ORGANIZATION_ALREADY_EXISTS: "An organization with this address already exists.",
  ORGANIZATION_SLUG_ALREADY_TAKEN: "This address is taken. Choose another one.",
  SLUG_IS_TAKEN: "This address is taken. Choose another one.",
  ORGANIZATION_NOT_FOUND: "This organization was not found.",
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: "You are not a member of this organization.",
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: "You are not a member of this organization.",
  YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION: "You are not a member of this organization.",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: "Your role does not let you change this organization.",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: "Your role does not let you delete this organization.",
  NO_ACTIVE_ORGANIZATION: "Choose an organization first.",
  MEMBER_NOT_FOUND: "This member was not found.",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER:
    "You are its only owner: make someone else an owner before you leave.",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER:
    "You are its only owner: make someone else an owner before you leave.",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: "Your role does not let you remove this member.",
  ORGANIZATION_MEMBERSHIP_LIMIT_REACHED: "This organization has as many members as it may have.",
  // Invitations
  INVITATION_NOT_FOUND: "This invitation was not found: it may have been cancelled or already used.",
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION:
    "This invitation was sent to another e-mail address. Sign in with that address to accept it.",
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: "Your role does not let you cancel this invitation.",
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION:
    "The person who invited you is no longer a member, so this invitation no longer holds.",
  FAILED_TO_RETRIEVE_INVITATION: "This invitation could not be read. Try again.",
  // Teams
  TEAM_NOT_FOUND: "This team was not found.",
  TEAM_NAME_TOO_SHORT: "Give the team a name.",
  UNABLE_TO_REMOVE_LAST_TEAM: "An organization keeps at least one team.",
  CANNOT_REMOVE_OWN_TEAM: "Your role does not let you change or delete this team.",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION: "Your role does not let you delete teams.",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM: "Your role does not let you change or delete this team.",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: "Your role does not let you change or delete this team.",
  // API keys
  KEY_NOT_FOUND: "This API key was not found.",
  KEY_DISABLED: "This API key is turned off.",
  KEY_EXPIRED: "This API key has expired.",
  USAGE_EXCEEDED: "This API key has been used as many times as it may be.",
  INVALID_API_KEY: "This API key is not valid.",
  FAILED_TO_UPDATE_API_KEY: "The API key could not be changed. Try again.",
});

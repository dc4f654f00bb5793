import { ResourceNotFound } from "../../kit/api/errors.js";

export class OrganizationAccessTokenNotFound extends ResourceNotFound {
  constructor() {
    super("Organization access token not found.");
  }
}

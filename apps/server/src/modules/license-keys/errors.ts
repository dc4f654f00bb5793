import { BadRequest, NotPermitted, ResourceNotFound } from "../../kit/api/errors.js";

/**
 * The refusals of validate / activate / deactivate, in Polar's words and statuses
 * (`license_key/service.py`), so a client written for Polar reads them unchanged.
 */
export const LicenseKeyNotFound = () => new ResourceNotFound("Not found");

export const validateRefusals = {
  inactive: () => new ResourceNotFound("License key is no longer active."),
  expired: () => new ResourceNotFound("License key has expired."),
  conditions: () => new ResourceNotFound("License key does not match required conditions"),
  benefit: () => new ResourceNotFound("License key does not match given benefit."),
  customer: () => new ResourceNotFound("License key does not match given user."),
  usage: (remaining: number) => new BadRequest(`License key only has ${remaining} more usages.`),
};

export const activateRefusals = {
  inactive: () => new NotPermitted("License key is no longer active. This license key can not be activated."),
  expired: () => new NotPermitted("License key has expired."),
  noActivations: () =>
    new NotPermitted(
      "This license key does not support activations. Use the /validate endpoint instead to check license validity.",
    ),
  limit: () => new NotPermitted("License key activation limit already reached"),
};
